'use strict';
// Runs the Python harness (`python3 -m perfgate_harness run`) on one plan file. Its stdout is
// JSON lines of progress, handed to `onEvent`; its stderr is for people and passed through.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const HARNESS_DIR = path.join(REPO_ROOT, 'harness');

// Exit codes of `perfgate_harness run` (its interface, not perfgate's own).
const HARNESS_EXIT = Object.freeze({ ok: 0, badPlan: 2, runError: 4 });

function harnessEnv(env) {
  const existing = env.PYTHONPATH ? `${path.delimiter}${env.PYTHONPATH}` : '';
  return { ...env, PYTHONPATH: `${HARNESS_DIR}${existing}` };
}

/**
 * @returns Promise<{code, signal}> once the harness has exited
 */
function runHarness({ planFile, outDir, resultsName = 'results.json', reuseData = false, env = process.env, onEvent = () => {}, stderr = process.stderr }) {
  const python = env.PERFGATE_PYTHON || 'python3';
  const args = ['-m', 'perfgate_harness', 'run', '--plan', planFile, '--out', outDir, '--results', resultsName];
  if (reuseData) args.push('--reuse-data');
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { env: harnessEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', (err) => reject(new Error(`cannot start the harness (${python}): ${err.message}`)));
    child.stderr.on('data', (chunk) => stderr.write(chunk));
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let event = null;
      try {
        event = JSON.parse(line);
      } catch {
        // Not a progress event: show it rather than lose it.
        stderr.write(`${line}\n`);
        return;
      }
      onEvent(event);
    });
    // 'close' waits for stdio to drain, so every progress line has been seen.
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

module.exports = { runHarness, HARNESS_EXIT, HARNESS_DIR, REPO_ROOT };
