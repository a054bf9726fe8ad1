'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { childEnvironment, isPassedOn } = require('../../../cli/src/processes');

test('children get the allow-listed environment: no token, secret, password or key', () => {
  const env = {
    PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8', LC_ALL: 'C', TMPDIR: '/tmp', CCACHE_DIR: '/c', CC: 'gcc',
    PERFGATE_CACHE: '/cache', PERFGATE_PIN_CPUS: 'none', PYTHONPATH: '/h',
    GITHUB_TOKEN: 'x', GH_TOKEN: 'x', ACTIONS_RUNTIME_TOKEN: 'x', ACTIONS_CACHE_URL: 'x', RUNNER_TEMP: '/t', RUNNER_TOKEN: 'x',
    GITHUB_REPOSITORY: 'a/b', INPUT_GITHUB_TOKEN: 'x', AWS_ACCESS_KEY_ID: 'x', SSH_AUTH_SOCK: '/s',
    PERFGATE_WEBHOOK_SECRET: 'x', PERFGATE_PRIVATE_KEY_FILE: '/k', PERFGATE_DATABASE_PASSWORD: 'x', CCACHE_SECRET_KEY: 'x',
    DATABASE_URL: 'mysql://u:p@h/db', NODE_OPTIONS: '--require /evil.js', LD_PRELOAD: '/evil.so',
  };
  assert.deepEqual(Object.keys(childEnvironment(env)).sort(),
    ['CC', 'CCACHE_DIR', 'HOME', 'LANG', 'LC_ALL', 'PATH', 'PERFGATE_CACHE', 'PERFGATE_PIN_CPUS', 'PYTHONPATH', 'TMPDIR']);
  assert.deepEqual(childEnvironment({ PATH: '/a', HOME: '/h' }, { NINJA_STATUS: '[%f/%t] ', HOME: null }), { PATH: '/a', NINJA_STATUS: '[%f/%t] ' });
  assert.equal(isPassedOn('PERFGATE_APP_KEY'), false);
});

// The build tree lock: three processes take it at once; their critical sections never overlap.
function locker(treeDir, logFile, holdMs) {
  const script = `
    const fs = require('node:fs');
    const { lockTree } = require(${JSON.stringify(path.resolve(__dirname, '../../../cli/src/source-build/build-commit'))});
    (async () => {
      const unlock = await lockTree(${JSON.stringify(treeDir)}, () => {});
      fs.appendFileSync(${JSON.stringify(logFile)}, 'in ' + process.pid + '\\n');
      await new Promise((r) => setTimeout(r, ${holdMs}));
      fs.appendFileSync(${JSON.stringify(logFile)}, 'out ' + process.pid + '\\n');
      if (${holdMs} < 100000) await unlock();
    })();`;
  return spawn(process.execPath, ['-e', script], { stdio: 'inherit' });
}

const exited = (child) => new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

test('the build lock is taken by one waiter at a time, and a dead owner\'s lock is free at once', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-lock-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const log = path.join(dir, 'log');
  const children = [0, 1, 2].map(() => locker(path.join(dir, 'tree'), log, 300));
  const results = await Promise.all(children.map(exited));
  assert.deepEqual(results.map((r) => r.code), [0, 0, 0]);
  const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(lines.length, 6);
  for (let i = 0; i < 6; i += 2) {
    const pid = lines[i].split(' ')[1];
    assert.deepEqual([lines[i], lines[i + 1]], [`in ${pid}`, `out ${pid}`], `overlapping holders: ${lines.join(', ')}`);
  }
  // An owner killed while holding the lock: the next one gets it without waiting for a timeout.
  fs.rmSync(log);
  const owner = locker(path.join(dir, 'tree'), log, 10 ** 6);
  while (!fs.existsSync(log)) await new Promise((r) => setTimeout(r, 20));
  owner.kill('SIGKILL');
  await exited(owner);
  const started = Date.now();
  const next = await exited(locker(path.join(dir, 'tree'), log, 10));
  assert.equal(next.code, 0);
  assert.ok(Date.now() - started < 5000, 'the lock of a dead owner is free');
});

// A perfgate killed outright (SIGKILL) cannot stop its children: they must die with it. The
// stand-in perfgate starts a child the one way perfgate does (outside the sandbox, and in it,
// where the child starts a grandchild), prints the pids it can see and waits to be killed.
const PERFGATE_STAND_IN = `
  const { startProcess } = require(${JSON.stringify(path.resolve(__dirname, '../../../cli/src/processes'))});
  const outside = startProcess('sleep', ['301'], { stdio: 'ignore' });
  const inside = startProcess('sh', ['-c', 'sleep 302 & sleep 303'], { stdio: 'ignore', sandbox: { cwd: '/' } });
  console.log(outside.pid, inside.pid);
  setInterval(() => {}, 1000);`;

function pidsOf(pattern) {
  return require('node:child_process').spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
}

