'use strict';
// The sandbox's setting, decision and command line (pure), what it shows a process on this
// host (bubblewrap, installed by make setup), and what perfgate says and does where it does
// not work (a bwrap that fails as it does where user namespaces are disabled).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { sandboxMode, decideSandbox, sandboxCheck, probeFailure, bwrapArgs } = require('../../../cli/src/sandbox');
const { probeSandbox, runProcessSync } = require('../../../cli/src/processes');

const PERFGATE = path.resolve(__dirname, '../../../cli/bin/perfgate.js');
const AVAILABLE = () => ({ available: true, why: null });
const MISSING = () => ({ available: false, why: 'bwrap is not installed (Debian package bubblewrap)' });
const REFUSAL = "refusing to build or run untrusted code without the sandbox: bwrap is not installed (Debian package bubblewrap). Install bubblewrap (runner-setup/install), or, as this runner's owner, set PERFGATE_SANDBOX=off in /etc/perfgate/runner.env to run it unsandboxed";
const OFF_NOTE = "PERFGATE_SANDBOX=off: this runner's owner lets untrusted code run without the sandbox, where it can read the runner's files and processes";

test('PERFGATE_SANDBOX: auto by default, off, anything else is refused naming the setting', () => {
  assert.equal(sandboxMode({}), 'auto');
  assert.equal(sandboxMode({ PERFGATE_SANDBOX: '' }), 'auto');
  assert.equal(sandboxMode({ PERFGATE_SANDBOX: 'auto' }), 'auto');
  assert.equal(sandboxMode({ PERFGATE_SANDBOX: 'off' }), 'off');
  for (const bad of ['no', 'OFF', 'toString', 'constructor']) {
    assert.throws(() => sandboxMode({ PERFGATE_SANDBOX: bad }), (err) => err.name === 'UsageError' && err.exitCode === 2
      && err.message === `PERFGATE_SANDBOX '${bad}': expected auto (the default: code of a pull request runs only in the sandbox) or off (the runner's owner lets it run without one)`);
  }
});

test('everything runs in the sandbox where it works; untrusted code never runs without it unless the owner said off', () => {
  assert.deepEqual(decideSandbox({ mode: 'auto', untrusted: true, probe: AVAILABLE }), { sandboxed: true, note: null });
  assert.deepEqual(decideSandbox({ mode: 'auto', untrusted: false, probe: AVAILABLE }), { sandboxed: true, note: null });
  assert.deepEqual(decideSandbox({ mode: 'auto', untrusted: false, probe: MISSING }), { sandboxed: false, note: null });
  assert.throws(() => decideSandbox({ mode: 'auto', untrusted: true, probe: MISSING }),
    (err) => err.name === 'UsageError' && err.exitCode === 4 && err.message === REFUSAL);
  const unasked = () => { throw new Error('the probe is not needed when the owner turned the sandbox off'); };
  assert.deepEqual(decideSandbox({ mode: 'off', untrusted: true, probe: unasked }), { sandboxed: false, note: OFF_NOTE });
  assert.deepEqual(decideSandbox({ mode: 'off', untrusted: false, probe: unasked }), { sandboxed: false, note: null });
});

test('why the sandbox does not work, in one line', () => {
  assert.equal(probeFailure({ spawnError: Object.assign(new Error('spawn bwrap ENOENT'), { code: 'ENOENT' }) }), 'bwrap is not installed (Debian package bubblewrap)');
  assert.equal(probeFailure({ spawnError: Object.assign(new Error('spawn bwrap EACCES'), { code: 'EACCES' }) }), 'bwrap could not be started (EACCES)');
  assert.equal(probeFailure({ status: 1, stderr: 'bwrap: setting up uid map: Permission denied\n' }),
    'bwrap does not work here (exit 1: bwrap: setting up uid map: Permission denied); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor restriction)');
});

