'use strict';
// judge(results, config) -> verdict: a pure function from what the harness measured (one
// results.json, or several runs of the same plan to merge) and the limits, to the decision
// and every figure a renderer shows. Renderers read only the verdict.
const { EXIT, UsageError } = require('./errors');
const { ratioInterval, pairedRatios, geometricMean } = require('./statistics');
const { mergeResults } = require('./merge-results');
const { instructionFigures, whereInstructionsWent } = require('./instructions');
const { diagnose, warnings } = require('./runner-checks');
const { partialSentence } = require('./shards');
const { signalRange, settledVerdict, rowVerdict, LEVELS } = require('./row-verdict');
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

// The decision on one interval of a ratio where lower is worse (rQPS, AHI gain ratio), as
// settled once no more rounds will come (see row-verdict.js).
function decide(interval, limits) {
  return settledVerdict(signalRange(interval, limits, { higherIsWorse: false }));
}

const f2 = (x) => x.toFixed(2);
const limitText = (x) => (Number(x.toFixed(2)) === x ? x.toFixed(2) : String(Number(x.toFixed(4))));
const range = (i) => `[${f2(i.low)}, ${f2(i.high)}]`;

// Limits come from the loaded suite (config.limits = {default, byName, ahi_gain}, see
// src/config) or, for callers and tests that build them by hand, a flat {default, <name>: …}.
function limitsFor(config, bench, { ahiGain = false } = {}) {
  const table = (config && config.limits) || {};
  const byName = table.byName || table;
  // An AHI gain cell is judged by `ahi_gain`, else `default`: a workload's own limits are on
  // the rQPS of its cells, not on how the head's AHI gain compares with the base's.
  // The microbenchmark at its thread count first (also when a run of one thread count names
  // its rows without it: its id is then the bare name, whose entry must not hide the
  // thread count's), then the row's own id, then the microbenchmark.
  const atThreads = bench.threads === undefined ? undefined : byName[`${bench.name} threads=${bench.threads}`];
  let l = ahiGain ? table.ahi_gain : (atThreads || byName[bench.id] || byName[bench.name]);
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

// How each signal is named, which way is worse, and what one sample of it is called.
// Instructions repeat within a fraction of a percent: they are shown to three decimals.
const SIGNAL_TERMS = {
  rqps: { what: 'rQPS', higherIsWorse: false, unit: 'pair', digits: 2 },
  cpu: { what: 'cpu/o', higherIsWorse: true, unit: 'pair', digits: 2 },
  instructions: { what: 'instr/o', higherIsWorse: true, unit: 'window', digits: 3 },
  instructions_all: { what: 'instr/o of all threads', higherIsWorse: true, unit: 'window', digits: 3 },
  gain: { what: 'AHI gain ratio', higherIsWorse: false, unit: 'pair', digits: 2 },
  io: { what: 'I/O per query', higherIsWorse: true, unit: 'pair', digits: 2 },
};

const plural = (n, unit) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * One clause saying where a signal's interval lies against its limits. Pinned by tests:
 * reports print it as is.
 */
function clause(kind, interval, limits, span, what = SIGNAL_TERMS[kind].what) {
  const { higherIsWorse, unit, digits } = SIGNAL_TERMS[kind];
  const n = (x) => x.toFixed(digits);
  if (!interval || interval.n === 0) return `${what}: no paired ${unit}s, nothing to compare`;
  if (interval.low === null) return `${what} ${n(interval.estimate)} from 1 ${unit}: an interval needs at least 2`;
  const bad = higherIsWorse ? 'above' : 'below';
  const good = higherIsWorse ? 'below' : 'above';
  const at = `${what} ${n(interval.estimate)} [${n(interval.low)}, ${n(interval.high)}]`;
  // A limit shown with the digits it was set with (instr/o limits such as 1.015).
  const W = limitText(limits.warn);
  const F = limitText(limits.fail);
  const after = ` after ${plural(interval.n, unit)}`;
  switch (`${span.best}-${span.worst}`) {
    case 'fail-fail': return `${at} lies wholly ${bad} the fail limit ${F}`;
    case 'warn-warn': return `${at} lies wholly ${bad} the warn limit ${W}, ${good} the fail limit ${F}`;
    case 'pass-pass': return `${at} lies ${good} the warn limit ${W}`;
    case 'pass-warn': return `${at} reaches ${bad} the warn limit ${W}, not the fail limit ${F},${after}`;
    case 'warn-fail': return `${at} lies wholly ${bad} the warn limit ${W} and reaches ${bad} the fail limit ${F}${after}`;
    default: return `${at} reaches ${bad} the fail limit ${F}${after}`;
  }
}

const pct = (r) => {
  const p = Math.abs(1 - r) * 100;
  return `${p >= 1 ? Math.round(p) : p.toFixed(1)}%`;
};

/**
 * What a signal says in a maintainer's words, e.g. "8% more instructions per query" or
 * "12% slower"; null when its estimate is not on the worse side (a limit above 1.00 for
 * rQPS, a fork that demands a speed-up).
 */
function change(kind, interval) {
  const { higherIsWorse } = SIGNAL_TERMS[kind];
  if (!interval || (higherIsWorse ? interval.estimate <= 1 : interval.estimate >= 1)) return null;
  switch (kind) {
    case 'instructions': return `${pct(interval.estimate)} more instructions per query`;
    case 'instructions_all': return `${pct(interval.estimate)} more instructions per query, counting the background threads`;
    case 'cpu': return `${pct(interval.estimate)} more CPU time per query`;
    default: return `${pct(interval.estimate)} slower`;
  }
}

// A signal of one row as the rule sees it (see row-verdict.js): its span, the clause saying
// why, and what a headline shows of it.
function signalOf(kind, interval, limits, what = SIGNAL_TERMS[kind].what) {
  const span = signalRange(interval, limits, { higherIsWorse: SIGNAL_TERMS[kind].higherIsWorse });
  return { kind, interval, limits, span, best: span.best, worst: span.worst, clause: clause(kind, interval, limits, span, what) };
}

/**
 * The time signal: rQPS, with cpu/o where the suite limits it. What cpu/o proves (a whole
 * interval beyond a limit) counts; what it leaves possible does not narrow rQPS: a
 * regression that waits instead of burning CPU shows in QPS alone, so an open rQPS interval
 * stays open whatever cpu/o says.
 */
function timeSignal(out, limits) {
  const rqps = signalOf('rqps', out.rqps, limits);
  if (!limits.cpu_per_query || !out.cpu_per_query) return { ...rqps, parts: [rqps] };
  const cpu = signalOf('cpu', out.cpu_per_query, limits.cpu_per_query);
  out.cpu_verdict = settledVerdict(cpu.span);
  const best = [rqps.best, cpu.best].reduce((a, b) => (LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b));
  const worst = LEVELS.indexOf(rqps.worst) >= LEVELS.indexOf(best) ? rqps.worst : best;
  const lead = cpu.best === best && rqps.best !== best ? cpu : rqps;
  return { ...lead, best, worst, parts: lead === cpu ? [cpu, rqps] : [rqps, cpu] };
}

// What each step re-measures on fresh server processes is called in a clause. `rerun`: the
// rounds or windows of another run of the comparison, joined by perfgate judge.
const TIMED_STEP_WORDS = { extend: 'extra rounds on fresh servers', confirm: 'confirming rounds on fresh servers', rerun: 'rounds of another run' };
const WINDOW_STEP_WORDS = { count: 'extra windows on fresh servers', recount: 'recount on fresh servers', rerun: 'windows of another run' };

/**
 * What each pair of server processes measured of one signal on its own: the first servers'
 * rounds (or windows), then each fresh step's own, as `judgeOwn(stretch)` judges them (the
 * stretches of pairsOfProcesses: `from`, `until`, the step that begins and the one that ends
 * it, null at the ends; `steps`, the fresh steps of the signal in order, and `at`, which of
 * them begins it, -1 for the first servers).
 * Returns the worst a pair proved (a fail before a warn; the earliest of equals), with words
 * saying which pair, or null when no pair proved a warn or fail or no fresh step measured the
 * signal (its pooled interval is then all there is).
 *
 * Extra rounds come after open rows and confirming rounds after fails, but in a chain, an AHI
 * matrix, or runs joined by perfgate judge, a row can be measured again whatever it showed,
 * and a pair of fresh processes can see what the first did not: no pair's proof may be pooled
 * away by the others.
 */
function worstPairOfProcesses(stretches, judgeOwn) {
  if (stretches.length < 2) return null;
  let seen = null;
  for (const stretch of stretches) {
    const own = judgeOwn(stretch);
    if (!own || own.best === 'pass') continue;
    if (!seen || LEVELS.indexOf(own.best) > LEVELS.indexOf(seen.own.best)) seen = { own, when: stretch.when, where: stretch.where };
  }
  return seen;
}

// The stretches of rounds (or windows) each pair of server processes measured: the first
// servers', then each fresh step's (see worstPairOfProcesses). Without fresh steps: the first
// servers' only, which no fresh pair has measured yet.
function pairsOfProcesses(extensions, words, ids) {
  const steps = extensions.filter((e) => words[e.purpose] && ids.every((id) => e.benchmarks.includes(id)));
  if (!steps.length) return [{ steps, at: -1, from: null, until: null, when: 'before a recount on fresh servers', where: 'on its first servers, not yet on fresh ones' }];
  return [
    { steps, at: -1, from: null, until: steps[0], when: `before the ${words[steps[0].purpose]}`, where: 'on its first servers, not on fresh ones' },
    ...steps.map((e, k) => ({ steps, at: k, from: e, until: steps[k + 1] || null, when: `in the ${words[e.purpose]}`, where: `in the ${words[e.purpose]}, not on its other servers` })),
  ];
}

// Whether round `index` belongs to a stretch: from its first step's first round up to the next
// step's (every step continues the numbering).
function inStretch(index, { from, until }) {
  return (!from || index >= from.first_round) && (!until || index < until.first_round);
}

// The windows of one side a stretch counted. Windows pair by position and every step counts
// as many on each side, appended in order: the steps' windows are the last ones, the first
// servers' those before them.
function windowsOfStretch(windows, { steps, at }) {
  const counted = (list) => list.reduce((n, e) => n + (e.windows || 0), 0);
  const firstEnd = Math.max(0, windows.length - counted(steps));
  if (at < 0) return windows.slice(0, firstEnd);
  const begin = firstEnd + counted(steps.slice(0, at));
  return windows.slice(begin, begin + (steps[at].windows || 0));
}

/**
 * A signal as it stands after measurement on more than one pair of server processes: `now`
 * from every round (or window) pooled, `seen` the worst one pair proved on its own. What ties
 * to a process (memory layout, where its threads ran, a cold cache of one side) repeats in
 * every round of it, so the rounds of two pairs of processes are not one sample, and an
 * interval that pools them as one cannot clear what one pair measured:
 *   - a fail the other processes do not repeat stays possible (the row inconclusive, never a
 *     pass) until the pooled interval lies beyond the fail limit too;
 *   - a warn they do not repeat keeps the row open at the warn limit (a pass, marked open):
 *     noise alone must not warn, nor may a measured warn read "within limits".
 */
function unconfirmed(now, seen) {
  if (!seen || LEVELS.indexOf(now.best) >= LEVELS.indexOf(seen.own.best)) return now;
  const shown = { ...seen.own, clause: `${seen.own.clause} ${seen.when}`, where: seen.where };
  const worst = LEVELS.indexOf(now.worst) >= LEVELS.indexOf(seen.own.best) ? now.worst : seen.own.best;
  return { ...now, worst, unconfirmed: shown, parts: [...(now.parts || [now]), shown] };
}

// How a headline names a proof one pair of processes gave and the others did not:
// "failed on its first servers, not on fresh ones (rQPS 0.90 [0.88, 0.92], fail limit 0.93)".
function unconfirmedPhrase(seen) {
  const word = seen.best === 'fail' ? 'failed' : 'beyond its warn limit';
  return `${word} ${seen.where} ${figures(seen, seen.best)}`;
}

// The row's figure a headline shows for a signal: "(instr/o 1.08 [1.08, 1.08], fail limit 1.04)".
function figures(signal, limitWord) {
  const i = signal.interval;
  const { what, digits } = SIGNAL_TERMS[signal.kind];
  const n = (x) => x.toFixed(digits);
  const shown = i.low === null ? `${what} ${n(i.estimate)}` : `${what} ${n(i.estimate)} [${n(i.low)}, ${n(i.high)}]`;
  return `(${shown}, ${limitWord} limit ${limitText(signal.limits[limitWord])})`;
}

/**
 * The reason of a row and its headline phrase, from the rule's outcome and the signals.
 * Leads with the signal that decided; names the limit it was held to. Pinned by tests.
 */
function explain(row, signals) {
  const rowSignal = { cpu: 'time', rqps: 'time', instructions_all: 'instructions' };
  const byKind = Object.fromEntries(signals.map((s) => [rowSignal[s.kind] || s.kind, s]));
  // Of the signals that leave a row open, the one that reaches the limit named leads: an
  // inconclusive row's could-be fail is the signal that can reach the fail limit.
  const reaching = row.verdict === 'inconclusive' ? 'fail' : row.open ? 'warn' : null;
  const deciding = row.decidedBy.map((name) => byKind[name]).filter(Boolean);
  const leading = reaching ? [...deciding.filter((s) => s.worst === reaching), ...deciding.filter((s) => s.worst !== reaching)] : deciding;
  const ordered = [...leading, ...signals.filter((s) => !leading.includes(s))];
  const clauses = ordered.flatMap((s) => s.parts || [s]).map((s) => s.clause).join('; ');
  const lead = leading[0] || null;
  let summary;
  let phrase;
  if (row.verdict === 'fail' || row.verdict === 'warn') {
    const said = change(lead.kind, lead.interval);
    summary = said || `below its ${row.verdict} limit`;
    phrase = `${said || `not slower, but beyond its ${row.verdict} limit`} ${figures(lead, row.verdict)}`;
  } else if (row.verdict === 'inconclusive') {
    // At least a warn when some signal proves it (that one may not be the signal left open).
    const proving = row.best === 'warn' ? signals.find((s) => s.best === 'warn') : null;
    // A fail one pair of server processes measured and the others did not: that is the news.
    const seen = signals.find((s) => s.unconfirmed && s.unconfirmed.best === 'fail');
    summary = proving ? 'at least a warn, could be a fail' : 'could be slower than the fail limit';
    const atLeast = proving ? `${change(proving.kind, proving.interval) || 'beyond its warn limit'}, ` : '';
    phrase = `${atLeast}could be beyond its fail limit ${figures(lead, 'fail')}`;
    if (seen) {
      summary = `failed ${seen.unconfirmed.where}: ${summary}`;
      phrase = `${atLeast}${unconfirmedPhrase(seen.unconfirmed)}`;
    }
  } else if (row.open) {
    const seen = signals.find((s) => s.unconfirmed);
    summary = 'within the fail limit, could be beyond the warn limit';
    phrase = `could be beyond its warn limit ${figures(lead, 'warn')}`;
    if (seen) {
      summary = `beyond its warn limit ${seen.unconfirmed.where}: ${summary}`;
      phrase = unconfirmedPhrase(seen.unconfirmed);
    }
  } else {
    summary = 'within limits';
    phrase = null;
  }
  return { reason: `${summary}: ${clauses}`, phrase };
}

// Rounds pair by index: a base round without its head round (or the reverse) is a round lost,
// and judging the others as if it had not happened would pass a head that lost its slowest.
function unpairedRound(rounds) {
  const indices = (side) => new Set(rounds.filter((r) => r.side === side).map((r) => r.index));
  const [base, head] = [indices('base'), indices('head')];
  if (!base.size || !head.size) return null;
  const lone = [...base].find((i) => !head.has(i));
  if (lone !== undefined) return `base round ${lone} has no head round; rounds are measured in pairs`;
  const loneHead = [...head].find((i) => !base.has(i));
  return loneHead !== undefined ? `head round ${loneHead} has no base round; rounds are measured in pairs` : null;
}

function judgeBenchmark(bench, limits, runErrors, extensions = [], timePlanned = false) {
  const rounds = bench.rounds || [];
  const count = (side) => rounds.filter((r) => r.side === side).length;
  const benchErrors = runErrors.filter((e) => e.benchmark === bench.id);
  const roundErrors = rounds.filter((r) => r.errors > 0 || r.reconnects > 0);
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
    // A reconnect is a connection lost mid-round: the server crashed or restarted.
    out.reason = r.errors > 0
      ? `${r.side} round ${r.index}: sysbench reported ${r.errors} query error${r.errors === 1 ? '' : 's'}`
      : `${r.side} round ${r.index}: sysbench reconnected ${r.reconnects} time${r.reconnects === 1 ? '' : 's'}: connections were lost during the round`;
    return out;
  }
  // A round that completed no query is the largest slowdown there is, not a missing figure:
  // left out of the pairs (as a null cpu/o is), it would let the other rounds pass a head
  // that stalled.
  const stalled = rounds.find((r) => !(r.qps > 0));
  if (stalled) {
    out.reason = `${stalled.side} round ${stalled.index}: ${stalled.qps} QPS: no query completed in the round`;
    return out;
  }
  const unpaired = unpairedRound(rounds);
  if (unpaired) {
    out.reason = unpaired;
    return out;
  }
  if (timePlanned && rounds.length === 0) {
    out.reason = 'no timed rounds, though the plan measures time (measure.signals); a time regression would go unseen';
    return out;
  }
  const signals = [];
  let time = null;
  if (rounds.length > 0) {
    const ratios = pairedRatios(rounds, 'qps');
    if (!ratios.length) {
      // Rounds of one side only (or of no common index): nothing to compare, and no interval
      // to show.
      const indicesOf = (side) => rounds.filter((r) => r.side === side).map((r) => r.index).sort((a, b) => a - b).join(', ') || 'none';
      out.reason = `no paired rounds: base rounds ${indicesOf('base')}; head rounds ${indicesOf('head')}`;
      return out;
    }
    out.rounds.pairs = ratios.length;
    out.rqps = intervalOf(ratios);
    time = timeSignal(out, limits);
    time = unconfirmed(time, worstPairOfProcesses(pairsOfProcesses(extensions, TIMED_STEP_WORDS, [bench.id]), (stretch) => {
      const own = rounds.filter((r) => inStretch(r.index, stretch));
      const ownRatios = pairedRatios(own, 'qps');
      return ownRatios.length ? timeSignal({ rqps: intervalOf(ownRatios), cpu_per_query: metricInterval(own, 'cpu_per_query_us') }, limits) : null;
    }));
    out.time_verdict = settledVerdict(time);
    signals.push(time);
    // I/O per query where the suite limits it: decided and recorded beside its figure (it does
    // not move the row's verdict yet).
    for (const key of IO_LIMIT_KEYS) {
      const figure = out.io && out.io[key];
      if (!limits[key] || !figure || !figure.ratio) continue;
      const io = signalOf('io', figure.ratio, limits[key], IO_LABEL[key]);
      figure.verdict = settledVerdict(io.span);
      figure.reason = io.clause;
    }
  } else {
    out.time_verdict = null;
  }
  let instructions = null;
  if (bench.instructions) {
    instructions = judgeInstructions(out, bench.instructions, limits);
    if (!instructions.error) {
      // Each pair of processes' own figures, of the queries' threads and of all threads.
      const pairs = pairsOfProcesses(extensions, WINDOW_STEP_WORDS, [bench.id]).map((stretch) => {
        const own = (side) => ({ ...side, windows: windowsOfStretch(side.windows, stretch) });
        return { ...stretch, figures: instructionFigures({ ...bench.instructions, base: own(bench.instructions.base), head: own(bench.instructions.head) }) };
      });
      const seen = worstPairOfProcesses(pairs, (pair) => pair.figures.connection && signalOf('instructions', pair.figures.connection, limits.instructions));
      instructions = withAllThreads(instructions, seen, out, bench.instructions, limits.instructions, pairs);
      out.instructions_verdict = settledVerdict(instructions);
    }
    if (!instructions.error) signals.push(instructions);
  }
  if (!time && !instructions) {
    out.reason = 'nothing measured: no timed rounds and no instruction windows';
    return out;
  }
  if (instructions && instructions.error) {
    out.reason = instructions.error;
    return out;
  }
  const row = rowVerdict({ time, instructions });
  out.verdict = row.verdict;
  out.open = row.open;
  out.needs = row.needs;
  out.decided_by = row.decidedBy;
  const told = explain(row, signals);
  out.reason = told.reason;
  out.headline_phrase = told.phrase;
  return out;
}

