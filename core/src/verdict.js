'use strict';
// judge(results, config) -> verdict: a pure function from what the harness measured (one
// results.json, or several runs of the same plan to merge) and the limits, to the decision
// and every figure a renderer shows. Renderers read only the verdict.
const { EXIT, UsageError } = require('./errors');
const { ratioInterval, pairedRatios } = require('./statistics');
const { mergeResults } = require('./merge-results');
const { instructionFigures, whereInstructionsWent } = require('./instructions');
const { diagnose, warnings } = require('./runner-checks');
const { partialSentence } = require('./shards');
const { ioFigures, latencyP95, IO_LIMIT_KEYS, IO_LABEL } = require('./per-query');

const CONFIDENCE = 0.95;
const VERDICTS = ['pass', 'warn', 'inconclusive', 'fail', 'error'];
// The run's verdict is its worst benchmark's, in this order of precedence:
//   error        a measurement failed: no figure of the run can be trusted to be complete;
//   fail         a regression whose whole interval is below the fail limit: it must be seen
//                even when other benchmarks are undecided;
//   inconclusive undecided benchmarks may hide a fail, so the run cannot be called good;
//   warn, pass   decided and acceptable.
const PRECEDENCE = { error: 4, fail: 3, inconclusive: 2, warn: 1, pass: 0 };
const EXIT_OF = { pass: EXIT.ok, warn: EXIT.ok, fail: EXIT.fail, inconclusive: EXIT.inconclusive, error: EXIT.error };

function worst(verdicts) {
  return verdicts.reduce((w, v) => (PRECEDENCE[v] > PRECEDENCE[w] ? v : w), 'pass');
}

// The decision on one interval of a ratio where lower is worse (rQPS, AHI gain ratio).
function decide(interval, limits) {
  if (interval.low === null) return 'inconclusive';
  if (interval.high < limits.fail) return 'fail';
  if (interval.low >= limits.warn) return 'pass';
  if (interval.low >= limits.fail) return 'warn';
  return 'inconclusive';
}

const f2 = (x) => x.toFixed(2);
const range = (i) => `[${f2(i.low)}, ${f2(i.high)}]`;

// One line saying why, pinned by tests: reports print it as is.
function reason(verdict, interval, limits, what = 'rQPS') {
  if (interval.n === 0) return `no paired rounds: nothing to compare`;
  if (interval.low === null) return `${what} ${f2(interval.estimate)} from 1 paired round: an interval needs at least 2`;
  const at = `${what} ${f2(interval.estimate)} ${range(interval)}`;
  switch (verdict) {
    case 'fail': return `${at} lies wholly below the fail limit ${f2(limits.fail)}`;
    case 'pass': return `${at} lies above the warn limit ${f2(limits.warn)}`;
    case 'warn': return `${at} lies above the fail limit ${f2(limits.fail)} but reaches below the warn limit ${f2(limits.warn)}`;
    default: return `${at} straddles the fail limit ${f2(limits.fail)}`;
  }
}

// Limits come from the loaded suite (config.limits = {default, byName, ahi_gain}, see
// src/config) or, for callers and tests that build them by hand, a flat {default, <name>: …}.
function limitsFor(config, bench, { ahiGain = false } = {}) {
  const table = (config && config.limits) || {};
  const byName = table.byName || table;
  // An AHI gain cell is judged by `ahi_gain`, else `default`: a workload's own limits are on
  // the rQPS of its cells, not on how the head's AHI gain compares with the base's.
  let l = ahiGain ? table.ahi_gain : (byName[bench.id] || byName[bench.name]);
  if (!l) l = table.default;
  if (!l || !(l.fail > 0) || !(l.warn >= l.fail)) {
    throw new UsageError(`limits for '${bench.id}': expected {warn, fail} with 0 < fail <= warn, got ${JSON.stringify(l)}`);
  }
  const out = { warn: l.warn, fail: l.fail };
  for (const key of ['cpu_per_query', 'instructions', ...IO_LIMIT_KEYS]) {
    const u = l[key];
    if (!u) continue;
    if (!(u.warn > 0 && u.fail >= u.warn)) {
      throw new UsageError(`${key} limits for '${bench.id}': expected {warn, fail} with 0 < warn <= fail, got ${JSON.stringify(u)}`);
    }
    out[key] = { warn: u.warn, fail: u.fail };
  }
  return out;
}

