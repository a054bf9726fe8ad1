'use strict';
// A pull request's build step that goes looking for the runner's token: in the environments of
// its ancestors (/proc/<ppid>/environ, walking up), in every process's environment
// (/proc/*/environ), in the runner's files (.credentials, _diag/ logs, the GITHUB_ENV and
// GITHUB_OUTPUT files) and in the fork's checkout (.git/config, where actions/checkout keeps the
// token). Stand-ins for all of them are made here; the build runs as `perfgate build
// --untrusted` does on a runner, with the token in perfgate's own environment.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { gitIn, setup } = require('../../support/tiny-fork');
const { sandboxFor } = require('../../../cli/src/processes');
const { buildCommit } = require('../../../cli/src/source-build/build-commit');

const PERFGATE = path.resolve(__dirname, '../../../cli/bin/perfgate.js');
const TOKEN = `ghs_sandboxTest${process.pid}x${Date.now()}`;

// The runner's files, as a GitHub runner lays them out, each holding the token.
function runnerFiles(root) {
  const runner = path.join(root, 'actions-runner');
  const commands = path.join(runner, '_work', '_temp', '_runner_file_commands');
  const files = {
    credentials: path.join(runner, '.credentials'),
    runner: path.join(runner, '.runner'),
    diag: path.join(runner, '_diag', 'Worker_20261125-000000-utc.log'),
    githubEnv: path.join(commands, 'set_env_6b1d1c36-1f5e-4f5e-9d0e-3b4c4d9a0e11'),
    githubOutput: path.join(commands, 'set_output_6b1d1c36-1f5e-4f5e-9d0e-3b4c4d9a0e11'),
  };
  fs.mkdirSync(path.dirname(files.diag), { recursive: true });
  fs.mkdirSync(commands, { recursive: true });
  fs.writeFileSync(files.credentials, JSON.stringify({ scheme: 'OAuthAccessToken', data: { token: TOKEN } }));
  fs.writeFileSync(files.runner, JSON.stringify({ agentName: 'perf-1', token: TOKEN }));
  fs.writeFileSync(files.diag, `[2026-11-25 00:00:00Z INFO Worker] Job message: {"system.github.token": "${TOKEN}"}\n`);
  fs.writeFileSync(files.githubEnv, `STOLEN_LATER=${TOKEN}\n`);
  fs.writeFileSync(files.githubOutput, `token=${TOKEN}\n`);
  return files;
}

// The hostile step (test/fixtures/sandbox/token-probe.sh): what it finds goes to
// <build>/found-<when>.txt, installed into share/.
const PROBE = path.resolve(__dirname, '../../fixtures/sandbox/token-probe.sh');

function addStealBranch(repo, files) {
  gitIn(repo, 'checkout', '-q', '-b', 'steal', 'base');
  fs.copyFileSync(PROBE, path.join(repo, 'steal.sh'));
  const probe = `sh \${CMAKE_SOURCE_DIR}/steal.sh --checkout \${CMAKE_SOURCE_DIR} ${Object.values(files).join(' ')}`;
  fs.appendFileSync(path.join(repo, 'CMakeLists.txt'), `
execute_process(COMMAND ${probe} OUTPUT_FILE \${CMAKE_BINARY_DIR}/found-configure.txt ERROR_FILE \${CMAKE_BINARY_DIR}/found-configure.txt)
add_custom_target(steal COMMAND ${probe} > \${CMAKE_BINARY_DIR}/found-build.txt 2>&1 BYPRODUCTS \${CMAKE_BINARY_DIR}/found-build.txt)
add_dependencies(tinyd steal)
install(FILES \${CMAKE_BINARY_DIR}/found-configure.txt \${CMAKE_BINARY_DIR}/found-build.txt DESTINATION share COMPONENT Server)
`);
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'steal');
  gitIn(repo, 'checkout', '-q', 'main');
  // What actions/checkout leaves in the fork's checkout (persist-credentials, the default).
  gitIn(repo, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${TOKEN}`);
}

function perfgateBuild(s, files, extraEnv) {
  const env = {
    ...s.env,
    'INPUT_GITHUB-TOKEN': TOKEN, ACTIONS_RUNTIME_TOKEN: TOKEN, GITHUB_TOKEN: TOKEN,
    GITHUB_ENV: files.githubEnv, GITHUB_OUTPUT: files.githubOutput, RUNNER_TEMP: path.dirname(path.dirname(files.githubEnv)),
    ...extraEnv,
  };
  const child = spawn(process.execPath, [PERFGATE, 'build', '--source', s.repo, '--ref', 'steal', '--build-config', s.recipeFile, '--untrusted'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => { stdout += c; });
  child.stderr.on('data', (c) => { stderr += c; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function found(prefix) {
  return Object.fromEntries(['configure', 'build'].map((when) => [when, fs.readFileSync(path.join(prefix, 'share', `found-${when}.txt`), 'utf8')]));
}

test('a build step finds no token: not in its ancestors, not in /proc, not in the runner\'s files or the checkout', async (t) => {
  const s = setup(t);
  const files = runnerFiles(s.root);
  addStealBranch(s.repo, files);

  // Without the sandbox (the runner's owner turned it off) the same step finds the token in
  // every place it looks: the probe works.
  const open = await perfgateBuild(s, files, { PERFGATE_SANDBOX: 'off', PERFGATE_CACHE: path.join(s.root, 'cache-open') });
  assert.equal(open.code, 0, open.stderr);
  assert.match(open.stderr, /^perfgate build: PERFGATE_SANDBOX=off: this runner's owner lets untrusted code run without the sandbox, where it can read the runner's files and processes$/m);
  const processesSeen = (text) => text.match(/^environ \/proc\/\d+\/environ$/mg);
  for (const [when, text] of Object.entries(found(open.stdout.trim()))) {
    assert.ok(processesSeen(text).includes(`environ /proc/${process.pid}/environ`), `${when}: this test's own process is in sight`);
    assert.match(text, new RegExp(`^INPUT_GITHUB-TOKEN=${TOKEN}$`, 'm'), `${when}: an ancestor's environment`);
    for (const [name, file] of Object.entries(files)) {
      assert.ok(text.includes(`file ${file}\n`) && text.split(`file ${file}\n`)[1].split('\nfile ')[0].includes(TOKEN), `${when}: ${name} read`);
    }
    assert.match(text, new RegExp(`^\\s*extraheader = AUTHORIZATION: basic ${TOKEN}$`, 'm'), `${when}: the checkout's config`);
  }

  const boxed = await perfgateBuild(s, files, {});
  assert.equal(boxed.code, 0, boxed.stderr);
  const prefix = boxed.stdout.trim();
  assert.match(fs.readFileSync(path.join(prefix, '..', 'build.log'), 'utf8'), /^perfgate build: cmake and ninja run in the sandbox \(bubblewrap\)$/m);
  for (const [when, text] of Object.entries(found(prefix))) {
    assert.match(text, /^ancestor \d+$/m, `${when}: the step ran and looked:\n${text}`);
    assert.match(text, /^environ \/proc\/1\/environ$/m, `${when}: it listed the processes it can see`);
    assert.ok(!text.includes(TOKEN), `${when}: the token reached the build step:\n${text}`);
    // Its own PID namespace: the build's few processes, numbered from 1, none of the machine's.
    const seen = processesSeen(text);
    assert.ok(seen.every((line) => Number(line.split('/')[2]) < 100), `${when}: processes of the machine are in sight:\n${seen.join('\n')}`);
  }
});