test('perfgate doctor\'s sandbox line', () => {
  assert.deepEqual(sandboxCheck({ mode: 'auto', probe: AVAILABLE }), { check: 'sandbox', state: 'bubblewrap', ok: true,
    effect: 'builds, servers and sysbench run in the sandbox: they see no other process of this machine and write only their own folders' });
  assert.deepEqual(sandboxCheck({ mode: 'auto', probe: MISSING }), { check: 'sandbox', state: 'unavailable: bwrap is not installed (Debian package bubblewrap)', ok: false,
    effect: 'perfgate refuses to build or run code of forks and of authors without write access here; install bubblewrap (runner-setup/install)' });
  assert.deepEqual(sandboxCheck({ mode: 'off', probe: MISSING }), { check: 'sandbox', state: 'off (PERFGATE_SANDBOX=off)', ok: false,
    effect: "builds, servers and sysbench of pull requests run outside the sandbox, where they can read the runner's files, its processes and the tokens in their environments" });
});

// The options that follow `flag`, `n` of them.
const after = (args, flag, n = 2) => { const i = args.indexOf(flag); return i < 0 ? null : args.slice(i + 1, i + 1 + n); };
// The mounts of a bwrap command line, in order: [flag, path].
const mounts = (args) => args.flatMap((a, i) => (['--ro-bind', '--bind', '--dir'].includes(a) ? [[a, args[i + 1]]] : []));

test('the bwrap command line: namespaces, uid 65534, system read-only, only the given folders, parents first', () => {
  const args = bwrapArgs({ command: 'cmake', args: ['-S', '/w/src'], readOnly: ['/w/cache/trees/t/src', '/opt/py', '/usr/local/lib/py'],
    writable: ['/w/cache/trees/t/build', '/w/cache/ccache', '/w/cache/trees/t/src/generated'], cwd: '/w/cache/trees/t/build' });
  for (const flag of ['--die-with-parent', '--new-session', '--unshare-all']) assert.ok(args.includes(flag), flag);
  assert.deepEqual(after(args, '--uid', 3), ['65534', '--gid', '65534']);
  assert.deepEqual(after(args, '--cap-drop', 1), ['ALL']);
  assert.deepEqual(args.slice(args.indexOf('--chdir')), ['--chdir', '/w/cache/trees/t/build', '--', 'cmake', '-S', '/w/src']);
  assert.deepEqual(args.slice(args.indexOf('--tmpfs') - 2, args.indexOf('--tmpfs') + 2), ['--perms', '1777', '--tmpfs', '/tmp']);
  for (const folder of ['/usr', '/etc', '/bin', '/lib', '/sys']) assert.equal(args[args.indexOf(folder) - 1], '--ro-bind-try', folder);
  assert.ok(!args.includes('/root') && !args.includes('/home') && !args.includes('/'), 'no home and no root folder');
  // A folder inside a mounted one is mounted after it, or the outer mount would hide it.
  assert.deepEqual(mounts(args), [
    ['--dir', '/opt'], ['--ro-bind', '/opt/py'],
    ['--dir', '/w'], ['--dir', '/w/cache'], ['--bind', '/w/cache/ccache'],
    ['--ro-bind', '/usr/local/lib/py'], // inside /usr, which is there already
    ['--dir', '/w/cache/trees'], ['--dir', '/w/cache/trees/t'], ['--ro-bind', '/w/cache/trees/t/src'], ['--bind', '/w/cache/trees/t/build'],
    ['--bind', '/w/cache/trees/t/src/generated'],
  ]);
  const perms = args.flatMap((a, i) => (a === '--dir' ? [args[i - 1]] : []));
  assert.deepEqual([...new Set(perms)], ['0755'], 'the folders leading to a mount are traversable');
});