// The limits as the verdict records them: {default, ahi_gain?, <name>: {warn, fail}}.
function flatLimits(config) {
  const table = (config && config.limits) || {};
  if (!table.byName) return table;
  const flat = { default: table.default, ...table.byName };
  if (table.ahi_gain) flat.ahi_gain = table.ahi_gain;
  for (const [k, l] of Object.entries(flat)) {
    flat[k] = { warn: l.warn, fail: l.fail };
    if (l.cpu_per_query) flat[k].cpu_per_query = l.cpu_per_query;
    if (l.instructions) flat[k].instructions = l.instructions;
    for (const key of IO_LIMIT_KEYS) if (l[key]) flat[k][key] = l[key];
  }
  return flat;
}

function intervalOf(ratios) {
  const i = ratioInterval(ratios.map((r) => r.ratio), CONFIDENCE);
  return {
    estimate: i.estimate, low: i.low, high: i.high, n: i.n, sd_log: i.sd_log,
    ratios: ratios.map((r) => r.ratio), indices: ratios.map((r) => r.index),
  };
}

function metricInterval(rounds, metric) {
  const ratios = pairedRatios(rounds, metric);
  return ratios.length ? intervalOf(ratios) : null;
}

function errorText(e) {
  if (!e) return 'failed';
  const where = [e.side, e.step].filter(Boolean).join(' ');
  return where ? `${where}: ${e.message}` : e.message;
}

// cpu/o and instr/o (head/base work per query, higher is worse) decided like rQPS, mirrored:
// fail when the whole interval lies above its fail limit, pass when below its warn limit.
function decideUpper(interval, limits) {
  if (interval.low === null) return 'inconclusive';
  if (interval.low > limits.fail) return 'fail';
  if (interval.high <= limits.warn) return 'pass';
  if (interval.high <= limits.fail) return 'warn';
  return 'inconclusive';
}

// A suite that sets cpu_per_query limits for a benchmark says it is CPU-bound there, so CPU per
// query, about three times steadier than QPS on a shared machine, may speak too. It settles an
// rQPS interval too wide to decide, and it can make a decided verdict worse (more CPU per query
// at the same QPS is a regression on a busier machine), but an undecided cpu/o never overrides a
// decided rQPS: a regression that waits instead of burning CPU shows in QPS alone.
// One line saying why, for a ratio where higher is worse. Pinned by tests.
function upperReason(verdict, interval, limits, what, unit = 'paired round') {
  if (interval.low === null) return `${what} ${f2(interval.estimate)} from 1 ${unit}: an interval needs at least 2`;
  return `${what} ${f2(interval.estimate)} ${range(interval)} ${{
    fail: `lies wholly above the ${what} fail limit ${f2(limits.fail)}`,
    pass: `lies below the ${what} warn limit ${f2(limits.warn)}`,
    warn: `lies below the ${what} fail limit ${f2(limits.fail)} but reaches above the ${what} warn limit ${f2(limits.warn)}`,
    inconclusive: `straddles the ${what} fail limit ${f2(limits.fail)}`,
  }[verdict]}`;
}

function withCpuDecision(out, cpuLimits) {
  const cpu = decideUpper(out.cpu_per_query, cpuLimits);
  const line = upperReason(cpu, out.cpu_per_query, cpuLimits, 'cpu/o');
  out.cpu_verdict = cpu;
  const rq = out.verdict;
  const final = rq === 'inconclusive' ? cpu : worst([rq, cpu === 'inconclusive' ? 'pass' : cpu]);
  if (final !== rq) out.reason = `${out.reason}; ${line}`;
  out.verdict = final;
  return out;
}

