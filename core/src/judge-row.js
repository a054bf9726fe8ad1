'use strict';
// One microbenchmark's row of a verdict from its record in the results: every figure a report
// shows, each signal judged pooled and on each pair of server processes, and the row's verdict
// by the rule (row-verdict.js), said in words (verdict-words.js). A signal unstable on main
// (docs/verdicts.md#limits-learned-from-main) is shown and left out of the verdict.
const { UsageError } = require('./errors');
const { pairedRatios, pairedInterval, metricInterval } = require('./statistics');
const { instructionFigures, whereInstructionsWent } = require('./instructions');
const { settledVerdict, rowVerdict } = require('./row-verdict');
const { ioFigures, latencyP95, memoryFigure, IO_LIMIT_KEYS, IO_LABEL } = require('./per-query');
const { signalOf, timeSignal } = require('./row-signals');
const { pairsOfProcesses, inStretch, windowsOfStretch, worstPairOfProcesses, unconfirmed, withAllThreads } = require('./process-pairs');
const { recordProblem, noPairs, brokenWindow } = require('./row-errors');
const { clauseOf, clausesOf, explain, spreadWords } = require('./verdict-words');

// The time signal of every round pooled, held to what each pair of processes proved alone.
function judgeTime(out, rounds, limits, extensions, id) {
  let time = timeSignal(out, limits);
  time = unconfirmed(time, worstPairOfProcesses(pairsOfProcesses(extensions, 'rounds', [id]), (stretch) => {
    const own = rounds.filter((r) => inStretch(r.index, stretch));
    const ownRatios = pairedRatios(own, 'qps');
    return ownRatios.length ? timeSignal({ rqps: pairedInterval(ownRatios), cpu_per_query: metricInterval(own, 'cpu_per_query_us'), memory: memoryFigure(own) }, limits) : null;
  }));
  out.time_verdict = settledVerdict(time);
  const memory = time.parts.find((s) => s.kind === 'memory');
  if (memory) out.memory.reason = clauseOf(memory);
  // I/O per query where the suite limits it: decided and recorded beside its figure (it does
  // not move the row's verdict yet).
  for (const key of IO_LIMIT_KEYS) {
    const figure = out.io && out.io[key];
    if (!limits[key] || !figure || !figure.ratio) continue;
    const io = signalOf('io', figure.ratio, limits[key], IO_LABEL[key]);
    figure.verdict = settledVerdict(io.span);
    figure.reason = clauseOf(io);
  }
  return time;
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

// The instructions signal pooled, with all threads' where every pair proves more, held to what
// each pair of processes proved alone.
function judgeCounted(out, counted, limits, extensions, id) {
  let instructions = judgeInstructions(out, counted, limits);
  if (instructions.error) return instructions;
  // Each pair of processes' own figures, of the queries' threads and of all threads.
  const pairs = pairsOfProcesses(extensions, 'windows', [id]).map((stretch) => {
    const own = (side) => ({ ...side, windows: windowsOfStretch(side.windows, stretch) });
    return { ...stretch, figures: instructionFigures({ ...counted, base: own(counted.base), head: own(counted.head) }) };
  });
  const seen = worstPairOfProcesses(pairs, (pair) => pair.figures.connection && signalOf('instructions', pair.figures.connection, limits.instructions));
  instructions = withAllThreads(instructions, seen, out, counted, limits.instructions, pairs);
  out.instructions_verdict = settledVerdict(instructions);
  return instructions;
}

/**
 * @param bench        a perfgate.results/v1 benchmark record
 * @param limits       its limits (row-limits.js)
 * @param runErrors    the run's errors (a benchmark's own make its row an error)
 * @param extensions   the steps on fresh server processes that measured it (results' extensions)
 * @param timePlanned  whether the plan times rows: a row without timed rounds is then an error
 */
function judgeRecord(bench, limits, runErrors, extensions = [], timePlanned = false) {
  const rounds = bench.rounds || [];
  const count = (side) => rounds.filter((r) => r.side === side).length;
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
    memory: memoryFigure(rounds),
    qps: rounds.map((r) => ({ index: r.index, side: r.side, qps: r.qps, started: r.started ?? null })),
    command: bench.command ?? null,
    verdict: 'error',
    reason: '',
  };
  const problem = recordProblem(bench, runErrors, timePlanned);
  if (problem) {
    out.reason = problem;
    return out;
  }
  const signals = [];
  let time = null;
  if (rounds.length > 0) {
    const ratios = pairedRatios(rounds, 'qps');
    if (!ratios.length) {
      out.reason = noPairs(rounds);
      return out;
    }
    out.rounds.pairs = ratios.length;
    out.rqps = pairedInterval(ratios);
    time = judgeTime(out, rounds, limits, extensions, bench.id);
    signals.push(time);
  } else {
    out.time_verdict = null;
  }
  const instructions = bench.instructions ? judgeCounted(out, bench.instructions, limits, extensions, bench.id) : null;
  if (instructions && !instructions.error) signals.push(instructions);
  if (!time && !instructions) {
    out.reason = 'nothing measured: no timed rounds and no instruction windows';
    return out;
  }
  if (instructions && instructions.error) {
    out.reason = instructions.error;
    return out;
  }
  const unstable = unstableSignals(limits, { time, instructions });
  const judged = signals.filter((s) => !unstable.some((u) => u.judged === s));
  // An unstable cpu/o took the row's cpu/o limit away (row-limits.js): listed with the others,
  // and its cpu/o reads undecided, so that main's later runs still count it as judged by cpu/o
  // (learned-limits.js learns cpu/o where a row has a cpu_verdict).
  const cpuUnstable = (limits.unstable || []).filter((u) => u.signal === 'cpu');
  if (cpuUnstable.length) out.cpu_verdict = 'undecided';
  const listed = [...unstable, ...cpuUnstable];
  // whole_row: no signal is left to judge it, so it never decides the run by itself (verdict.js).
  if (listed.length) out.unstable = { signals: listed.map(({ signal, runs, p99 }) => ({ signal, runs, p99 })), whole_row: !judged.length };
  if (!judged.length) {
    // Main's own runs spread beyond any useful limit: the row decides nothing by itself.
    Object.assign(out, { verdict: 'undecided', could_be: null, needs: [], decided_by: [] });
    out.reason = `unstable: ${spreadWords(listed)}: ${clausesOf(signals)}`;
    out.headline_phrase = spreadWords(listed);
    return out;
  }
  const row = rowVerdict({ time: judged.includes(time) ? time : null, instructions: judged.includes(instructions) ? instructions : null });
  out.verdict = row.verdict;
  out.could_be = row.open ? row.worst : null;
  out.needs = row.needs;
  out.decided_by = row.decidedBy;
  const told = explain(row, judged);
  out.reason = listed.length ? `${told.reason}; unstable: ${spreadWords(listed)}, not judged by it` : told.reason;
  out.headline_phrase = told.phrase;
  return out;
}

// The signals of a row whose limits say main's runs spread beyond any useful limit
// (row-limits.js, from learned/<suite>.yml), each with the judged signal it stands for.
function unstableSignals(limits, { time, instructions }) {
  const of = { rqps: time, instructions };
  return (limits.unstable || []).filter((u) => of[u.signal]).map((u) => ({ ...u, judged: of[u.signal] }));
}

module.exports = { judgeRecord };