// A window that ran no queries, or counted nothing on the queries' own threads, or a side with
// a window the other lacks, measured something other than the benchmark: leaving it out would
// judge the rest as if it had not happened, so the row is an error, as a round with 0 QPS is.
function brokenWindow(instructions) {
  const { base, head } = instructions;
  if (base.windows.length !== head.windows.length) {
    return `instruction windows come in pairs, but the base counted ${base.windows.length} and the head ${head.windows.length}`;
  }
  for (const [side, { windows }] of [['base', base], ['head', head]]) {
    const at = windows.findIndex((w) => !(w.queries > 0));
    if (at >= 0) return `${side} instruction window ${at + 1}: sysbench completed no queries`;
    const empty = windows.findIndex((w) => !(w.connection.per_query > 0));
    if (empty >= 0) return `${side} instruction window ${empty + 1}: no instructions counted on the queries' own threads`;
  }
  return null;
}

// instr/o of the connection threads decides; the background threads' (the purge and flushing
// the queries leave behind) are reported beside it.
function judgeInstructions(out, instructions, limits) {
  if (!limits.instructions) {
    throw new UsageError(`limits for '${out.id}': instructions were counted but the suite sets no instructions limits; expected limits.default.instructions: {warn, fail}`);
  }
  // Checked before any figure is set: a row in error shows no interval of the windows left.
  const broken = brokenWindow(instructions);
  if (broken) {
    out.instructions_verdict = 'error';
    return { error: broken };
  }
  const figures = instructionFigures(instructions);
  out.instructions_per_query = figures.connection;
  out.background_per_query = figures.background;
  out.instructions = { per_query: figures.per_query, events: figures.events, windows: figures.windows, runs: instructions.runs || 1 };
  out.instructions_functions = whereInstructionsWent(instructions, figures.connection);
  if (!figures.connection) {
    out.instructions_verdict = 'error';
    return { error: 'no paired instruction windows' };
  }
  out.all_threads_per_query = figures.all;
  out.instructions_threads = 'connection';
  const signal = signalOf('instructions', figures.connection, limits.instructions);
  out.instructions_verdict = settledVerdict(signal.span);
  return signal;
}

