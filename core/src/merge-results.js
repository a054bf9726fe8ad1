'use strict';
// The one merge of results documents: a first run and its extra rounds (the compare loop),
// several runs of one comparison handed to `perfgate judge`, or the shards of one suite run on
// several runners (`perfgate merge`). Refuses what must not be judged together; the output is a
// perfgate.results/v1 document holding every round once.
const { UsageError } = require('./errors');
const { assertValid } = require('./schemas');
const { shardLayout, shardFields, shardErrors } = require('./shards');

const nameOf = (doc, i) => (doc && doc.__file) || `results #${i + 1}`;
const suiteOf = (doc) => (doc.plan && doc.plan.suite) || null;
const serverLine = (s) => `${s.version}${s.commit ? ` @ ${s.commit}` : ''}`;

// Shards may come from different runners of one machine class (runners of a matrix share a
// label, not a fingerprint); other merges need the same machine.
function machineKey(doc, byClass) {
  const m = doc.machine || {};
  return byClass && m.hardware_class ? ['machine.hardware_class', m.hardware_class] : ['machine.id', m.id || null];
}

// How a run counted instructions: what it left out (nothing before client reads were) and the
// malloc it counted on; null for a run that counted none. The verdict records it (run.counted).
function countedOf(doc) {
  const phase = doc.instructions;
  if (!phase) return null;
  return { left_out: phase.left_out || [], malloc: (phase.malloc && phase.malloc.name) || null };
}
const countedWords = ({ left_out: leftOut, malloc }) => `${JSON.stringify(leftOut)} on ${JSON.stringify(malloc)}`;

function refuseMismatch(docs, { allowDifferentMachines, byClass = false }) {
  const first = docs[0];
  docs.forEach((d, i) => {
    if (!d || d.schema !== 'perfgate.results/v1') {
      throw new UsageError(`${nameOf(d, i)}: key 'schema' is ${JSON.stringify(d && d.schema)}, expected "perfgate.results/v1"`);
    }
    if (i === 0) return;
    const [key, a] = machineKey(first, byClass);
    const [, b] = machineKey(d, byClass);
    if (a !== b && !allowDifferentMachines) {
      const what = key === 'machine.id' ? 'machines' : 'machine classes';
      throw new UsageError(`${nameOf(d, i)}: key '${key}' is ${JSON.stringify(b)} but ${nameOf(first, 0)} has ${JSON.stringify(a)}: timings from different ${what} are not comparable (pass --allow-different-machines to ${byClass ? 'merge' : 'judge'} them anyway)`);
    }
    const [shardA, shardB] = [first, d].map((x) => (x.plan && x.plan.shard ? x.plan.shard.index : null));
    if (!byClass && shardA !== shardB) {
      throw new UsageError(`${nameOf(d, i)}: key 'plan.shard.index' is ${JSON.stringify(shardB)} but ${nameOf(first, 0)} has ${JSON.stringify(shardA)}: the shards of a suite are joined by perfgate merge`);
    }
    const [countA, countB] = [first, d].map(countedOf);
    if (countA && countB && countedWords(countA) !== countedWords(countB)) {
      throw new UsageError(`${nameOf(d, i)}: key 'instructions.left_out and instructions.malloc.name' is ${countedWords(countB)} but ${nameOf(first, 0)} has ${countedWords(countA)}: instruction counts made differently are not comparable; measure both again with one perfgate`);
    }
    if (suiteOf(d) !== suiteOf(first)) {
      throw new UsageError(`${nameOf(d, i)}: key 'plan.suite' is ${JSON.stringify(suiteOf(d))} but ${nameOf(first, 0)} has ${JSON.stringify(suiteOf(first))}: different suites cannot be judged together`);
    }
    // Rounds pair by side name: a chain's head2 joined to a comparison of two sides would be
    // read as its head.
    const names = (x) => Object.keys(x.sides || {}).join(', ');
    if (names(d) !== names(first)) {
      throw new UsageError(`${nameOf(d, i)}: key 'sides' holds ${names(d)} but ${nameOf(first, 0)} holds ${names(first)}: only runs of the same sides can be judged together`);
    }
    for (const side of Object.keys(first.sides)) {
      const x = first.sides[side];
      const y = d.sides[side];
      if (x.version !== y.version || (x.commit || null) !== (y.commit || null)) {
        throw new UsageError(`${nameOf(d, i)}: key 'sides.${side}' is ${serverLine(y)} but ${nameOf(first, 0)} has ${serverLine(x)}: not the same ${side} server`);
      }
      // Without a commit, what names a build is how it was built: the version line, the
      // compiler and the cmake options recorded (not where it is installed: a prefix can move).
      const built = (z) => (z.build ? JSON.stringify([z.build.version_line ?? null, z.build.compiler ?? null, z.build.cmake_options ?? null]) : null);
      if (!x.commit && built(x) && built(y) && built(x) !== built(y)) {
        throw new UsageError(`${nameOf(d, i)}: key 'sides.${side}.build' is ${built(y)} but ${nameOf(first, 0)} has ${built(x)}: two builds of one version; not the same ${side} server`);
      }
    }
  });
}

