'use strict';
// What went wrong in a build, in terms a pull-request author can act on. Pure.

// The steps of a build, in order; a failure names the one it happened in.
const STEPS = Object.freeze({
  source: 'check the source tree',
  ref: 'resolve the ref',
  worktree: 'check out the commit',
  configure: 'configure (cmake)',
  compile: 'compile (ninja)',
  install: 'install',
  verify: 'verify the installed prefix',
  cache: 'store the prefix in the cache',
});

const DISK_FULL = /No space left on device|ENOSPC|Disk quota exceeded|EDQUOT/;
// Compilers and ccache do not always say why they could not write an object; with less than
// this left on the cache's filesystem after a failed step, the full disk is the likely cause.
const LOW_DISK_BYTES = 64 * 1024 * 1024;

function formatBytes(n) {
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KiB`;
  return `${Math.round(n / (1024 * 1024))} MiB`;
}

class BuildError extends Error {
  // step: a key of STEPS; reason: short machine-readable cause; logTail: last lines of the
  // step's output (may be empty); logFile: where the full output is; target: the first
  // failing ninja target, when known.
  constructor({ step, reason, message, logTail = '', logFile = null, target = null }) {
    super(message);
    this.name = 'BuildError';
    this.step = step;
    this.reason = reason;
    this.logTail = logTail;
    this.logFile = logFile;
    this.target = target;
    this.commit = null; // set once the ref is resolved
  }

  toJSON() {
    return { step: this.step, stepName: STEPS[this.step], reason: this.reason, message: this.message, commit: this.commit,
      target: this.target, logFile: this.logFile, logTail: this.logTail };
  }
}

function tailLines(text, count) {
  const lines = String(text || '').replace(/\s+$/, '').split('\n');
  return lines.slice(-count).join('\n');
}

// The first `FAILED: <output>` ninja reports, and the first compiler/linker error after it.
function firstNinjaFailure(logText) {
  const lines = String(logText || '').split('\n');
  const at = lines.findIndex((l) => l.startsWith('FAILED: '));
  if (at < 0) return null;
  const target = lines[at].slice('FAILED: '.length).trim();
  const error = lines.slice(at + 1).find((l) => /\berror\b|undefined reference|fatal/i.test(l) && !l.startsWith('ninja: ')) || null;
  return { target, error: error && error.trim() };
}

// A failed external command (cmake, ninja, install) → BuildError. `exitCode` null means the
// command could not be started (errno in `spawnError`).
// freeBytes: space left on the cache's filesystem after the failure (null: unknown).
function classifyCommandFailure({ step, command, exitCode, logText, logFile, spawnError = null, freeBytes = null, tail = 40 }) {
  const logTail = tailLines(logText, tail);
  if (DISK_FULL.test(logText || '') || (spawnError && DISK_FULL.test(String(spawnError.code || spawnError.message)))) {
    return new BuildError({ step, reason: 'disk-full', logTail, logFile,
      message: `${STEPS[step]} failed: the disk is full (No space left on device). Free space under the perfgate cache and retry.` });
  }
  if (freeBytes !== null && freeBytes < LOW_DISK_BYTES) {
    return new BuildError({ step, reason: 'disk-full', logTail, logFile,
      message: `${STEPS[step]} failed: the disk is full (${formatBytes(freeBytes)} left). Free space under the perfgate cache and retry.` });
  }
  if (spawnError) {
    return new BuildError({ step, reason: 'tool-missing', logTail, logFile,
      message: `${STEPS[step]} failed: could not run '${command}': ${spawnError.code || spawnError.message}` });
  }
  if (step === 'compile') {
    const failure = firstNinjaFailure(logText);
    if (failure) {
      return new BuildError({ step, reason: 'compile-error', logTail, logFile, target: failure.target,
        message: `${STEPS[step]} failed at ${failure.target}${failure.error ? `: ${failure.error}` : ''}` });
    }
  }
  return new BuildError({ step, reason: `${step}-failed`, logTail, logFile,
    message: `${STEPS[step]} failed: '${command}' exited with ${exitCode}` });
}

// A filesystem error from perfgate's own work (copying, renaming, writing the manifest).
function classifyIoFailure(step, err) {
  if (DISK_FULL.test(String(err && (err.code || err.message)))) {
    return new BuildError({ step, reason: 'disk-full',
      message: `${STEPS[step]} failed: the disk is full (${err.code || err.message}). Free space under the perfgate cache and retry.` });
  }
  return new BuildError({ step, reason: `${step}-failed`, message: `${STEPS[step]} failed: ${err && err.message}` });
}

// Lines for a person: what failed, where the log is, and the tail of it.
function describeFailure(error, { tail = 20 } = {}) {
  const lines = [`build error: ${error.message}`];
  if (error.logFile) lines.push(`full log: ${error.logFile}`);
  if (error.logTail) {
    lines.push(`last lines of the ${STEPS[error.step] || error.step} output:`);
    for (const l of tailLines(error.logTail, tail).split('\n')) lines.push(`  ${l}`);
  }
  return lines;
}

/**
 * The results of a run whose build failed: status "error", no benchmarks, one error naming the
 * side, the build step and the log tail. Judged like any results, it gives an "error" verdict.
 * Pure.
 */
function buildErrorResults({ plan, failure, built, refs, flavor, machine, started, finished }) {
  const { side, error } = failure;
  const server = (s) => {
    const b = built[s];
    return b
      ? { basedir: b.basedir, label: s, commit: b.commit, flavor, version: `built from ${refs[s]}` }
      : { basedir: '', label: s, commit: error.commit || null, flavor, version: `not built: ${refs[s]}` };
  };
  const where = error.target ? ` at ${error.target}` : '';
  return {
    schema: 'perfgate.results/v1',
    plan,
    status: 'error',
    errors: [{
      side,
      benchmark: null,
      step: `build: ${error.step}${where}`,
      message: `the ${side} ref '${refs[side]}' did not build: ${error.message}`,
      log_tail: error.logTail || '',
    }],
    started,
    finished,
    machine,
    sides: Object.fromEntries(Object.keys(refs).map((s) => [s, server(s)])),
    benchmarks: [],
  };
}

module.exports = { buildErrorResults, LOW_DISK_BYTES, STEPS, BuildError, tailLines, firstNinjaFailure, classifyCommandFailure, classifyIoFailure, describeFailure };