function judgeBenchmark(bench, limits, runErrors) {
  const rounds = bench.rounds || [];
  const count = (side) => rounds.filter((r) => r.side === side).length;
  const benchErrors = runErrors.filter((e) => e.benchmark === bench.id);
  const roundErrors = rounds.filter((r) => r.errors > 0);
  const out = {
    id: bench.id,
    name: bench.name,
    group: bench.group,
    threads: bench.threads ?? null,
    ahi: bench.ahi ?? null,
    limits,
    rounds: { base: count('base'), head: count('head'), pairs: 0 },
    rqps: null,
    cpu_per_query: metricInterval(rounds, 'cpu_per_query_us'),
    cs_per_query: metricInterval(rounds, 'cs_per_query'),
    io: ioFigures(rounds, metricInterval),
    latency_p95_ms: latencyP95(rounds, metricInterval),
    qps: rounds.map((r) => ({ index: r.index, side: r.side, qps: r.qps, started: r.started ?? null })),
    command: bench.command ?? null,
    verdict: 'error',
    reason: '',
  };
  if (bench.status === 'error' || bench.error || benchErrors.length) {
    out.reason = errorText(bench.error || benchErrors[0]);
    return out;
  }
  if (roundErrors.length) {
    const r = roundErrors[0];
    out.reason = `${r.side} round ${r.index}: sysbench reported ${r.errors} query error${r.errors === 1 ? '' : 's'}`;
    return out;
  }
  const timed = rounds.length > 0;
  if (timed) {
    const ratios = pairedRatios(rounds, 'qps');
    out.rounds.pairs = ratios.length;
    out.rqps = intervalOf(ratios);
    out.verdict = decide(out.rqps, limits);
    out.reason = reason(out.verdict, out.rqps, limits);
    if (limits.cpu_per_query && out.cpu_per_query) withCpuDecision(out, limits.cpu_per_query);
    // I/O per query where the suite limits it: decided and recorded beside its figure.
    for (const key of IO_LIMIT_KEYS) {
      const figure = out.io && out.io[key];
      if (!limits[key] || !figure || !figure.ratio) continue;
      figure.verdict = decideUpper(figure.ratio, limits[key]);
      figure.reason = upperReason(figure.verdict, figure.ratio, limits[key], IO_LABEL[key]);
    }
  }
  // An rQPS interval wholly below the warn limit proves a slowdown of at least that much,
  // even while it straddles the fail limit.
  const slowerThan = timed && out.rqps.high !== null && out.rqps.high < limits.warn ? limits.warn : null;
  const time = timed ? { verdict: out.verdict, reason: out.reason, slowerThan } : null;
  out.time_verdict = time ? time.verdict : null;
  const instructions = bench.instructions ? judgeInstructions(out, bench.instructions, limits) : null;
  if (!time && !instructions) {
    out.verdict = 'error';
    out.reason = 'nothing measured: no timed rounds and no instruction windows';
    return out;
  }
  const combined = combineSignals(time, instructions);
  out.verdict = combined.verdict;
  out.reason = combined.reason;
  return out;
}

// instr/o of the connection threads decides; the background threads' (the purge and flushing
// the queries leave behind) are reported beside it.
function judgeInstructions(out, instructions, limits) {
  const figures = instructionFigures(instructions);
  out.instructions_per_query = figures.connection;
  out.background_per_query = figures.background;
  out.instructions = { per_query: figures.per_query, events: figures.events, windows: figures.windows };
  out.instructions_functions = whereInstructionsWent(instructions, figures.connection);
  if (!limits.instructions) {
    throw new UsageError(`limits for '${out.id}': instructions were counted but the suite sets no instructions limits; expected limits.default.instructions: {warn, fail}`);
  }
  if (!figures.connection) {
    out.instructions_verdict = 'error';
    return { verdict: 'error', reason: 'no paired instruction windows' };
  }
  const verdict = decideUpper(figures.connection, limits.instructions);
  out.instructions_verdict = verdict;
  return { verdict, reason: upperReason(verdict, figures.connection, limits.instructions, 'instr/o', 'paired window') };
}