function addCounters(a = {}, b = {}) {
  const out = { ...a };
  for (const [key, value] of Object.entries(b)) {
    out[key] = typeof value === 'number' && typeof out[key] === 'number' ? out[key] + value : value;
  }
  return out;
}

// Windows counted by a later run (fresh server processes, same seed and events) join the
// earlier ones: window i of the base still pairs with window i of the head, because every run
// counts as many windows on each side. `runs` says on how many pairs of processes they were
// counted; the functions that grew are those of the latest count.
function mergeInstructions(earlier, later) {
  if (!earlier) return later;
  const side = (a, b) => ({ ...b, windows: [...(a.windows || []), ...(b.windows || [])] });
  return { ...later, runs: (earlier.runs || 1) + (later.runs || 1), base: side(earlier.base, later.base), head: side(earlier.head, later.head) };
}

// What a window counted, without when or how long it took: a copy of a count whose seconds
// were changed is still the same count.
const windowCount = (w) => JSON.stringify([w.events, w.queries, w.connection && w.connection.instructions, w.background && w.background.instructions]);

// Windows carry no index (they pair by position), so a count merged twice would pass the
// round check and pair every window twice: an interval as narrow as twice the windows counted.
// Real windows never repeat exactly (the background threads' instructions differ from one
// count to the next): a pair of base and head windows that one before it matches exactly is
// the same count, whatever its order or whichever windows were left out of it.
function holdsWindows(earlier, later) {
  const pairs = (ins) => (ins.base.windows || []).map((w, i) => JSON.stringify([windowCount(w), windowCount((ins.head.windows || [])[i] || {})]));
  const seen = new Set(pairs(earlier));
  return pairs(later).some((p) => seen.has(p));
}

// What a round measured, without its index or start: another run's rounds are other
// measurements, and two real rounds never agree in all of these (queries served, QPS to the
// hundredth, CPU time and context switches per query), so a round that does is a copy of one
// already counted, renumbered: counted again, it would narrow the interval with no new data.
// Rounds without the queries and latencies the harness records (hand-made ones) are too
// bare to tell apart and are left to the index check.
const roundMeasured = (r) => (Number.isInteger(r.queries) && r.latency_ms ? JSON.stringify([r.side, r.queries, r.qps, r.cpu_per_query_us, r.cs_per_query, r.latency_ms.avg, r.latency_ms.p95, r.latency_ms.max]) : null);

// The round of `measured` (what each round measured -> the round) that measured what `r` did,
// if any; `r` is recorded for the rounds after it.
function sameMeasurement(measured, r) {
  const key = roundMeasured(r);
  if (key === null) return null;
  const same = measured.get(key);
  if (!same) measured.set(key, r);
  return same || null;
}