test('children die with a perfgate that is killed outright, in the sandbox and outside it', async () => {
  const perfgate = spawn(process.execPath, ['-e', PERFGATE_STAND_IN], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [outside, inside] = await new Promise((resolve) => perfgate.stdout.once('data', (d) => resolve(String(d).trim().split(' ').map(Number))));
  let sleepers = [];
  for (let waited = 0; sleepers.length < 3 && waited < 10000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    sleepers = pidsOf('^sleep 30[123]$');
  }
  assert.equal(sleepers.length, 3, 'the child, and in the sandbox a child and a grandchild, are running');
  perfgate.kill('SIGKILL');
  await exited(perfgate);
  let left = sleepers;
  for (let waited = 0; left.length && waited < 5000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    left = pidsOf('^sleep 30[123]$');
  }
  for (const pid of left) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  assert.deepEqual(left, [], `still running 5 s after perfgate was killed (child ${outside}, sandbox ${inside})`);
});

test('a command that is not there fails as a missing command, wrapped or not', async () => {
  const { runProcess, runProcessSync } = require('../../../cli/src/processes');
  for (const sandbox of [null, { cwd: '/' }]) {
    const r = await runProcess('perfgate-no-such-command', [], { sandbox });
    assert.equal(r.spawnError && r.spawnError.code, 'ENOENT');
    assert.equal(runProcessSync('perfgate-no-such-command', [], { sandbox }).error.code, 'ENOENT');
  }
});

test('handing a folder to the sandbox: files that vanished while find walked it (a shared ccache\'s locks) are not a failure; anything else is', () => {
  const { onlyVanished } = require('../../../cli/src/processes');
  assert.equal(onlyVanished("find: '/c/ccache/f/stats.lock': No such file or directory\nchown: cannot access '/c/ccache/f/stats.lock': No such file or directory\n"), true);
  assert.equal(onlyVanished("chown: changing ownership of '/ro/x': Read-only file system\n"), false);
  assert.equal(onlyVanished("find: '/c/x': No such file or directory\nchown: changing ownership of '/c/y': Operation not permitted\n"), false);
  assert.equal(onlyVanished(''), false);
});

test('a child that asks gets one line on its stdin per reply, in the sandbox and outside it; one that is not answered reads an empty stdin', async () => {
  const { runProcess } = require('../../../cli/src/processes');
  const script = 'echo "ask 1"; read a; echo "got $a"; echo "ask 2"; read b; echo "got $b"';
  for (const sandbox of [null, { cwd: '/' }]) {
    const lines = [];
    const r = await runProcess('sh', ['-c', script], {
      sandbox,
      replies: true,
      onLine: (line, stream, reply) => {
        lines.push(line);
        if (line.startsWith('ask ')) reply(`answer ${line.slice(4)}`);
      },
    });
    assert.equal(r.code, 0, `sandbox ${Boolean(sandbox)}`);
    assert.deepEqual(lines, ['ask 1', 'got answer 1', 'ask 2', 'got answer 2']);
    const unanswered = [];
    const quiet = await runProcess('sh', ['-c', 'read a; echo "read $? [$a]"'], { sandbox, onLine: (line) => unanswered.push(line) });
    assert.equal(quiet.code, 0);
    assert.deepEqual(unanswered, ['read 1 []']);
  }
});

test('the harness\'s questions go to `answer` and its answer back as one JSON line; other events to onEvent', async (t) => {
  const { runHarness } = require('../../../cli/src/harness-process');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-ask-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Stands in for the interpreter: asks twice, says what it read each time.
  const fake = path.join(dir, 'python');
  fs.writeFileSync(fake, [
    '#!/bin/sh',
    'echo \'{"event": "more_rounds?", "benchmark": "point-query", "most": 3, "record": {"id": "point-query"}}\'',
    'read a; echo "{\\"event\\": \\"phase\\", \\"phase\\": \\"read\\", \\"line\\": $a}"',
    'echo \'{"event": "more_rounds?", "benchmark": "point-query", "most": 2, "record": {"id": "point-query"}}\'',
    'read b; echo "{\\"event\\": \\"phase\\", \\"phase\\": \\"read\\", \\"line\\": $b}"',
  ].join('\n'), { mode: 0o755 });
  const asked = [];
  const events = [];
  const r = await runHarness({
    planFile: path.join(dir, 'plan.json'), outDir: dir, env: { ...process.env, PERFGATE_PYTHON: fake },
    answer: (q) => { asked.push(q.most); return { benchmark: q.benchmark, more_rounds: q.most - 2 }; },
    onEvent: (e) => events.push(e),
  });
  assert.equal(r.code, 0);
  assert.deepEqual(asked, [3, 2]);
  assert.deepEqual(events.map((e) => e.line), [{ benchmark: 'point-query', more_rounds: 1 }, { benchmark: 'point-query', more_rounds: 0 }]);
});