/**
 * The verdict of one microbenchmark from its two signals, each {verdict, reason} or null when
 * it was not measured: time (rQPS, with cpu/o where the suite limits it) and instructions
 * (instr/o of the connection threads). In order:
 *   1. a signal in error        → error: a failed measurement decides nothing
 *   2. a signal that fails      → fail: more instructions per query is a regression whatever a
 *                                 noisy clock says, and a time fail stays one when instructions
 *                                 are unchanged (waits, locks, I/O and fsyncs run no instructions)
 *   3. one signal only          → its verdict
 *   4. time undecided           → the instructions' verdict: the steady signal decides what the
 *                                 noisy one cannot; but no better than warn when the whole time
 *                                 interval lies below the warn limit (time.slowerThan): unchanged
 *                                 instructions do not explain a slowdown time did measure
 *   5. instructions undecided   → the time verdict
 *   6. both decided             → the worse (warn over pass)
 * The reason leads with the signal that decided.
 */
function combineSignals(time, instructions) {
  if (!time || !instructions) {
    const only = time || instructions;
    return { verdict: only.verdict, reason: only.reason };
  }
  const both = (first, second) => `${first.reason}; ${second.reason}`;
  if (time.verdict === 'error' || instructions.verdict === 'error') {
    const failed = time.verdict === 'error' ? time : instructions;
    return { verdict: 'error', reason: failed.reason };
  }
  if (instructions.verdict === 'fail') return { verdict: 'fail', reason: both(instructions, time) };
  if (time.verdict === 'fail') return { verdict: 'fail', reason: both(time, instructions) };
  if (time.verdict === 'inconclusive' || (time.verdict === 'pass' && time.slowerThan)) {
    // (time pass with slowerThan: cpu/o settled an rQPS interval that lies below warn)
    if (instructions.verdict === 'pass' && time.slowerThan) {
      return { verdict: 'warn', reason: `${both(time, instructions)}: slower than the warn limit ${f2(time.slowerThan)} on time throughout, which the instructions do not explain (waits, locks, I/O)` };
    }
    return { verdict: instructions.verdict, reason: both(instructions, time) };
  }
  if (instructions.verdict === 'inconclusive') return { verdict: time.verdict, reason: both(time, instructions) };
  const verdict = worst([time.verdict, instructions.verdict]);
  return { verdict, reason: verdict === instructions.verdict && verdict !== time.verdict ? both(instructions, time) : both(time, instructions) };
}

