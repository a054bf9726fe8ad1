'use strict';
// The Python harness (`python3 -m perfgate_harness`), started the one way perfgate starts
// processes. `run` measures a plan: its stdout is JSON lines of progress, handed to onEvent;
// its stderr is for people and passed through. `fingerprint` describes this machine.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runProcess, runProcessSync } = require('./processes');
const { cacheDirFrom } = require('./source-build/build-commit');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const HARNESS_DIR = path.join(REPO_ROOT, 'harness');
// The harness checks plans and results against the shared schemas.
const SCHEMA_DIR = path.join(REPO_ROOT, 'schema');

// Exit codes of `perfgate_harness run` (its interface, not perfgate's own).
const HARNESS_EXIT = Object.freeze({ ok: 0, badPlan: 2, runError: 4 });

// perfgate's tools folder (scripts/install-ci-tools.sh), where the harness finds go-tpc, the
// TPC-C suite's client, when PATH has none: shown to the sandbox read-only when it exists.
function toolsFolders(env) {
  const dir = path.join(cacheDirFrom(env), 'tools', 'bin');
  return fs.existsSync(dir) ? [dir] : [];
}

function python(env) {
  return env.PERFGATE_PYTHON || 'python3';
}

function harnessEnv(env) {
  return { PYTHONPATH: env.PYTHONPATH ? `${HARNESS_DIR}${path.delimiter}${env.PYTHONPATH}` : HARNESS_DIR };
}

// The interpreter's real path and the folders it imports from, asked of the interpreter itself
// outside the sandbox: the sandbox shows those folders read-only and starts the interpreter by
// its real path (a pyenv shim or a venv's link would look for files the sandbox does not show).
const PYTHON_INSTALL = 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, *sys.path]))';

function pythonInstall(env) {
  const r = runProcessSync(python(env), ['-c', PYTHON_INSTALL], { env, extraEnv: harnessEnv(env), timeoutMs: 60000 });
  let paths = null;
  try { paths = r.status === 0 ? JSON.parse(r.stdout) : null; } catch { /* below */ }
  if (!paths || !paths[0]) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout || '').trim().split('\n').pop();
    return { error: new Error(`${python(env)} cannot say where it is installed: ${why}`) };
  }
  const folders = [...new Set(paths.filter((p) => path.isAbsolute(p) && fs.existsSync(p)))];
  return { executable: paths[0], folders };
}

// `perfgate_harness explain`'s arguments: the rows, why they were chosen, the suite's budget.
function explainArgs({ rows, asked, budget }) {
  return ['--rows', rows.join(','), '--asked', asked, '--budget-rows', String(budget.rows), '--seconds-per-row', String(budget.seconds_per_row)];
}

/**
 * @param explain    {rows, asked, budget}: explain these rows of the run in outDir (its loaded
 *                   datadirs kept) into explain.json, instead of measuring the plan
 * @param sandboxed  run the harness, its servers and sysbench in the sandbox, which shows the
 *                   harness, the interpreter and `basedirs` read-only and `outDir` writable
 * @param answer     (question event) -> the answer object: the harness asks (events ending in
 *                   `?`, such as `more_rounds?` when the plan has measure.rounds_on_request) and
 *                   waits for one line on its stdin; without `answer` its stdin is empty and
 *                   every question gets the harness's own default (no more rounds)
 * @returns Promise<{code, signal, spawnError}> once the harness has exited
 */
async function runHarness({ planFile, outDir, resultsName = 'results.json', reuseData = false, explain = null, env = process.env, onEvent = () => {}, answer = null, stderr = process.stderr, sandboxed = false, basedirs = [] }) {
  const args = explain
    ? ['-m', 'perfgate_harness', 'explain', '--plan', planFile, '--out', outDir, ...explainArgs(explain)]
    : ['-m', 'perfgate_harness', 'run', '--plan', planFile, '--out', outDir, '--results', resultsName];
  if (reuseData && !explain) args.push('--reuse-data');
  let command = python(env);
  let sandbox = null;
  if (sandboxed) {
    const install = pythonInstall(env);
    if (install.error) return { code: null, signal: null, spawnError: install.error };
    command = install.executable;
    sandbox = { readOnly: [HARNESS_DIR, SCHEMA_DIR, ...install.folders, ...toolsFolders(env), ...basedirs], writable: [outDir], cwd: outDir };
  }
  return runProcess(command, args, {
    env,
    extraEnv: harnessEnv(env),
    sandbox,
    // On cancellation the harness gets SIGTERM alone: it stops sysbench and shuts its servers
    // down itself, which a SIGTERM to every process of its group would race with.
    stopsItsGroup: true,
    replies: Boolean(answer),
    onLine: (line, stream, reply) => {
      if (stream === 'stderr') { stderr.write(`${line}\n`); return; }
      let event = null;
      try {
        event = JSON.parse(line);
      } catch {
        stderr.write(`${line}\n`); // not a progress event: show it rather than lose it
        return;
      }
      if (answer && typeof event.event === 'string' && event.event.endsWith('?')) {
        reply(JSON.stringify(answer(event)));
        return;
      }
      onEvent(event);
    },
  });
}

/**
 * This machine's fingerprint from the harness; `fallback: true` returns the bare minimum the
 * results schema needs when the harness cannot say (an error run folder must still be written).
 * @returns {fingerprint} or {error}
 */
function machineFingerprint({ env = process.env, dataDir = null, fallback = false } = {}) {
  const args = ['-m', 'perfgate_harness', 'fingerprint'];
  if (dataDir) args.push('--data-dir', dataDir);
  const r = runProcessSync(python(env), args, { env, extraEnv: harnessEnv(env), timeoutMs: 60000 });
  if (!r.error && r.status === 0) {
    try { return { fingerprint: JSON.parse(r.stdout) }; } catch { /* fall through */ }
  }
  if (fallback) {
    return { fingerprint: { cpu_model: (os.cpus()[0] || {}).model || 'unknown', cores: os.cpus().length, memory_bytes: os.totalmem(), kernel: os.release() } };
  }
  const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n').pop();
  return { error: `cannot read the machine fingerprint (${python(env)} ${args.join(' ')}): ${why}` };
}

module.exports = { runHarness, machineFingerprint, toolsFolders, HARNESS_EXIT, HARNESS_DIR, REPO_ROOT };