/**
 * The instructions signal: the queries' own threads, with those of all threads where they
 * prove more. A regression placed in background work (purge, flushing) runs no instruction
 * on a connection thread, while on update-index_range=100 the purge the queries leave costs
 * about as much as the queries themselves. But background threads also run work of their own
 * that comes and goes (on MySQL 9.7 one window's all-threads ratio of an unchanged build
 * ranged 0.79-1.57), so their figure only ever proves, and only what every pair of server
 * processes proves on its own counts: chance must strike twice. What one pair proved beyond
 * that, of either figure, keeps the row open to it (`unconfirmed`); a proof of all threads
 * that no other pair repeats asks for a count on fresh processes.
 *
 * @param connection      the queries' own signal, every window pooled
 * @param connectionSeen  the worst one pair proved of it (worstPairOfProcesses), or null
 * @param pairs           each pair of processes that counted windows: {when, where, figures}
 *                        (its own instructionFigures), the first servers first
 */
function withAllThreads(connection, connectionSeen, out, measured, limits, pairs) {
  const level = (v) => LEVELS.indexOf(v);
  const own = out.all_threads_per_query ? pairs.filter((p) => p.figures.all).map((p) => ({ ...p, signal: signalOf('instructions_all', p.figures.all, limits) })) : [];
  const proved = own.length >= 2 ? own.map((p) => p.signal.best).reduce((a, b) => (level(a) <= level(b) ? a : b)) : 'pass';
  let signal = connection;
  if (level(proved) > level(connection.best)) {
    const pooled = signalOf('instructions_all', out.all_threads_per_query, limits);
    const worst = level(connection.worst) >= level(proved) ? connection.worst : proved;
    const each = { ...pooled, clause: `${pooled.clause}, and on each of its ${own.length} pairs of server processes on its own` };
    out.instructions_threads = 'all';
    out.instructions_functions = whereInstructionsWent(measured, out.all_threads_per_query, 10, ['connection', 'background']);
    signal = { ...each, best: proved, worst, parts: [each, connection] };
  }
  if (connectionSeen) signal = unconfirmed(signal, connectionSeen);
  const seen = own.reduce((a, p) => (!a || level(p.signal.best) > level(a.signal.best) ? p : a), null);
  const shown = Math.max(level(signal.best), signal.unconfirmed ? level(signal.unconfirmed.best) : 0);
  if (!seen || level(seen.signal.best) <= shown) return signal;
  out.instructions_recount = true;
  return unconfirmed(signal, { own: seen.signal, when: seen.when, where: seen.where });
}

