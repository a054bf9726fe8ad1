'use strict';
// Change points along the main branch: the history's series, one value per main commit, sent
// to the adapter harness/perfgate_harness/change_points.py (Apache Otava's E-Divisive means)
// as perfgate.change-points/v1 on stdin, and read back with the change points it found.
const { execFile } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');

const HARNESS_DIR = path.join(__dirname, '../../../harness');
// Where scripts/install-deps.sh puts Otava's own virtual environment.
const DEFAULT_PYTHON = path.join(os.homedir(), '.cache/perfgate/tools/otava/bin/python');
// Otava's defaults for the Hunter paper's split-and-merge: p ≤ 0.001, windows of 50 points.
const DEFAULT_METHOD = Object.freeze({ max_pvalue: 0.001, min_magnitude: 0, window: 50 });
const TIMEOUT_MS = 120_000;

const geometricMean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

/**
 * One point per main commit, in main-branch order, from store.mainSeries points (which give
 * every side of every run on that commit): their geometric mean.
 */
function commitSeries(points) {
  const bySeq = new Map();
  for (const p of points) {
    if (!bySeq.has(p.seq)) bySeq.set(p.seq, { id: p.sha, values: [] });
    bySeq.get(p.seq).values.push(p.value);
  }
  return [...bySeq.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => ({ id: c.id, value: geometricMean(c.values) }));
}

/**
 * detectChangePoints(series, {python, method, timeoutMs}) -> perfgate.change-points/v1 with change_points
 *   series  [{key, points: [{id, value}]}]
 *   python  the interpreter that has Apache Otava (PERFGATE_CHANGE_POINT_PYTHON)
 * Rejects with one line naming the interpreter and what to install when Otava is missing.
 */
async function detectChangePoints(series, { python = DEFAULT_PYTHON, method = DEFAULT_METHOD, timeoutMs = TIMEOUT_MS } = {}) {
  const request = core.assertValid('change-points', { schema: 'perfgate.change-points/v1', method: { ...method }, series },
    'the change-points request');
  // Only what Python needs: the bot's own environment holds its private key and secrets.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH: HARNESS_DIR, PYTHONDONTWRITEBYTECODE: '1' };
  return new Promise((resolve, reject) => {
    const child = execFile(python, ['-m', 'perfgate_harness.change_points'], { env, cwd: HARNESS_DIR, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const why = err.code === 'ENOENT'
            ? `${python} does not exist: run scripts/install-deps.sh (Apache Otava in a virtual environment of its own) or set PERFGATE_CHANGE_POINT_PYTHON`
            : (String(stderr).trim().split('\n').at(-1) || err.message);
          reject(new Error(`change points: ${why}`));
          return;
        }
        try {
          resolve(core.assertValid('change-points', JSON.parse(stdout), 'the change-points answer'));
        } catch (parseError) {
          reject(new Error(`change points: the adapter's answer is unusable: ${parseError.message}`));
        }
      });
    child.stdin.end(JSON.stringify(request));
  });
}

module.exports = { detectChangePoints, commitSeries, DEFAULT_CHANGE_POINT_PYTHON: DEFAULT_PYTHON, DEFAULT_CHANGE_POINT_METHOD: DEFAULT_METHOD };