// An install step may leave links in the folder it installs into, the prefix's parent. Were
// perfgate to write build.log or build.json through them (outside the sandbox, as root on a
// root runner), the pull request would choose the file, and through its own build output the
// lines: e.g. a .pth file the next python3 perfgate starts imports.
test('links an install step leaves beside the prefix are not written through: the cache entry is a folder perfgate made', async (t) => {
  const s = setup(t);
  const outside = path.join(s.root, 'outside');
  fs.mkdirSync(outside);
  const targets = { 'build.log': path.join(outside, 'zz-evil.pth'), 'build.json': path.join(outside, 'build.json') };
  for (const file of Object.values(targets)) fs.writeFileSync(file, 'untouched\n');
  gitIn(s.repo, 'checkout', '-q', '-b', 'plant-links', 'base');
  const links = Object.entries(targets).map(([name, target]) => `execute_process(COMMAND ln -sfn ${target} \\"\\\${CMAKE_INSTALL_PREFIX}/../${name}\\")`).join('\n');
  fs.appendFileSync(path.join(s.repo, 'CMakeLists.txt'), `
install(CODE "message(\\"import os; os.system('id > /tmp/pwned')\\")
${links}" COMPONENT Server)
`);
  gitIn(s.repo, 'commit', '-q', '-am', 'plant links');
  gitIn(s.repo, 'checkout', '-q', 'main');
  const sandbox = sandboxFor({ untrusted: true, env: s.env });
  assert.equal(sandbox.sandboxed, true, 'this test needs the sandbox (bubblewrap)');

  const built = await buildCommit({ source: s.repo, ref: 'plant-links', recipe: s.recipe, cacheDir: s.cacheDir, env: s.env, sandbox });
  for (const file of Object.values(targets)) assert.equal(fs.readFileSync(file, 'utf8'), 'untouched\n', `${file} was written through a link the install step left`);
  const entry = path.dirname(built.prefix);
  for (const name of ['build.log', 'build.json', 'prefix']) assert.ok(!fs.lstatSync(path.join(entry, name)).isSymbolicLink(), `${name} of the cache entry is a link`);
  assert.match(fs.readFileSync(path.join(entry, 'build.log'), 'utf8'), /^import os; os\.system/m, 'the build log is the one perfgate wrote');
  assert.equal(JSON.parse(fs.readFileSync(path.join(entry, 'build.json'), 'utf8')).commit, built.commit);
});

// A prefix that is a link would be shown (read-only) to the next sandboxed server in its place:
// a link to a folder of secrets outside would put them in the sandbox's sight. Here it points
// beside itself, where the rest of the install can still write.
test('an install step that replaces the prefix with a link fails the build, and no cache entry is made', async (t) => {
  const s = setup(t);
  gitIn(s.repo, 'checkout', '-q', '-b', 'prefix-link', 'base');
  fs.appendFileSync(path.join(s.repo, 'CMakeLists.txt'), `
install(CODE "execute_process(COMMAND sh -c \\"mv \\\${CMAKE_INSTALL_PREFIX} \\\${CMAKE_INSTALL_PREFIX}.real && ln -s \\\${CMAKE_INSTALL_PREFIX}.real \\\${CMAKE_INSTALL_PREFIX}\\")" COMPONENT Server)
`);
  gitIn(s.repo, 'commit', '-q', '-am', 'prefix link');
  gitIn(s.repo, 'checkout', '-q', 'main');
  const sandbox = sandboxFor({ untrusted: true, env: s.env });
  await assert.rejects(buildCommit({ source: s.repo, ref: 'prefix-link', recipe: s.recipe, cacheDir: s.cacheDir, env: s.env, sandbox }),
    (err) => err.step === 'verify' && err.reason === 'prefix-not-a-folder' && /as something other than a folder \(a symbolic link\?\)/.test(err.message));
  assert.deepEqual(fs.readdirSync(path.join(s.cacheDir, 'builds')), []);
});