/** The typical QPS of one side of a judged benchmark: the geometric mean of its rounds (null when none). */
function sideQps(judged, side) {
  return geometricMean(judged.qps.filter((r) => r.side === side).map((r) => r.qps));
}

// AHI suite: the benchmarks come in on/off pairs per cell (workload × threads). Each side's
// AHI gain is QPS(on)/QPS(off); the head's gain relative to the base's is, round by round,
// rQPS(on)_i / rQPS(off)_i, so it is judged from paired ratios like any other ratio.
function ahiCells(judged, config, extensions = []) {
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
      const on = sideQps(c.on, side);
      const off = sideQps(c.off, side);
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
      let gain = signalOf('gain', cell.gain_ratio, limits);
      gain = unconfirmed(gain, worstPairOfProcesses(pairsOfProcesses(extensions, TIMED_STEP_WORDS, [c.on.id, c.off.id]), (stretch) => {
        const own = ratios.filter((r) => inStretch(r.index, stretch));
        return own.length ? signalOf('gain', intervalOf(own), limits) : null;
      }));
      const row = rowVerdict({ time: gain });
      cell.verdict = row.verdict;
      cell.open = row.open;
      cell.needs = row.needs;
      cell.reason = (gain.parts || [gain]).map((part) => part.clause).join('; ');
      if (gain.unconfirmed) cell.headline_phrase = unconfirmedPhrase(gain.unconfirmed);
    }
    out.push(cell);
  }
  return out;
}