// A round is one side's at one index: a document that has one twice would pair by whichever
// came last.
function refuseRepeatedRounds(doc, docName) {
  const sides = Object.keys(doc.sides || {});
  for (const b of doc.benchmarks || []) {
    const seen = new Set();
    const measured = new Map();
    for (const r of b.rounds || []) {
      // A round of a side the run did not have would be read as another side's.
      if (sides.length && !sides.includes(r.side)) throw new UsageError(`${docName}: benchmark '${b.id}' has a round of side '${r.side}', which its key 'sides' does not hold (${sides.join(', ')})`);
      const key = `${r.side}\u0000${r.index}`;
      if (seen.has(key)) throw new UsageError(`${docName}: benchmark '${b.id}' has ${r.side} round ${r.index} twice; expected each side's round index once`);
      seen.add(key);
      const same = sameMeasurement(measured, r);
      if (same) throw new UsageError(`${docName}: benchmark '${b.id}' has ${r.side} round ${r.index}, which measured exactly what its ${same.side} round ${same.index} measured: the same round twice; expected each round once`);
    }
  }
}

/**
 * The record of a document's rounds and windows of benchmarks that earlier documents already
 * hold, when nothing else records them (`perfgate judge --results` of two runs): another run
 * is other server processes, so its rounds are judged like extra rounds on fresh servers, and
 * a fail of the earlier ones is not pooled away (process-pairs.js). Its rounds must continue the
 * earlier numbering: rounds pair by index, and "before" is "below its first index".
 */
function rerunRecord(doc, docName, seen) {
  const again = doc.benchmarks.filter((b) => seen.has(b.id));
  if (!again.length) return null;
  let last = -1;
  for (const b of seen.values()) for (const r of b.rounds) last = Math.max(last, r.index);
  const indices = again.flatMap((b) => (b.rounds || []).map((r) => r.index));
  const first = indices.length ? Math.min(...indices) : last + 1;
  if (first <= last) {
    throw new UsageError(`${docName}: its rounds of '${again[0].id}' start at index ${first}, not after the last index ${last} of the results before it; expected another run's rounds to continue the numbering (plan.measure.first_round)`);
  }
  const perSide = (b) => Math.max(...['base', 'head'].map((side) => (b.rounds || []).filter((r) => r.side === side).length));
  // The run's first windows only: the windows of the steps it recorded itself (count, recount)
  // come after them and are recorded apart, after this record; counted here as well, they
  // would push the start of the earlier run's windows back past its own.
  const ownSteps = (b) => (doc.extensions || []).filter((e) => e.windows && e.benchmarks.includes(b.id)).reduce((n, e) => n + e.windows, 0);
  const firstWindows = (b) => (b.instructions && b.instructions.base ? Math.max(0, (b.instructions.base.windows || []).length - ownSteps(b)) : 0);
  const windows = Math.max(0, ...again.map(firstWindows));
  return { file: docName, purpose: 'rerun', first_round: first, rounds: Math.max(...again.map(perSide)), ...(windows ? { windows } : {}), benchmarks: again.map((b) => b.id) };
}

function mergeBenchmark(into, more, docName) {
  const measured = new Map();
  into.rounds.forEach((r) => sameMeasurement(measured, r));
  for (const r of more.rounds || []) {
    if (into.rounds.some((s) => s.side === r.side && s.index === r.index)) {
      throw new UsageError(`${docName}: benchmark '${more.id}' has ${r.side} round ${r.index} twice: extra rounds must continue the numbering (plan.measure.first_round)`);
    }
    const same = sameMeasurement(measured, r);
    if (same) {
      throw new UsageError(`${docName}: benchmark '${more.id}' has ${r.side} round ${r.index}, which measured exactly what ${same.side} round ${same.index} of the results before it measured: the same round merged twice (a copy of a run, renumbered); expected each run's results once`);
    }
    into.rounds.push(r);
  }
  if (more.status === 'error') {
    into.status = 'error';
    if (more.error) into.error = more.error;
  }
  if (more.instructions && into.instructions && holdsWindows(into.instructions, more.instructions)) {
    throw new UsageError(`${docName}: benchmark '${more.id}' has instruction windows the results before it already hold: the same count merged twice (a run folder's results.json already holds its results.extra-N.json)`);
  }
  if (more.instructions) into.instructions = mergeInstructions(into.instructions, more.instructions);
  if (!into.command && more.command) into.command = more.command;
  if (more.ahi_counters) {
    // Every side's counters: a chain's further heads (head2, ...) count theirs too.
    const sides = [...new Set(['base', 'head', ...Object.keys(into.ahi_counters || {}), ...Object.keys(more.ahi_counters)])];
    into.ahi_counters = Object.fromEntries(sides.map((side) => [side, addCounters(into.ahi_counters && into.ahi_counters[side], more.ahi_counters[side])]));
  }
}

