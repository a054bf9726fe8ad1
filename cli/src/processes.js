'use strict';
// The one way perfgate starts a process. Every child:
//   - gets an allow-listed environment (childEnvironment): a pull request's CMake files,
//     its server and the load generator run on runners that hold tokens, and must see none;
//   - runs in its own process group, so that it and whatever it started can be stopped;
//   - dies with perfgate: a parent-death signal (SIGKILL) set by util-linux's setpriv before
//     it execs the command, or bwrap's --die-with-parent in the sandbox, so that a perfgate
//     that is killed outright (SIGKILL, the OOM killer) leaves no build, harness or server;
//   - runs in the sandbox (sandbox.js) when asked to: where pull-request code runs;
//   - is registered until it exits, so that a cancelled run (SIGINT, SIGTERM: a cancelled CI
//     job) stops every child before perfgate cleans up and exits.
const fs = require('node:fs');
const { spawn, spawnSync } = require('node:child_process');
const which = require('which');
const { bwrapArgs, decideSandbox, sandboxMode, probeFailure, SANDBOX_ID } = require('./sandbox');

// Variables a build, the harness, mysqld and sysbench may need. Everything else is dropped:
// GITHUB_TOKEN, ACTIONS_*, RUNNER_*, cloud credentials, and whatever the job's author set.
const ALLOWED = [
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|TZ|TMPDIR|TERM|PWD)$/,
  /^LC_[A-Z]+$/,
  /^(CC|CXX|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|MAKEFLAGS|CMAKE_GENERATOR|NINJA_STATUS|LD_LIBRARY_PATH)$/,
  /^CCACHE_[A-Z_]+$/,
  /^PERFGATE_[A-Z0-9_]+$/,
  /^(PYTHONPATH|PYTHONDONTWRITEBYTECODE|PYTHONUNBUFFERED)$/,
];
// Even an allowed name is dropped when it looks like it holds a credential.
const SECRET_LIKE = /TOKEN|SECRET|PASSW|KEY|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i;

function isPassedOn(name) {
  return ALLOWED.some((re) => re.test(name)) && !SECRET_LIKE.test(name);
}

/** The environment a child of perfgate sees: the allowed variables of `env`, plus `extra`. */
function childEnvironment(env, extra = {}) {
  const out = {};
  for (const [name, value] of Object.entries(env || {})) {
    if (value !== undefined && isPassedOn(name)) out[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined || value === null) delete out[name];
    else out[name] = String(value);
  }
  return out;
}

// --- cancellation ---------------------------------------------------------------------------

const live = new Set();
let cancelledBy = null;
const KILL_AFTER_MS = 60000;

class Cancelled extends Error {
  constructor(signal) {
    super(`cancelled by ${signal}`);
    this.name = 'Cancelled';
    this.signal = signal;
  }
}

/** The signal that cancelled this run, or null. */
function cancellation() {
  return cancelledBy;
}

function throwIfCancelled() {
  if (cancelledBy) throw new Cancelled(cancelledBy);
}