// AHI suite: the benchmarks come in on/off pairs per cell (workload × threads). Each side's
// AHI gain is QPS(on)/QPS(off); the head's gain relative to the base's is, round by round,
// rQPS(on)_i / rQPS(off)_i, so it is judged from paired ratios like any other ratio.
function ahiCells(judged, config) {
  const cells = new Map();
  for (const b of judged) {
    if (!b.ahi) continue;
    const key = `${b.name}@${b.threads}`;
    if (!cells.has(key)) cells.set(key, { name: b.name, threads: b.threads });
    cells.get(key)[b.ahi] = b;
  }
  const out = [];
  for (const [key, c] of cells) {
    if (!c.on || !c.off) continue;
    const gainOf = (side) => {
      const mean = (b) => {
        const q = b.qps.filter((r) => r.side === side).map((r) => r.qps);
        return q.length ? Math.exp(q.reduce((s, x) => s + Math.log(x), 0) / q.length) : null;
      };
      const on = mean(c.on);
      const off = mean(c.off);
      return on && off ? on / off : null;
    };
    const limits = limitsFor(config, { id: `${key}:ahi-gain`, name: c.name }, { ahiGain: true });
    const cell = {
      id: `${key}:ahi-gain`,
      name: c.name,
      threads: c.threads,
      rqps_off: c.off.rqps ? c.off.rqps.estimate : null,
      rqps_on: c.on.rqps ? c.on.rqps.estimate : null,
      gain: { base: gainOf('base'), head: gainOf('head') },
      gain_ratio: null,
      limits,
      verdict: 'error',
      reason: '',
    };
    if (c.on.verdict === 'error' || c.off.verdict === 'error') {
      cell.reason = `AHI ${c.on.verdict === 'error' ? 'on' : 'off'} cell failed: ${(c.on.verdict === 'error' ? c.on : c.off).reason}`;
    } else {
      const offByIndex = new Map(c.off.rqps.indices.map((index, k) => [index, c.off.rqps.ratios[k]]));
      const ratios = c.on.rqps.indices
        .map((index, k) => ({ index, ratio: c.on.rqps.ratios[k] / offByIndex.get(index) }))
        .filter((r) => offByIndex.has(r.index));
      cell.gain_ratio = intervalOf(ratios);
      cell.verdict = decide(cell.gain_ratio, limits);
      cell.reason = reason(cell.verdict, cell.gain_ratio, limits, 'AHI gain ratio');
    }
    out.push(cell);
  }
  return out;
}

const pct = (r) => `${Math.round(Math.abs(1 - r) * 100)}%`;
const listed = (items, fmt, max = 3) => {
  const shown = items.slice(0, max).map(fmt);
  if (items.length > max) shown.push(`${items.length - max} more`);
  if (shown.length === 1) return shown[0];
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
};

// One sentence saying what got slower (or why there is no answer). Pinned by tests.
function headline(overall, items, runError) {
  const total = items.length;
  const by = (v) => items.filter((b) => b.verdict === v);
  const slower = (b) => {
    // A row that fails or warns on instructions alone says so; time first otherwise.
    const byInstructions = b.instructions_verdict && b.instructions_verdict === b.verdict && b.time_verdict !== b.verdict;
    if (byInstructions || (!b.rqps && !b.gain_ratio && b.instructions_per_query)) {
      const i = b.instructions_per_query;
      return `${b.id} ${i.estimate >= 1 ? `${pct(i.estimate)} more` : `${pct(i.estimate)} fewer`} instructions per query (instr/o ${f2(i.estimate)} ${range(i)})`;
    }
    const i = b.rqps || b.gain_ratio;
    const what = b.gain_ratio ? `${b.name} (${b.threads} threads) AHI gain` : b.id;
    const figures = `(${b.gain_ratio ? 'gain ratio' : 'rQPS'} ${f2(i.estimate)} ${range(i)})`;
    // Limits above 1.00 (a fork that demands a speed-up) can fail a head that is not slower.
    // A warn whose estimate is not slower is the interval's low end reaching below the limit.
    if (i.estimate < 1) return `${what} ${pct(i.estimate)} slower ${figures}`;
    const limit = f2(b.verdict === 'fail' ? b.limits.fail : b.limits.warn);
    return b.verdict === 'fail' ? `${what} below its fail limit ${limit} ${figures}` : `${what} could be below its warn limit ${limit}: its interval reaches it ${figures}`;
  };
  switch (overall) {
    case 'error': {
      if (runError) return `No verdict: ${runError}.`;
      const e = by('error');
      return `No verdict for ${listed(e, (b) => `${b.id} (${b.reason})`, 2)}: the measurement failed.`;
    }
    case 'fail': {
      const f = by('fail');
      const rest = by('inconclusive').length ? `; ${by('inconclusive').length} undecided` : '';
      return `Slower: ${listed(f, slower)}${rest}.`;
    }
    case 'inconclusive': {
      const u = by('inconclusive');
      return `Undecided: ${listed(u, (b) => b.id)} could be slower than the fail limit but ${u.length === 1 ? 'its interval is' : 'their intervals are'} too wide; more rounds would decide.`;
    }
    case 'warn': {
      const w = by('warn');
      return `Slightly slower, within the fail limit: ${listed(w, slower)}.`;
    }
    default:
      return `Nothing got slower than the warn limit: all ${total} ${total === 1 ? 'comparison passes' : 'comparisons pass'}.`;
  }
}

