#!/usr/bin/env node
'use strict';
// Detection benchmark: how often perfgate fails an unchanged server (A/A), and how often it
// catches a head slowed down by a known amount, on the real servers of this machine.
//
// The slowed head is the base build itself whose mysqld is paused (SIGSTOP) for `duty` of
// every `period` ms and resumed (SIGCONT), like cpulimit does: a server that makes no
// progress for a fraction d of the wall-clock time serves about (1 - d) of the queries, so the
// expected rQPS is 1 - d. The duty cycle actually applied is measured and reported (timer
// jitter makes it differ a little from the one asked for). This slows the head without
// adding CPU per query: a regression that waits, like an fsync or a lock, which is the kind
// only QPS shows.
//
// Every comparison runs `perfgate compare` (the same path a pull request takes) on a suite
// written to a temporary copy of thresholds/, then `perfgate judge` on its folder.
// Hold the measuring lock while recording figures:
//   flock /tmp/perfgate-measure.lock node bench/detection.js --base <basedir> ...
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { binomialUpperBound: upperBound } = require('@perfgate/core').statistics;

const REPO = path.resolve(__dirname, '..');
const PERFGATE = path.join(REPO, 'cli', 'bin', 'perfgate.js');

const { values: opt } = parseArgs({
  options: {
    base: { type: 'string' },
    out: { type: 'string', default: path.join(REPO, 'runs', 'detection') },
    'aa-runs': { type: 'string', default: '10' },
    'slow-runs': { type: 'string', default: '5' },
    duty: { type: 'string', default: '0.25' },
    period: { type: 'string', default: '100' },
    benchmarks: { type: 'string', default: 'point-query,points-covered-pk_range=100,read-only_range=10000,update-index_range=100,insert_range=100' },
    seconds: { type: 'string', default: '2' },
    'warmup-seconds': { type: 'string', default: '1' },
    rounds: { type: 'string', default: '4' },
    tables: { type: 'string', default: '4' },
    rows: { type: 'string', default: '2000' },
    warn: { type: 'string', default: '0.97' },
    fail: { type: 'string', default: '0.93' },
    'extra-pairs': { type: 'string', default: '0' },
    minutes: { type: 'string', default: '10' },
    summarize: { type: 'boolean' },
  },
});
if (!opt.base && !opt.summarize) {
  process.stderr.write('detection: --base is missing; expected --base <basedir> (an installed server prefix)\n');
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A suite of the chosen microbenchmarks in a temporary copy of thresholds/.
function writeSuite() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-detect-'));
  fs.cpSync(path.join(REPO, 'thresholds'), dir, { recursive: true });
  const names = opt.benchmarks.split(',').map((s) => s.trim());
  fs.writeFileSync(path.join(dir, 'suites', 'detect.yml'), [
    'suite: detect',
    'description: detection benchmark subset',
    'profile: mariadb',
    `scale: {tables: ${opt.tables}, rows: ${opt.rows}}`,
    `measure: {threads: 2, seconds: ${opt.seconds}, warmup_seconds: ${opt['warmup-seconds']}, rounds: ${opt.rounds}}`,
    `limits:\n  default: {warn: ${opt.warn}, fail: ${opt.fail}}`,
    `budget: {extra_pairs: ${opt['extra-pairs']}, minutes: ${opt.minutes}}`,
    'benchmarks:',
    ...names.map((n) => `  - ${n}`),
    '',
  ].join('\n'));
  return dir;
}

function perfgate(args, logFile) {
  return new Promise((resolve) => {
    const log = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [PERFGATE, ...args], { stdio: ['ignore', log, log] });
    child.on('exit', (code) => { fs.closeSync(log); resolve(code); });
  });
}

// Pauses the head mysqld for duty·period of every period while `running()` holds. Returns the
// measured fraction of time the server was paused while it existed.
async function throttle(runDir, running) {
  const pidFile = path.join(runDir, 'servers', 'head', 'mysqld.pid');
  const period = Number(opt.period);
  const stopMs = Number(opt.duty) * period;
  let paused = 0;
  let alive = 0;
  while (running()) {
    let pid = null;
    try { pid = Number(fs.readFileSync(pidFile, 'utf8').trim()); } catch { /* not started yet */ }
    if (!pid) { await sleep(period); continue; }
    const t0 = process.hrtime.bigint();
    try { process.kill(pid, 'SIGSTOP'); } catch { await sleep(period); continue; }
    await sleep(stopMs);
    try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
    const t1 = process.hrtime.bigint();
    await sleep(period - stopMs);
    const t2 = process.hrtime.bigint();
    paused += Number(t1 - t0) / 1e6;
    alive += Number(t2 - t0) / 1e6;
  }
  return alive ? paused / alive : null;
}