// The command's pid in a sandbox, as seen from here: the one child of the sandbox's init.
function sandboxedCommand(initPid) {
  try {
    const pid = Number(fs.readFileSync(`/proc/${initPid}/task/${initPid}/children`, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try { child.kill(signal); } catch { /* already gone */ }
  }
}

/**
 * Stops every live child: SIGTERM to each (to the leader alone for children that stop their
 * own group in order, e.g. the harness shutting its servers down; to the whole group
 * otherwise), then SIGKILL to the groups of those still running after KILL_AFTER_MS.
 */
function cancel(signal) {
  if (cancelledBy) return;
  cancelledBy = signal;
  for (const child of live) {
    // In the sandbox the command is not the child: bwrap would die of the SIGTERM and take the
    // command with it before it could stop anything.
    const leader = child.perfgateSandboxInit !== undefined ? sandboxedCommand(child.perfgateSandboxInit) : child.pid;
    if (child.perfgateStopsItsGroup && leader) {
      try { process.kill(leader, 'SIGTERM'); } catch { /* gone */ }
    } else {
      signalGroup(child, 'SIGTERM');
    }
  }
  const timer = setTimeout(() => { for (const child of live) signalGroup(child, 'SIGKILL'); }, KILL_AFTER_MS);
  timer.unref();
}

/** Routes SIGINT and SIGTERM to cancel(); returns a function that removes the handlers. */
function cancelOnSignals() {
  const handlers = {};
  for (const signal of ['SIGINT', 'SIGTERM']) {
    handlers[signal] = () => cancel(signal);
    process.on(signal, handlers[signal]);
  }
  return () => { for (const [signal, h] of Object.entries(handlers)) process.removeListener(signal, h); };
}

const EXIT_ON_SIGNAL = { SIGINT: 130, SIGTERM: 143 };

// --- how a child is started ------------------------------------------------------------------

const onPath = (command, env) => which.sync(command, { path: env.PATH || '', nothrow: true });

let setprivFound;
// util-linux's setpriv (Essential on Debian) sets the parent-death signal, then execs the
// command: Node cannot call prctl itself.
function setprivPath() {
  if (setprivFound === undefined) setprivFound = which.sync('setpriv', { nothrow: true });
  return setprivFound;
}

// When perfgate runs as root the sandbox runs as uid 65534 (a root mapped into a user
// namespace would still own every root-owned file it can see): the folders it writes are
// handed over to that uid first.
function handOver(folders) {
  if (!folders.length || process.getuid() !== 0) return;
  const r = runProcessSync('find', [...folders, '!', '-uid', String(SANDBOX_ID), '-exec', 'chown', '-h', `${SANDBOX_ID}:${SANDBOX_ID}`, '{}', '+']);
  if (r.error || (r.status !== 0 && !onlyVanished(r.stderr))) {
    throw new Error(`cannot hand ${folders.join(', ')} over to uid ${SANDBOX_ID} for the sandbox: ${r.error ? r.error.message : r.stderr.trim()}`);
  }
}

/**
 * Whether find's and chown's complaints are all about files that went away while they walked:
 * a folder shared with other builds (ccache's lock and temporary files) changes under them, and
 * a file that is gone needs no owner. Anything else (a permission, a read-only file system) is
 * a failure.
 */
function onlyVanished(stderr) {
  const lines = String(stderr || '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length > 0 && lines.every((l) => /: No such file or directory$/.test(l));
}

/**
 * What a child is started as: the command line, its environment and whether bwrap reports the
 * first process's pid on descriptor 3.
 * @param sandbox    null, or {readOnly, writable, cwd} (sandbox.js bwrapArgs)
 * @param reportPid  in the sandbox: have bwrap say where its init is, so that a SIGTERM can
 *                   reach the command (bwrap itself would die of it and kill the command)
 */
function launchPlan(command, args, { env, extraEnv, sandbox = null, reportPid = false }) {
  const childEnv = childEnvironment(env, extraEnv);
  // A command that is not there starts as it is, and fails as a missing command does (ENOENT).
  if (!onPath(command, childEnv)) return { command, args, env: childEnv, infoFd: null };
  if (sandbox) {
    const writable = sandbox.writable || [];
    for (const folder of writable) fs.mkdirSync(folder, { recursive: true });
    handOver(writable);
    const infoFd = reportPid ? 3 : null;
    const dropRoot = process.getuid() === 0 ? (setprivPath() || 'setpriv') : null;
    return {
      command: 'bwrap',
      args: bwrapArgs({ command, args, readOnly: sandbox.readOnly, writable, cwd: sandbox.cwd, infoFd, dropRoot }),
      env: childEnvironment(childEnv, { TMPDIR: '/tmp', PWD: null }),
      infoFd,
    };
  }
  const setpriv = setprivPath();
  if (!setpriv) return { command, args, env: childEnv, infoFd: null };
  return { command: setpriv, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args], env: childEnv, infoFd: null };
}

let probed = null;
/** Whether the sandbox works on this host: {available, why}. Asked once per process. */
function probeSandbox() {
  if (!probed) {
    const r = runProcessSync('true', [], { sandbox: { cwd: '/' }, timeoutMs: 30000 });
    probed = !r.error && r.status === 0
      ? { available: true, why: null }
      : { available: false, why: probeFailure({ spawnError: r.error, status: r.status, stderr: r.stderr }) };
  }
  return probed;
}

/**
 * Whether this run's builds, servers and sysbench go into the sandbox (sandbox.js
 * decideSandbox), from the runner's setting PERFGATE_SANDBOX and this host.
 * @returns {sandboxed, note}; throws UsageError (exit 4) for untrusted code without a sandbox
 */
function sandboxFor({ untrusted = false, env = process.env } = {}) {
  return decideSandbox({ mode: sandboxMode(env), untrusted, probe: probeSandbox });
}

// --- starting processes ---------------------------------------------------------------------

/**
 * Starts `command` in its own process group with the child environment.
 * @param options  {env, extraEnv, cwd, stdio, stopsItsGroup, sandbox}: `stopsItsGroup` children
 *                 get SIGTERM alone on cancellation and stop what they started themselves;
 *                 `sandbox` ({readOnly, writable, cwd}) runs the command in the sandbox, in
 *                 sandbox.cwd (`cwd` is for commands outside it)
 * @returns the ChildProcess (registered until it exits)
 */
function startProcess(command, args, { env = process.env, extraEnv = {}, cwd, stdio = ['ignore', 'pipe', 'pipe'], stopsItsGroup = false, sandbox = null } = {}) {
  throwIfCancelled();
  const plan = launchPlan(command, args, { env, extraEnv, sandbox, reportPid: stopsItsGroup });
  const child = spawn(plan.command, plan.args, { cwd: sandbox ? undefined : cwd, env: plan.env, stdio: plan.infoFd ? [...stdio, 'pipe'] : stdio, detached: true });
  child.perfgateStopsItsGroup = stopsItsGroup;
  if (plan.infoFd && child.stdio[plan.infoFd]) {
    let info = '';
    child.stdio[plan.infoFd].on('data', (chunk) => {
      info += chunk;
      try { child.perfgateSandboxInit = JSON.parse(info)['child-pid']; } catch { /* not all of it yet */ }
    });
  }
  if (child.pid !== undefined) {
    live.add(child);
    child.once('exit', () => live.delete(child));
  }
  child.once('error', () => live.delete(child));
  return child;
}

/**
 * Runs `command` to the end. Lines of its stdout and stderr go to onLine(line, stream, reply);
 * with `replies`, its stdin is a pipe and reply(text) writes one line to it (else stdin is
 * empty).
 * @returns Promise<{code, signal, spawnError}> — never rejects for a failing command
 */
function runProcess(command, args, { onLine = null, replies = false, ...options } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = startProcess(command, args, replies ? { ...options, stdio: ['pipe', 'pipe', 'pipe'] } : options);
    } catch (err) {
      resolve({ code: null, signal: null, spawnError: err });
      return;
    }
    // A child that exits before reading a reply closes the pipe: the write fails, and the
    // exit itself is what the caller hears about.
    if (child.stdin) child.stdin.on('error', () => {});
    const reply = (text) => {
      if (child.stdin && child.stdin.writable) child.stdin.write(`${text}\n`);
    };
    const pending = { stdout: '', stderr: '' };
    const take = (stream) => (chunk) => {
      if (!onLine) return;
      pending[stream] += chunk.toString('utf8');
      const lines = pending[stream].split('\n');
      pending[stream] = lines.pop();
      for (const line of lines) onLine(line, stream, reply);
    };
    if (child.stdout) child.stdout.on('data', take('stdout'));
    if (child.stderr) child.stderr.on('data', take('stderr'));
    child.on('error', (err) => resolve({ code: null, signal: null, spawnError: err }));
    // 'close' waits for the pipes to drain, so every line has been seen.
    child.on('close', (code, signal) => {
      if (onLine) for (const stream of ['stdout', 'stderr']) if (pending[stream]) onLine(pending[stream], stream, reply);
      resolve({ code, signal, spawnError: null });
    });
  });
}

/** A short command run to the end synchronously (git plumbing, version checks). */
function runProcessSync(command, args, { env = process.env, extraEnv = {}, cwd, timeoutMs = 120000, input, sandbox = null } = {}) {
  const plan = launchPlan(command, args, { env, extraEnv, sandbox });
  return spawnSync(plan.command, plan.args, { cwd: sandbox ? undefined : cwd, env: plan.env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, input });
}

module.exports = {
  childEnvironment, isPassedOn, onPath, startProcess, runProcess, runProcessSync, sandboxFor, probeSandbox,
  cancel, cancelOnSignals, cancellation, throwIfCancelled, Cancelled, EXIT_ON_SIGNAL, onlyVanished,
};