const listed = (items, fmt, max = 3) => {
  const shown = items.slice(0, max).map(fmt);
  if (items.length > max) shown.push(`${items.length - max} more`);
  if (shown.length === 1) return shown[0];
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
};

// One sentence saying what got slower (or why there is no answer), naming for every row the
// signal and the limit that decided it. Pinned by tests.
function headline(overall, items, runError) {
  const total = items.length;
  const by = (v) => items.filter((b) => b.verdict === v);
  const said = (b) => {
    const what = b.gain_ratio ? `${b.name} (${b.threads} threads) AHI gain` : b.id;
    if (b.headline_phrase) return `${what}: ${b.headline_phrase}`;
    // AHI gain cells: one ratio, judged like rQPS.
    const i = b.gain_ratio || b.rqps;
    const word = b.verdict === 'fail' ? 'fail' : 'warn';
    const limit = b.verdict === 'inconclusive' ? 'fail' : word;
    const fig = i && i.low !== null ? `(${b.gain_ratio ? 'gain ratio' : 'rQPS'} ${f2(i.estimate)} ${range(i)}, ${limit} limit ${f2(b.limits[limit])})` : '';
    // A gain ratio below 1 says the head gains less from AHI than the base, not that it is
    // slower (both sides may be faster with AHI on and off alike).
    const lower = b.gain_ratio ? `${pct(i.estimate)} lower` : `${pct(i.estimate)} slower`;
    const how = b.verdict === 'inconclusive' || b.open ? `could be beyond its ${limit} limit` : i && i.estimate < 1 ? lower : `beyond its ${word} limit`;
    return `${what}: ${how} ${fig}`.trim();
  };
  const open = items.filter((b) => b.verdict === 'pass' && b.open);
  const openNote = open.length
    ? ` ${open.length === 1 ? 'One row' : `${open.length} rows`} could still be beyond the warn limit (interval open within the budget): ${listed(open, said)}.`
    : '';
  switch (overall) {
    case 'error': {
      if (runError) return `No verdict: ${runError}.`;
      const e = by('error');
      return `No verdict for ${listed(e, (b) => `${b.id} (${b.reason})`, 2)}: the measurement failed.`;
    }
    case 'fail': {
      const u = by('inconclusive');
      const rest = u.length ? `; undecided: ${listed(u, said, 2)}` : '';
      return `Slower: ${listed(by('fail'), said)}${rest}.`;
    }
    case 'inconclusive': {
      const u = by('inconclusive');
      const w = by('warn');
      const warned = w.length ? ` Slightly slower: ${listed(w, said)}.` : '';
      // What more would decide: rounds for time, windows for instructions.
      const needed = new Set(u.flatMap((b) => b.needs || []));
      const more = needed.has('instructions') ? (needed.has('time') ? 'more rounds or instruction windows' : 'more instruction windows') : 'more rounds';
      return `Undecided: ${listed(u, said)}; ${u.length === 1 ? 'its interval stays' : 'their intervals stay'} open within the budget: ${more} than it allows would decide.${warned}`;
    }
    case 'warn':
      return `Slightly slower, within the fail limit: ${listed(by('warn'), said)}.${openNote}`;
    default: {
      if (open.length) return `Nothing is beyond its fail limit, but ${open.length} of ${total} ${total === 1 ? 'comparison' : 'comparisons'} could still be beyond the warn limit (interval open within the budget): ${listed(open, said)}.`;
      const all = `all ${total} ${total === 1 ? 'comparison passes' : 'comparisons pass'}`;
      // Instructions miss what waits (locks, I/O, fsync, sleeps): rows that were not timed
      // cannot say that nothing got slower.
      const untimed = items.filter((b) => !b.rqps && !b.gain_ratio).length;
      if (untimed === total) return `No more instructions per query than the warn limit: ${all} (time was not measured: waits, locks and I/O run no instructions).`;
      const note = untimed ? ` (${untimed} of them on instructions alone: not timed)` : '';
      return `Nothing got slower than the warn limit: ${all}${note}.`;
    }
  }
}

