'use strict';
// The one way perfgate starts a process. Every child:
//   - gets an allow-listed environment (childEnvironment): a pull request's CMake files,
//     its server and the load generator run on runners that hold tokens, and must see none;
//   - runs in its own process group, so that it and whatever it started can be stopped;
//   - is registered until it exits, so that a cancelled run (SIGINT, SIGTERM: a cancelled CI
//     job) stops every child before perfgate cleans up and exits.
const { spawn, spawnSync } = require('node:child_process');

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
    if (child.perfgateStopsItsGroup) {
      try { child.kill('SIGTERM'); } catch { /* gone */ }
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

// --- starting processes ---------------------------------------------------------------------

/**
 * Starts `command` in its own process group with the child environment.
 * @param options  {env, extraEnv, cwd, stdio, stopsItsGroup}: `stopsItsGroup` children get
 *                 SIGTERM alone on cancellation and stop what they started themselves
 * @returns the ChildProcess (registered until it exits)
 */
function startProcess(command, args, { env = process.env, extraEnv = {}, cwd, stdio = ['ignore', 'pipe', 'pipe'], stopsItsGroup = false } = {}) {
  throwIfCancelled();
  const child = spawn(command, args, { cwd, env: childEnvironment(env, extraEnv), stdio, detached: true });
  child.perfgateStopsItsGroup = stopsItsGroup;
  if (child.pid !== undefined) {
    live.add(child);
    child.once('exit', () => live.delete(child));
  }
  child.once('error', () => live.delete(child));
  return child;
}

/**
 * Runs `command` to the end. Lines of its stdout and stderr go to onLine(line, stream).
 * @returns Promise<{code, signal, spawnError}> — never rejects for a failing command
 */
function runProcess(command, args, { onLine = null, ...options } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = startProcess(command, args, options);
    } catch (err) {
      resolve({ code: null, signal: null, spawnError: err });
      return;
    }
    const pending = { stdout: '', stderr: '' };
    const take = (stream) => (chunk) => {
      if (!onLine) return;
      pending[stream] += chunk.toString('utf8');
      const lines = pending[stream].split('\n');
      pending[stream] = lines.pop();
      for (const line of lines) onLine(line, stream);
    };
    if (child.stdout) child.stdout.on('data', take('stdout'));
    if (child.stderr) child.stderr.on('data', take('stderr'));
    child.on('error', (err) => resolve({ code: null, signal: null, spawnError: err }));
    // 'close' waits for the pipes to drain, so every line has been seen.
    child.on('close', (code, signal) => {
      if (onLine) for (const stream of ['stdout', 'stderr']) if (pending[stream]) onLine(pending[stream], stream);
      resolve({ code, signal, spawnError: null });
    });
  });
}

/** A short command run to the end synchronously (git plumbing, version checks). */
function runProcessSync(command, args, { env = process.env, extraEnv = {}, cwd, timeoutMs = 120000, input } = {}) {
  return spawnSync(command, args, { cwd, env: childEnvironment(env, extraEnv), encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, input });
}

module.exports = {
  childEnvironment, isPassedOn, startProcess, runProcess, runProcessSync,
  cancel, cancelOnSignals, cancellation, throwIfCancelled, Cancelled, EXIT_ON_SIGNAL,
};