// A side that failed as a whole (its server did not start, prepare failed, it crashed between
// benchmarks) leaves nothing to compare: the run is an error, never a verdict.
// (In merged shards such an error carries its shard and concerns that shard's rows only.)
function failedSide(results) {
  const e = (results.errors || []).find((x) => x.side && !x.benchmark && !x.shard);
  return e ? `the ${e.side} server failed${e.step ? ` (${e.step})` : ''}: ${e.message}` : null;
}

function judge(results, config = {}, options = {}) {
  const docs = Array.isArray(results) ? results : [results];
  const run = mergeResults(docs, { allowDifferentMachines: options.allowDifferentMachines });
  const runErrors = run.errors || [];
  const sideFailure = failedSide(run);
  const judged = run.benchmarks.map((b) => {
    const j = judgeBenchmark(b, limitsFor(config, b), runErrors);
    if (sideFailure && j.verdict !== 'error') { j.verdict = 'error'; j.reason = sideFailure; j.rqps = null; }
    return j;
  });
  const ahi = ahiCells(judged, config);
  const items = [...judged.filter((b) => !b.ahi), ...judged.filter((b) => b.ahi), ...ahi];
  let runError = sideFailure;
  if (!runError && run.status === 'error' && !judged.some((b) => b.verdict === 'error')) {
    runError = runErrors.length ? errorText(runErrors[0]) : 'the harness reported an error without details';
  }
  if (!runError && !judged.length) runError = 'the results hold no benchmarks';
  const measured = runError ? 'error' : worst(items.map((b) => b.verdict));
  // A merge of some shards only: what was not measured may hide a fail, so at best undecided.
  const partial = run.shards ? partialSentence(run.shards) : '';
  const overall = partial ? worst([measured, 'inconclusive']) : measured;
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, items.filter((b) => b.verdict === v).length]));
  const plan = run.plan || {};
  return {
    schema: 'perfgate.verdict/v1',
    suite: plan.suite || null,
    verdict: overall,
    exit_code: EXIT_OF[overall],
    headline: `${partial ? `${partial} ` : ''}${headline(measured, items, runError)}`,
    confidence: CONFIDENCE,
    method: 'paired rounds (base i, head i); geometric mean of head/base with a Student-t interval on the log ratios',
    limits: flatLimits(config),
    counts,
    inconclusive: items.filter((b) => b.verdict === 'inconclusive').map((b) => b.id),
    failed: items.filter((b) => b.verdict === 'fail').map((b) => b.id),
    errors: runErrors.map(errorText),
    doctor: run.machine ? warnings(diagnose(run.machine)) : [],
    run: {
      started: run.started ?? null,
      finished: run.finished ?? null,
      merged_from: docs.length,
      machines_differ: new Set(docs.map((d) => d.machine && d.machine.id)).size > 1,
      machine: run.machine,
      sides: run.sides,
      scale: plan.scale ?? null,
      measure: plan.measure ?? null,
      profile: plan.profile ?? null,
      ...(plan.shard ? { shard: { index: plan.shard.index, count: plan.shard.count, benchmarks_in_suite: plan.shard.suite_benchmarks.length } } : {}),
      ...(run.shards ? { shards: run.shards } : {}),
    },
    benchmarks: judged,
    ahi,
  };
}

module.exports = { judge, decide, decideUpper, reason, combineSignals, headline, worst, PRECEDENCE, EXIT_OF, CONFIDENCE };