// A side that failed as a whole (its server did not start, prepare failed, it crashed between
// benchmarks) leaves nothing to compare: the run is an error, never a verdict.
// (In merged shards such an error carries its shard and concerns that shard's rows only.)
function failedSide(results) {
  const e = (results.errors || []).find((x) => x.side && !x.benchmark && !x.shard);
  return e ? `the ${e.side} server failed${e.step ? ` (${e.step})` : ''}: ${e.message}` : null;
}

// Figures so small or large that a head/base ratio leaves the floating-point range (1e-320 QPS)
// were not measured by a harness: the row is an error naming them, not a crash of the judge.
function judgedOrOutOfRange(bench, limits, judgeRow) {
  try {
    return judgeRow();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const row = { id: bench.id, name: bench.name, group: bench.group, threads: bench.threads ?? null, ahi: bench.ahi ?? null, limits,
      rounds: { base: 0, head: 0, pairs: 0 }, cpu_per_query: null, cs_per_query: null, qps: [] };
    return withdrawn(row, `figures out of range: ${err.message}; expected figures a measurement gives`);
  }
}

// A row whose figures cannot stand (its side failed as a whole): an error, with no interval and
// no signal's word left to be read as a result.
function withdrawn(row, reason) {
  Object.assign(row, { verdict: 'error', reason, rqps: null, time_verdict: null, open: false, needs: [] });
  for (const key of ['instructions_verdict', 'instructions_threads', 'instructions_recount', 'decided_by', 'headline_phrase']) delete row[key];
  for (const key of ['instructions_per_query', 'all_threads_per_query', 'background_per_query']) if (key in row) row[key] = null;
  return row;
}

