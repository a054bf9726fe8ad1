'use strict';
// The sandbox that pull-request code runs in: bubblewrap (Debian's `bubblewrap` package).
//
// A runner holds tokens: the job's environment (INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN),
// the runner's files (.credentials, _diag/, the GITHUB_ENV and GITHUB_OUTPUT files), the fork's
// checkout (actions/checkout keeps the token in .git/config). Hiding them from a child's
// environment is not enough: any process of the same uid reads them from /proc/<pid>/environ
// of its ancestors. So the build of a side, its servers and sysbench run in namespaces of their
// own: uid 65534 (a real uid of its own when perfgate runs as root; in a user namespace of its
// own otherwise, where an unprivileged user can map no other uid), a PID namespace (no other
// process of the machine is visible, and all of them die with it), a mount namespace that holds
// the system folders read-only and only the folders of this build or run, and an empty network
// namespace (loopback only).
//
// Pure: the setting, the decision and the bwrap command line. processes.js starts it.
const path = require('node:path');
const { UsageError, EXIT } = require('@perfgate/core');
const { RUNNER_ENV_FILE } = require('./runner-settings');

// The uid and gid inside the sandbox, and outside it when perfgate runs as root: nobody/nogroup.
const SANDBOX_ID = 65534;

// Read-only: what every build and server needs from the system. Missing ones are skipped
// (merged-/usr systems have /bin, /lib as links into /usr; --ro-bind follows them).
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/sys'];
// Files the harness's machine fingerprint looks at (container or not), so that it says inside
// what it says outside.
const SYSTEM_FILES = ['/.dockerenv', '/run/.containerenv'];

const SETTING = 'PERFGATE_SANDBOX';
const MODES = { auto: 'auto', off: 'off' };

/** The runner's setting: auto (the default) or off; anything else is bad input. */
function sandboxMode(env) {
  const value = env[SETTING];
  if (value === undefined || value === '') return MODES.auto;
  if (!Object.hasOwn(MODES, value)) {
    throw new UsageError(`${SETTING} '${value}': expected auto (the default: code of a pull request runs only in the sandbox) or off (the runner's owner lets it run without one)`);
  }
  return value;
}

/**
 * Whether this run's processes go into the sandbox. Everything runs in it when it works, so
 * that a build tree, a compiler cache or a prefix written by pull-request code is never used
 * outside it later; code nobody trusts never runs without it, unless the runner's owner said so.
 * @param mode       sandboxMode(env)
 * @param untrusted  whether a side's code comes from someone without write access (a fork,
 *                   a pull request a maintainer approved)
 * @param probe      () => {available, why}: whether bwrap works on this host, and why not
 * @returns {sandboxed, note}: note is a line to show, or null. Throws UsageError (exit 4) to
 *          refuse untrusted code on a runner without the sandbox.
 */
function decideSandbox({ mode, untrusted, probe }) {
  if (mode === MODES.off) {
    return { sandboxed: false, note: untrusted ? `${SETTING}=off: this runner's owner lets untrusted code run without the sandbox, where it can read the runner's files and processes` : null };
  }
  const found = probe();
  if (found.available) return { sandboxed: true, note: null };
  if (untrusted) {
    throw new UsageError(`refusing to build or run untrusted code without the sandbox: ${found.why}. `
      + `Install bubblewrap (runner-setup/install), or, as this runner's owner, set ${SETTING}=off in ${RUNNER_ENV_FILE} to run it unsandboxed`, EXIT.error);
  }
  return { sandboxed: false, note: null };
}

/** The sandbox as `perfgate doctor` reports it: a check like those of core's diagnose(). */
function sandboxCheck({ mode, probe }) {
  if (mode === MODES.off) {
    return { check: 'sandbox', state: `off (${SETTING}=off)`, ok: false,
      effect: "builds, servers and sysbench of pull requests run outside the sandbox, where they can read the runner's files, its processes and the tokens in their environments" };
  }
  const found = probe();
  if (found.available) {
    return { check: 'sandbox', state: 'bubblewrap', ok: true,
      effect: 'builds, servers and sysbench run in the sandbox: they see no other process of this machine and write only their own folders' };
  }
  return { check: 'sandbox', state: `unavailable: ${found.why}`, ok: false,
    effect: 'perfgate refuses to build or run code of forks and of authors without write access here; install bubblewrap (runner-setup/install)' };
}