test('as root: namespaces made by root, then setpriv drops to uid 65534 with no capabilities for good', () => {
  const args = bwrapArgs({ command: '/usr/bin/python3', args: ['-m', 'x'], writable: ['/run1'], cwd: '/run1', infoFd: 3, dropRoot: '/usr/bin/setpriv' });
  assert.ok(!args.includes('--unshare-all') && !args.includes('--uid'), 'no user namespace: root in one would own every root-owned file');
  for (const flag of ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent']) assert.ok(args.includes(flag), flag);
  assert.deepEqual(after(args, '--info-fd', 1), ['3']);
  assert.deepEqual(args.slice(args.indexOf('--chdir')), ['--chdir', '/run1', '--', '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
    '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--', '/usr/bin/python3', '-m', 'x']);
});

test('on this host the sandbox works, and a process in it sees only what it was given', (t) => {
  const probe = probeSandbox();
  assert.ok(probe.available, `the sandbox does not work here (${probe.why}): run make setup (bubblewrap)`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-sandbox-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const [given, readable, hidden] = ['given', 'readable', 'hidden'].map((name) => path.join(root, name));
  for (const dir of [given, readable, hidden]) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(readable, 'r.txt'), 'r');
  fs.writeFileSync(path.join(hidden, 'secret.txt'), 'secret');
  const script = [
    'id -u', 'ls /proc | grep "^[0-9]" | sort -n | tail -1', 'echo w > given/w.txt && echo wrote-given',
    'echo w > readable/w.txt 2>/dev/null || echo readable-is-read-only', 'cat readable/r.txt; echo',
    'cat hidden/secret.txt 2>/dev/null || echo hidden-is-hidden',
    "echo network: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ')",
  ].join('; ');
  const r = runProcessSync('bash', ['-c', `cd ${root} && { ${script}; }`], { sandbox: { readOnly: [readable], writable: [given], cwd: root } });
  assert.equal(r.status, 0, r.stderr);
  const [uid, highestPid, ...rest] = r.stdout.trim().split('\n');
  assert.equal(uid, '65534');
  assert.ok(Number(highestPid) < 20, `a PID namespace of its own: pid ${highestPid} in sight`);
  assert.deepEqual(rest, ['wrote-given', 'readable-is-read-only', 'r', 'hidden-is-hidden', 'network: lo']);
  assert.equal(fs.readFileSync(path.join(given, 'w.txt'), 'utf8'), 'w\n');
});

// Where bwrap cannot make its namespaces (user namespaces disabled, an AppArmor restriction).
function brokenBwrapPath(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-nobwrap-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n', { mode: 0o755 });
  return { dir, env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } };
}

const WHY = 'bwrap does not work here (exit 1: bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor restriction)';

test('perfgate doctor says when the sandbox does not work here', (t) => {
  const { env } = brokenBwrapPath(t);
  const r = spawnSync(process.execPath, [PERFGATE, 'doctor'], { encoding: 'utf8', env, timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^  WARN  sandbox +unavailable: ${WHY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: perfgate refuses to build or run code of forks and of authors without write access here; install bubblewrap \\(runner-setup/install\\)$`, 'm'));
  const json = JSON.parse(spawnSync(process.execPath, [PERFGATE, 'doctor', '--json'], { encoding: 'utf8', env, timeout: 60000 }).stdout);
  assert.deepEqual([json.sandbox.ok, json.sandbox.state], [false, `unavailable: ${WHY}`]);
});

test('without a working sandbox an untrusted head is refused before anything is built or run', (t) => {
  const { dir, env } = brokenBwrapPath(t);
  const out = path.join(dir, 'run');
  for (const args of [['compare', '--base', '/nonexistent/base', '--head', '/nonexistent/head', '--out', out, '--untrusted-head'],
    ['build', '--source', '/nonexistent/fork', '--ref', 'main', '--untrusted']]) {
    const r = spawnSync(process.execPath, [PERFGATE, ...args], { encoding: 'utf8', env, timeout: 60000 });
    assert.equal(r.status, 4, r.stderr);
    assert.equal(r.stderr, `perfgate ${args[0]}: refusing to build or run untrusted code without the sandbox: ${WHY}. Install bubblewrap (runner-setup/install), or, as this runner's owner, set PERFGATE_SANDBOX=off in /etc/perfgate/runner.env to run it unsandboxed\n`);
  }
  assert.ok(!fs.existsSync(out), 'no run folder');
  // Trusted code still runs there, outside the sandbox (here: fails on the missing basedir).
  const trusted = spawnSync(process.execPath, [PERFGATE, 'compare', '--base', '/nonexistent/base', '--head', '/nonexistent/head', '--out', out], { encoding: 'utf8', env, timeout: 60000 });
  assert.equal(trusted.status, 2);
  assert.match(trusted.stderr, /^perfgate compare: --base '\/nonexistent\/base'/);
});