// A run the harness did not finish is no measurement, whatever rounds it kept.
function unfinishedRun(run) {
  if (run.status === 'cancelled') {
    const why = (run.errors || []).find((e) => e.step === 'cancelled');
    return `the run was cancelled${why ? `: ${why.message}` : ''}; a cancelled run carries no verdict`;
  }
  return null;
}

function judge(results, config = {}, options = {}) {
  const docs = Array.isArray(results) ? results : [results];
  const run = mergeResults(docs, { allowDifferentMachines: options.allowDifferentMachines });
  const runErrors = run.errors || [];
  const sideFailure = unfinishedRun(run) || failedSide(run);
  const timePlanned = ((run.plan && run.plan.measure && run.plan.measure.signals) || []).includes('time');
  const judged = run.benchmarks.map((b) => {
    const limits = limitsFor(config, b);
    const j = judgedOrOutOfRange(b, limits, () => judgeBenchmark(b, limits, runErrors, run.extensions || [], timePlanned));
    // Nothing of the row stands once a side failed as a whole: no interval and no signal's word.
    if (sideFailure && j.verdict !== 'error') withdrawn(j, sideFailure);
    return j;
  });
  const ahi = ahiCells(judged, config, run.extensions || []);
  const items = [...judged.filter((b) => !b.ahi), ...judged.filter((b) => b.ahi), ...ahi];
  let runError = sideFailure;
  if (!runError && run.status === 'error' && !judged.some((b) => b.verdict === 'error')) {
    runError = runErrors.length ? errorText(runErrors[0]) : 'the harness reported an error without details';
  }
  if (!runError && !judged.length) runError = 'the results hold no benchmarks';
  // A planned row the results do not hold was never judged: what it hides could be a fail, and
  // no headline may count the rows that are there as all of them. (A merge of some shards says
  // what shards it lacks in its own words below.)
  const planned = ((run.plan && run.plan.benchmarks) || []).map((b) => b.id);
  const judgedIds = new Set(judged.map((b) => b.id));
  // (A merge's plan lists the shards it holds, so a shard that lost a row is caught too.)
  const missing = planned.filter((id) => !judgedIds.has(id));
  if (!runError && missing.length) runError = `the results hold no rounds or windows of ${missing.length} planned microbenchmark${missing.length === 1 ? '' : 's'} (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''})`;
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

/**
 * One microbenchmark's row from its record alone, as judge() would write it in a run without
 * errors: what a harness asks about while the row's servers are still up (next-step.js,
 * roundsNow).
 * @param bench   a perfgate.results/v1 benchmark record
 * @param config  {limits} | suite, as judge() takes it
 */
function judgeRow(bench, config = {}, { timePlanned = true } = {}) {
  const limits = limitsFor(config, bench);
  return judgedOrOutOfRange(bench, limits, () => judgeBenchmark(bench, limits, [], [], timePlanned));
}

module.exports = { judge, judgeRow, sideQps, decide, clause, headline, worst, PRECEDENCE, EXIT_OF, CONFIDENCE };