/** Why the probe failed, in one line, from what bwrap said. */
function probeFailure({ spawnError, status, stderr }) {
  if (spawnError && spawnError.code === 'ENOENT') return 'bwrap is not installed (Debian package bubblewrap)';
  if (spawnError) return `bwrap could not be started (${spawnError.code || spawnError.message})`;
  const said = String(stderr || '').trim().split('\n').filter(Boolean).pop();
  return `bwrap does not work here (exit ${status}${said ? `: ${said}` : ''}); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor restriction)`;
}

const depth = (p) => p.split(path.sep).filter(Boolean).length;

/**
 * The bwrap arguments that run `command args` in the sandbox.
 * @param readOnly  folders (or files) visible read-only at their own paths
 * @param writable  folders writable at their own paths (they must exist)
 * @param cwd       the working directory inside (one of the folders above, or /)
 * @param infoFd    a descriptor bwrap writes {"child-pid": N} to: the pid, as seen from outside,
 *                  of the namespace's first process (bwrap's init, whose one child is the
 *                  command; everything inside dies with it)
 * @param dropRoot  perfgate runs as root: bwrap sets the namespaces up as root (it can read
 *                  every folder it shows), and `dropRoot` (setpriv's path) then becomes uid
 *                  and gid 65534 with no capabilities and no way back (no_new_privs) before it
 *                  execs the command. Otherwise bwrap runs unprivileged in a user namespace of
 *                  its own, where the command is uid 65534.
 */
function bwrapArgs({ command, args = [], readOnly = [], writable = [], cwd = '/', infoFd = null, dropRoot = null }) {
  const id = String(SANDBOX_ID);
  const out = dropRoot
    ? ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try']
    : ['--die-with-parent', '--new-session', '--unshare-all', '--uid', id, '--gid', id, '--cap-drop', 'ALL'];
  if (infoFd !== null) out.push('--info-fd', String(infoFd));
  for (const folder of SYSTEM_FOLDERS) out.push('--ro-bind-try', folder, folder);
  for (const file of SYSTEM_FILES) out.push('--ro-bind-try', file, file);
  // /tmp as a machine has it (anyone may create files there, only their owner remove them).
  out.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp');
  // Parents before children: a folder mounted later hides what was mounted below it.
  const binds = [
    ...readOnly.map((p) => ({ p: path.resolve(p), flag: '--ro-bind' })),
    ...writable.map((p) => ({ p: path.resolve(p), flag: '--bind' })),
  ].sort((a, b) => depth(a.p) - depth(b.p));
  const made = new Set(['/', '/tmp']);
  const bound = [...SYSTEM_FOLDERS];
  const inside = (p, folder) => p === folder || p.startsWith(`${folder}/`);
  for (const { p, flag } of binds) {
    // The folders leading to a mount point are made traversable (bwrap would make them 0700,
    // closed to uid 65534 when bwrap runs as root); those inside a mounted folder exist there.
    for (let i = 1; i < depth(p); i++) {
      const parent = `/${p.split('/').filter(Boolean).slice(0, i).join('/')}`;
      if (made.has(parent) || bound.some((folder) => inside(parent, folder))) continue;
      made.add(parent);
      out.push('--perms', '0755', '--dir', parent);
    }
    out.push(flag, p, p);
    bound.push(p);
  }
  out.push('--chdir', cwd, '--');
  if (dropRoot) out.push(dropRoot, `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--');
  out.push(command, ...args);
  return out;
}

module.exports = { sandboxMode, decideSandbox, sandboxCheck, probeFailure, bwrapArgs, SANDBOX_ID, SETTING, MODES };