// A server that fails to start is a harness or machine problem, not a verdict: such a
// comparison is run again (up to twice) and the retries are counted in the figures.
async function comparison(kind, k, thresholds) {
  for (let attempt = 1; ; attempt++) {
    const row = await comparisonOnce(kind, k, thresholds, attempt);
    if (attempt >= 3 || !row.side_failure) return row;
  }
}

async function comparisonOnce(kind, k, thresholds, attempt) {
  const dir = path.join(opt.out, `${kind}-${String(k).padStart(2, '0')}${attempt > 1 ? `-try${attempt}` : ''}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'perfgate.log');
  let done = false;
  const throttled = kind === 'slow' ? throttle(dir, () => !done) : Promise.resolve(null);
  const started = Date.now();
  const compareCode = await perfgate(['compare', '--base', opt.base, '--head', opt.base, '--out', dir, '--thresholds', thresholds, '--suite', 'detect'], log);
  done = true;
  const duty = await throttled;
  const judgeCode = await perfgate(['judge', dir, '--thresholds', thresholds, '--suite', 'detect'], log);
  const verdictFile = path.join(dir, 'verdict.json');
  const verdict = fs.existsSync(verdictFile) ? JSON.parse(fs.readFileSync(verdictFile, 'utf8')) : null;
  const row = {
    kind, k, attempt, seconds: Math.round((Date.now() - started) / 1000), compareCode, judgeCode, duty,
    side_failure: Boolean(verdict && verdict.verdict === 'error' && verdict.benchmarks.every((b) => b.verdict === 'error') && /server failed/.test(verdict.headline)),
    verdict: verdict ? verdict.verdict : 'no verdict',
    benchmarks: verdict ? verdict.benchmarks.map((b) => ({ id: b.id, verdict: b.verdict, rqps: b.rqps && b.rqps.estimate, low: b.rqps && b.rqps.low, high: b.rqps && b.rqps.high, pairs: b.rounds.pairs, cpu: b.cpu_per_query && b.cpu_per_query.estimate })) : [],
  };
  fs.appendFileSync(path.join(opt.out, 'detection.jsonl'), JSON.stringify(row) + '\n');
  process.stderr.write(`${kind} ${k}${attempt > 1 ? ` (try ${attempt})` : ''}: ${row.verdict} in ${row.seconds}s${duty !== null ? `, paused ${(duty * 100).toFixed(1)}%` : ''}: ${row.benchmarks.map((b) => `${b.id}=${b.verdict}${b.rqps ? `(${b.rqps.toFixed(3)})` : ''}`).join(' ')}\n`);
  return row;
}

function tally(rows) {
  const all = rows.flatMap((r) => r.benchmarks);
  const counts = {};
  for (const b of all) counts[b.verdict] = (counts[b.verdict] || 0) + 1;
  const rqps = all.map((b) => b.rqps).filter((x) => typeof x === 'number');
  const gmean = rqps.length ? Math.exp(rqps.reduce((s, x) => s + Math.log(x), 0) / rqps.length) : null;
  // Typical width of the 95% interval, as ± around the estimate (half the log-width).
  const halfWidths = all.filter((b) => b.low > 0 && b.high > 0).map((b) => Math.exp(Math.log(b.high / b.low) / 2) - 1).sort((a, b) => a - b);
  const medianHalfWidth = halfWidths.length ? halfWidths[Math.floor(halfWidths.length / 2)] : null;
  const runsWithFail = rows.filter((r) => r.benchmarks.some((b) => b.verdict === 'fail')).length;
  return { verdicts: all.length, counts, gmean, runs: rows.length, runsWithFail, medianHalfWidth };
}

// The last attempt of every comparison recorded in detection.jsonl (to summarize a run that
// was stopped early, or again).
function recordedRows() {
  const byKey = new Map();
  for (const line of fs.readFileSync(path.join(opt.out, 'detection.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line);
    byKey.set(`${row.kind}-${row.k}`, row);
  }
  return [...byKey.values()];
}

async function main() {
  if (opt.summarize) return summarize(recordedRows());
  fs.mkdirSync(opt.out, { recursive: true });
  fs.rmSync(path.join(opt.out, 'detection.jsonl'), { force: true });
  const thresholds = writeSuite();
  const rows = [];
  // Interleave A/A and slowed comparisons so that the machine's drift over the hour hits both.
  const aa = Number(opt['aa-runs']);
  const slow = Number(opt['slow-runs']);
  const order = [];
  for (let i = 0, a = 0, s = 0; a < aa || s < slow; i++) {
    if (a < aa) order.push(['aa', ++a]);
    if (s < slow && (a * slow >= s * aa || a >= aa)) order.push(['slow', ++s]);
  }
  for (const [kind, k] of order) rows.push(await comparison(kind, k, thresholds));
  fs.rmSync(thresholds, { recursive: true, force: true });
  return summarize(rows);
}

function summarize(rows) {
  const A = tally(rows.filter((r) => r.kind === 'aa'));
  const S = tally(rows.filter((r) => r.kind === 'slow'));
  const duties = rows.filter((r) => r.kind === 'slow' && r.duty !== null).map((r) => r.duty);
  const duty = duties.length ? duties.reduce((s, x) => s + x, 0) / duties.length : null;
  const retried = rows.filter((r) => r.attempt > 1).length;
  const hw = (t) => (t.medianHalfWidth === null ? '?' : `±${(t.medianHalfWidth * 100).toFixed(1)}%`);
  const fmt = (c, n) => `${c || 0}/${n} (${(((c || 0) / n) * 100).toFixed(1)}%)`;
  const lines = [
    `Detection benchmark: ${opt.benchmarks.split(',').length} microbenchmarks (${opt.benchmarks}),`,
    `${opt.rounds} rounds per side of ${opt.seconds} s, ${opt.tables} tables × ${opt.rows} rows, limits warn ${opt.warn} fail ${opt.fail},`,
    `up to ${opt['extra-pairs']} extra pairs a row (to narrow and to confirm) in ${opt.minutes} minutes; base = head = ${opt.base}.`,
    '',
    `A/A: ${A.runs} comparisons (${A.runsWithFail} with any fail), ${A.verdicts} microbenchmark verdicts: fail ${fmt(A.counts.fail, A.verdicts)} (95% upper bound ${(upperBound(A.counts.fail || 0, A.verdicts) * 100).toFixed(1)}%),`
      + ` undecided ${fmt(A.counts.undecided, A.verdicts)}, warn ${fmt(A.counts.warn, A.verdicts)}, pass ${fmt(A.counts.pass, A.verdicts)}, error ${fmt(A.counts.error, A.verdicts)}; geometric mean rQPS ${A.gmean && A.gmean.toFixed(3)}; median 95% interval ${hw(A)}.`,
    `Slowed head (paused ${duty !== null ? (duty * 100).toFixed(1) : '?'}% of the time, expected rQPS ≈ ${duty !== null ? (1 - duty).toFixed(3) : '?'}): ${S.runs} comparisons (${S.runsWithFail} with any fail), ${S.verdicts} verdicts:`
      + ` caught as fail ${fmt(S.counts.fail, S.verdicts)}, undecided ${fmt(S.counts.undecided, S.verdicts)}, warn ${fmt(S.counts.warn, S.verdicts)}, pass ${fmt(S.counts.pass, S.verdicts)}, error ${fmt(S.counts.error, S.verdicts)}; geometric mean rQPS ${S.gmean && S.gmean.toFixed(3)}; median 95% interval ${hw(S)}.`,
  ];
  if (retried) lines.push(`${retried} comparison(s) were run again because a server failed to start (counted once, by their last attempt).`);
  const perBench = {};
  for (const r of rows) for (const b of r.benchmarks) {
    const key = `${r.kind}:${b.id}`;
    perBench[key] = perBench[key] || { kind: r.kind, id: b.id, verdicts: {}, rqps: [] };
    perBench[key].verdicts[b.verdict] = (perBench[key].verdicts[b.verdict] || 0) + 1;
    if (typeof b.rqps === 'number') perBench[key].rqps.push(b.rqps);
  }
  lines.push('', 'per microbenchmark (kind, id, verdicts, rQPS min–max):');
  for (const p of Object.values(perBench)) {
    lines.push(`  ${p.kind.padEnd(4)} ${p.id.padEnd(30)} ${Object.entries(p.verdicts).map(([v, n]) => `${v} ${n}`).join(', ').padEnd(40)} ${p.rqps.length ? `${Math.min(...p.rqps).toFixed(3)}–${Math.max(...p.rqps).toFixed(3)}` : ''}`);
  }
  const text = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(opt.out, 'detection.txt'), text);
  process.stdout.write(text);
}

main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1); });
