#!/usr/bin/env node
'use strict';
// Freezes what the verdict rule of one commit (e3340e2 by default) made of the cases of
// test/support/rule-history.js, so that test/unit/core/no-easier-pass.test.js can hold every
// later rule to it: nothing that failed, warned or stayed undecided then may pass now. Run once
// per frozen commit, from the repository's top:
//   node scripts/freeze-rule-history.js [commit]
// It takes core/ and schema/ of that commit out of git into a scratch folder, draws the runs
// with steps on fresh servers (drawn-results.json, merged by that commit's own mergeResults),
// and writes test/fixtures/rule-history/verdicts-<commit>.json.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { seededNormals, seededUniform } = require('../test/support/seeded-draws');

const ROOT = path.join(__dirname, '..');
const COMMIT = process.argv[2] || 'e3340e2';

function oldCore(commit) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-rule-'));
  const tar = execFileSync('git', ['archive', commit, 'core/src', 'schema'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return { dir, verdict: require(path.join(dir, 'core/src/verdict')), merge: require(path.join(dir, 'core/src/merge-results')) };
}

// --- drawn runs: rows whose first servers and fresh ones measure different things ----------

const CENTRES = [0.86, 0.9, 0.92, 0.935, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0, 1.02];
const SPREADS = [0.003, 0.01, 0.03, 0.08];
const INSTR_CENTRES = [0.998, 1.0, 1.004, 1.01, 1.016, 1.022, 1.03, 1.04, 1.06];
const INSTR_SPREADS = [0.0003, 0.002, 0.008];
const BACKGROUND = [1.0, 1.03, 1.1, 1.3];

function drawer(seed) {
  const u = seededUniform(seed);
  const z = seededNormals(seed + 1);
  const pick = (xs) => xs[Math.floor(u() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(u() * (hi - lo + 1));
  return { u, z, pick, int };
}

const cut = (x) => Math.round(x * 1000) / 1000;
const round = (index, side, qps) => ({ index, side, qps, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 });
function rounds(d, centre, spread, n, from) {
  return Array.from({ length: n }, (_, k) => [round(from + k, 'base', 1000), round(from + k, 'head', cut(1000 * centre * Math.exp(spread * d.z())))]).flat();
}
// Another run's background threads never count exactly the same instructions (`run`).
function windows(d, ratio, spread, background, n, run) {
  const one = (perQuery, bg) => ({ events: 1000, queries: 1000, seconds: 1 + run / 10, connection: { instructions: Math.round(perQuery * 1000), threads: 1, per_query: perQuery }, background: { instructions: Math.round(bg * 1000) + run, threads: 8, per_query: bg } });
  const side = (r, b) => ({ windows: Array.from({ length: n }, () => one(cut(40000 * r * Math.exp(spread * d.z())), cut(30000 * b * Math.exp(0.05 * d.z())))), functions: { connection: [], background: [] } });
  return { events: 1000, seed: 1, base: side(1, 1), head: side(ratio, background) };
}
const doc = (benchmarks) => ({
  schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) }, status: 'ok', errors: [],
  machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
  sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
  benchmarks,
});

// One run of six rows (time, instructions or both) and up to three steps on fresh servers,
// each of rounds (extend, confirm) or windows (count, recount) for some of its rows, each
// measuring its own centre: a property of one pair of processes, or the same change again.
function drawnRun(merge, k) {
  const d = drawer(20261207 + 7919 * k);
  const rows = Array.from({ length: 6 }, (_, i) => {
    const kind = d.pick(['time', 'instructions', 'both']);
    return { id: `r${i}`, kind, centre: d.pick(CENTRES), spread: d.pick(SPREADS), instr: d.pick(INSTR_CENTRES), ispread: d.pick(INSTR_SPREADS), background: d.pick(BACKGROUND) };
  });
  const timed = (r) => r.kind !== 'instructions';
  const counted = (r) => r.kind !== 'time';
  let results = doc(rows.map((r) => ({
    id: r.id, name: r.id, group: 'point', status: 'ok',
    rounds: timed(r) ? rounds(d, r.centre, r.spread, d.int(2, 9), 0) : [],
    ...(counted(r) ? { instructions: windows(d, r.instr, r.ispread, r.background, d.int(1, 4), 0) } : {}),
  })));
  const steps = d.int(0, 3);
  for (let s = 0; s < steps; s++) {
    const onRounds = d.u() < 0.5;
    const chosen = rows.filter((r) => (onRounds ? timed(r) : counted(r)) && d.u() < 0.7);
    if (!chosen.length) continue;
    const same = d.u() < 0.5;
    const first = merge.nextRoundIndex(results);
    const n = onRounds ? d.int(2, 6) : d.int(2, 3);
    const more = doc(chosen.map((r) => ({
      id: r.id, name: r.id, group: 'point', status: 'ok',
      rounds: onRounds ? rounds(d, same ? r.centre : d.pick(CENTRES), r.spread, n, first) : [],
      ...(onRounds ? {} : { instructions: windows(d, same ? r.instr : d.pick(INSTR_CENTRES), r.ispread, same ? r.background : d.pick(BACKGROUND), n, s + 1) }),
    })));
    const purpose = onRounds ? d.pick(['extend', 'confirm']) : d.pick(['count', 'recount']);
    const extension = { file: `results.extra-${s + 1}.json`, purpose, first_round: first, rounds: onRounds ? n : 0, ...(onRounds ? {} : { windows: n }), benchmarks: chosen.map((r) => r.id) };
    results = merge.mergeResults([results, more], { extension });
  }
  return { name: `run ${k}`, results };
}

// --- the frozen verdicts --------------------------------------------------------------------

// Each row's and cell's verdict, '+' after a pass or inconclusive whose intervals were open (e3340e2's words).
function outcomes(verdict) {
  const rows = {};
  for (const b of [...verdict.benchmarks, ...verdict.ahi]) rows[b.id] = `${b.verdict}${b.open ? '+' : ''}`;
  return { verdict: verdict.verdict, exit_code: verdict.exit_code, rows };
}

function main() {
  const old = oldCore(COMMIT);
  try {
    const history = require('../test/support/rule-history');
    const drawn = Array.from({ length: 40 }, (_, k) => drawnRun(old.merge, k));
    fs.mkdirSync(path.dirname(history.DRAWN), { recursive: true });
    fs.writeFileSync(history.DRAWN, `${JSON.stringify(drawn)}\n`);
    const frozen = {};
    for (const c of history.ruleCases()) {
      try {
        frozen[c.id] = outcomes(old.verdict.judge(c.docs.length === 1 ? c.docs[0] : c.docs, c.config));
      } catch (err) {
        frozen[c.id] = { refused: err.message };
      }
    }
    const file = history.FROZEN.replace('e3340e2', COMMIT);
    // One case a line: a diff of two freezes reads case by case.
    const lines = Object.entries(frozen).map(([id, o]) => `${JSON.stringify(id)}: ${JSON.stringify(o)}`);
    fs.writeFileSync(file, `{"commit": ${JSON.stringify(COMMIT)}, "cases": {\n${lines.join(',\n')}\n}}\n`);
    process.stdout.write(`${Object.keys(frozen).length} cases judged by the rule of ${COMMIT}: ${path.relative(ROOT, file)}\n`);
  } finally {
    fs.rmSync(old.dir, { recursive: true, force: true });
  }
}

main();