/**
 * @param docs     perfgate.results/v1 documents of one comparison, the first one first
 * @param options  {allowDifferentMachines, extension, shards, allowPartial}: `extension` records
 *                 the last document as extra rounds ({file, purpose, first_round, rounds,
 *                 benchmarks}) in the merged document's `extensions`; `shards` says the documents
 *                 are shards of one suite (plan.shard): they may come from runners of one
 *                 machine class, are put back in the suite's order, and the merged document
 *                 records them in `shards`; missing shards are refused unless `allowPartial`
 * @returns a new perfgate.results/v1 document; the inputs are not modified
 */
function mergeResults(docs, { allowDifferentMachines = false, extension = null, shards = false, allowPartial = false } = {}) {
  if (!docs.length) throw new UsageError('no results to merge');
  refuseMismatch(docs, { allowDifferentMachines, byClass: shards });
  const layout = shards ? shardLayout(docs, docs.map(nameOf), { allowPartial }) : null;
  const [first] = docs;
  docs.forEach((d, i) => refuseRepeatedRounds(d, nameOf(d, i)));
  if (docs.length === 1 && !extension && !layout) return first;
  if (extension) {
    const earlier = new Set(docs.slice(0, -1).flatMap((d) => d.benchmarks.map((b) => b.id)));
    const unknown = docs[docs.length - 1].benchmarks.map((b) => b.id).find((id) => !earlier.has(id));
    if (unknown) throw new Error(`internal: ${extension.file} has '${unknown}', which the results it extends do not`);
  }
  const benchmarks = new Map();
  // Per document, in order: the record of its rounds when nothing else records them, then the
  // steps it recorded itself.
  const extensions = [];
  docs.forEach((d, i) => {
    // A cancelled shard counts as missing (shards.js): rows it holds from before the cancel
    // were not finished and are not shown beside the others.
    if (layout && d.status === 'cancelled') return;
    const recorded = extension && i === docs.length - 1;
    const rerun = layout || recorded ? null : rerunRecord(d, nameOf(d, i), benchmarks);
    if (rerun) extensions.push(rerun);
    extensions.push(...(d.extensions || []).map((e) => (layout ? { ...e, file: `${nameOf(d, i)}/${e.file}` } : e)));
    if (recorded) extensions.push(extension);
    for (const b of d.benchmarks) {
      const seen = benchmarks.get(b.id);
      if (seen) mergeBenchmark(seen, b, nameOf(d, i));
      else benchmarks.set(b.id, { ...b, rounds: [...(b.rounds || [])] });
    }
  });
  const merged = {
    ...first,
    // A cancelled run joined to others is still cancelled (shards count theirs as missing).
    status: docs.some((d) => d.status === 'error') ? 'error' : (!layout && docs.some((d) => d.status === 'cancelled')) ? 'cancelled' : 'ok',
    errors: docs.flatMap((d) => (layout ? shardErrors(d, layout.count) : d.errors || [])),
    warnings: docs.flatMap((d) => d.warnings || []),
    finished: docs[docs.length - 1].finished ?? first.finished,
    benchmarks: [...benchmarks.values()],
    extensions,
  };
  if (layout) Object.assign(merged, shardFields(layout, docs, docs.map(nameOf), merged));
  return assertValid('results', merged, 'the merged results');
}

// The first round index of the next extension: after every index used so far, so that base i
// and head i always come from the same interleaved pair.
function nextRoundIndex(results) {
  let max = -1;
  for (const b of results.benchmarks) for (const r of b.rounds || []) max = Math.max(max, r.index);
  return max + 1;
}

module.exports = { mergeResults, nextRoundIndex, countedOf };
