'use strict';
// Splitting one suite over several runners (`perfgate compare --shard K/N`), and what a merge
// of the shards' results must know about them. Pure.
//
// Each shard loads its own copy of the tables and runs its part of the plan in the plan's
// order, so a shard is a small run of the same suite. What must hold:
//   - every microbenchmark of the plan runs in exactly one shard;
//   - a `.pre` microbenchmark and its twin (the same name without `.pre`) run in one shard, so
//     that the pair compares one copy of the data before and after the writes; the AHI on and
//     off cells of one workload and thread count do too, since the AHI gain pairs their rounds;
//   - a read the suite runs after writes (a post read) has writes before it in its shard: the
//     writes that come before such reads are dealt out first, one to each shard in turn;
//   - the rest is balanced by the number of microbenchmarks (every one has the same rounds and
//     seconds, so the count is the time), larger units first; ties go to the lower shard.
// The split depends on the plan's benchmarks alone, so every runner computes the same one.
const { UsageError } = require('./errors');

// `point-query.pre_range=100` is measured on freshly loaded tables; its twin is
// `point-query_range=100`, measured after the writes.
const PRE = /\.pre(?=_|$)/;
const isPre = (name) => PRE.test(name);
const twinName = (name) => name.replace(PRE, '');

const SHARD_FORM = 'expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4';

/** '2/4' → {index: 2, count: 4}; anything else is a UsageError naming --shard. */
function parseShard(raw) {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(raw));
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard '${raw}': ${m && count >= 1 ? `shard ${index} of ${count} does not exist` : 'not of the form K/N'}; ${SHARD_FORM}`);
  }
  return { index, count };
}

// The units that must stay together, in plan order: [{key, ids, positions, writes, postReads}].
function unitsOf(benchmarks) {
  const units = new Map();
  let writesSoFar = 0;
  benchmarks.forEach((b, position) => {
    const key = `${twinName(b.name)}@${b.threads ?? ''}`;
    if (!units.has(key)) units.set(key, { key, ids: [], first: position, writes: [], postReads: [] });
    const unit = units.get(key);
    unit.ids.push(b.id);
    if (b.kind === 'write') {
      unit.writes.push(position);
      writesSoFar += 1;
    } else if (writesSoFar > 0) {
      unit.postReads.push(position);
    }
  });
  return [...units.values()];
}

/**
 * The ids of every shard: shardPlan(benchmarks, n)[k - 1] are the ids shard k/n runs, in plan
 * order. `benchmarks` are a plan's benchmarks ({id, name, kind, threads}), in plan order.
 * A count the suite cannot be split into is a UsageError naming --shard.
 */
function shardPlan(benchmarks, count, { suiteName = 'the suite', asked = `K/${count}` } = {}) {
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`--shard: ${count} shards; ${SHARD_FORM}`);
  const units = unitsOf(benchmarks);
  const lastPostRead = Math.max(-1, ...units.flatMap((u) => u.postReads));
  // Writes that run before some post read: each shard needs one of those.
  const leading = units.filter((u) => u.writes.length && u.writes[0] < lastPostRead);
  const max = lastPostRead >= 0 ? Math.min(units.length, leading.length) : units.length;
  if (count > max) {
    const why = lastPostRead >= 0
      ? `each shard needs one of the ${leading.length} writes that run before the reads after writes`
      : `it has ${units.length} microbenchmarks that can run apart`;
    throw new UsageError(`--shard '${asked}': suite ${suiteName} splits into at most ${max} shards (${why}); expected N <= ${max}`);
  }
  const shards = Array.from({ length: count }, () => ({ units: [], load: 0, firstWrite: Infinity }));
  const place = (shard, unit) => {
    shard.units.push(unit);
    shard.load += unit.ids.length;
    if (unit.writes.length) shard.firstWrite = Math.min(shard.firstWrite, unit.writes[0]);
  };
  leading.forEach((unit, k) => place(shards[k % count], unit));
  const rest = units.filter((u) => !leading.includes(u)).sort((a, b) => b.ids.length - a.ids.length || a.first - b.first);
  for (const unit of rest) {
    // A unit with post reads goes where a write runs before the first of them.
    const allowed = shards.filter((s) => !unit.postReads.length || s.firstWrite < unit.postReads[0]);
    const target = allowed.reduce((best, s) => (s.load < best.load ? s : best));
    place(target, unit);
  }
  const position = new Map(benchmarks.map((b, i) => [b.id, i]));
  return shards.map((s) => s.units.flatMap((u) => u.ids).sort((a, b) => position.get(a) - position.get(b)));
}

/** The benchmarks shard index/count runs, in plan order. */
function shardOf(benchmarks, index, count, suiteName) {
  if (!Number.isInteger(index) || index < 1 || index > count) throw new UsageError(`--shard '${index}/${count}': shard ${index} of ${count} does not exist; ${SHARD_FORM}`);
  const ids = new Set(shardPlan(benchmarks, count, { suiteName, asked: `${index}/${count}` })[index - 1]);
  return benchmarks.filter((b) => ids.has(b.id));
}

const json = (x) => JSON.stringify(x);

// What a merge of shard results must refuse beyond what every merge refuses (mergeResults):
// results that are not shards, shards of different splits or suites, the same shard twice,
// shards of different scale or timing; and, unless a partial report is wanted, missing shards.
// `names` are the folders the results came from. Returns the layout the merge follows.
function shardLayout(docs, names, { allowPartial = false } = {}) {
  docs.forEach((d, i) => {
    if (!d.plan || !d.plan.shard) {
      throw new UsageError(`${names[i]}: key 'plan.shard' is missing: not the results of one shard (perfgate compare --shard K/N)`);
    }
  });
  const first = docs[0].plan;
  const byIndex = new Map();
  docs.forEach((d, i) => {
    const { shard } = d.plan;
    if (i > 0) {
      if (shard.count !== first.shard.count) {
        throw new UsageError(`${names[i]}: key 'plan.shard.count' is ${shard.count} but ${names[0]} has ${first.shard.count}: shards of different splits cannot be merged`);
      }
      const [a, b] = [first.shard.suite_benchmarks, shard.suite_benchmarks];
      const at = a.findIndex((id, k) => id !== b[k]);
      if (a.length !== b.length || at >= 0) {
        const where = at >= 0 ? `'${b[at] ?? '(none)'}' at position ${at + 1}` : `${b.length} microbenchmarks`;
        const theirs = at >= 0 ? `'${a[at]}'` : `${a.length}`;
        throw new UsageError(`${names[i]}: key 'plan.shard.suite_benchmarks' has ${where} but ${names[0]} has ${theirs}: the shards were split from different suites`);
      }
      for (const key of ['scale', 'measure']) {
        const { first_round: _a, pin_cpus: _b, ...mine } = d.plan[key] || {};
        const { first_round: _c, pin_cpus: _d, ...theirs } = first[key] || {};
        if (json(mine) !== json(theirs)) {
          throw new UsageError(`${names[i]}: key 'plan.${key}' is ${json(mine)} but ${names[0]} has ${json(theirs)}: shards of one comparison run at the same scale and timing`);
        }
      }
    }
    if (byIndex.has(shard.index)) {
      const k = byIndex.get(shard.index);
      throw new UsageError(`${names[i]}: key 'plan.shard.index' is ${shard.index} (shard ${shard.index}/${shard.count}) but so is ${names[k]}'s: the same shard twice`);
    }
    byIndex.set(shard.index, i);
  });
  const { count, suite_benchmarks: suiteIds } = first.shard;
  const measured = docs.map((d, i) => ({ doc: d, name: names[i] })).filter(({ doc }) => doc.status !== 'cancelled');
  const owner = new Map();
  for (const { doc, name } of measured) {
    for (const b of doc.plan.benchmarks) {
      if (owner.has(b.id)) throw new UsageError(`${name}: benchmark '${b.id}' is in shard ${doc.plan.shard.index}/${count} and in ${owner.get(b.id)}: the shards overlap`);
      owner.set(b.id, `${name} (shard ${doc.plan.shard.index}/${count})`);
    }
  }
  const present = new Set(measured.map(({ doc }) => doc.plan.shard.index));
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !present.has(k));
  if (missing.length && !allowPartial) {
    const found = measured.map(({ doc, name }) => `${name} is ${doc.plan.shard.index}/${count}`);
    const cancelled = docs.map((d, i) => (d.status === 'cancelled' ? `${names[i]} was cancelled` : null)).filter(Boolean);
    throw new UsageError(`${shardList(missing, count)} ${missing.length === 1 ? 'is' : 'are'} missing (${[...found, ...cancelled].join('; ')}); pass the folder of every shard, or --allow-partial for a report marked partial`);
  }
  const position = new Map(suiteIds.map((id, k) => [id, k]));
  return {
    count,
    missing,
    position,
    notMeasured: suiteIds.filter((id) => !owner.has(id)),
    cancelled: docs.map((d, i) => (d.status === 'cancelled' ? `shard ${d.plan.shard.index}/${count} (${names[i]}) was cancelled: its microbenchmarks count as missing` : null)).filter(Boolean),
  };
}

// The parts of a merged results document that come from its shards: the plan of the whole
// comparison (the shards' parts in the suite's order), and where every part was measured.
function shardFields(layout, docs, names, merged) {
  const measured = docs.map((d, i) => ({ doc: d, name: names[i] }))
    .filter(({ doc }) => doc.status !== 'cancelled')
    .sort((a, b) => a.doc.plan.shard.index - b.doc.plan.shard.index);
  const bySuiteOrder = (a, b) => layout.position.get(a.id) - layout.position.get(b.id);
  const { shard: _shard, ...plan } = measured.length ? measured[0].doc.plan : docs[0].plan;
  const times = (key) => measured.map(({ doc }) => doc[key]).filter(Boolean).sort();
  return {
    plan: { ...plan, benchmarks: measured.flatMap(({ doc }) => doc.plan.benchmarks).sort(bySuiteOrder) },
    ...(measured.length ? { machine: measured[0].doc.machine, sides: measured[0].doc.sides } : {}),
    started: times('started')[0] ?? merged.started,
    finished: times('finished').slice(-1)[0] ?? merged.finished,
    benchmarks: [...merged.benchmarks].sort(bySuiteOrder),
    warnings: [...merged.warnings, ...layout.cancelled],
    shards: {
      count: layout.count,
      benchmarks_in_suite: layout.position.size,
      merged: measured.map(({ doc, name }) => ({
        index: doc.plan.shard.index,
        folder: name,
        benchmarks: doc.plan.benchmarks.length,
        machine_id: doc.machine.id ?? null,
        hostname: doc.machine.hostname ?? null,
        started: doc.started ?? null,
        finished: doc.finished ?? null,
      })),
      missing: layout.missing,
      not_measured: layout.notMeasured,
    },
  };
}

// A shard's own errors, as the merged document keeps them: an error of a whole side (its
// server did not start) concerns that shard's microbenchmarks only, so it carries the shard.
function shardErrors(doc, count) {
  if (doc.status === 'cancelled') return [];
  return (doc.errors || []).map((e) => (e.benchmark ? e : { ...e, shard: doc.plan.shard.index, message: `shard ${doc.plan.shard.index}/${count}: ${e.message}` }));
}

// "shards 2/4 and 4/4", "shard 3/4"
function shardList(indices, count) {
  const names = indices.map((k) => `${k}/${count}`);
  const joined = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `${names.length === 1 ? 'shard' : 'shards'} ${joined}`;
}

// The sentence a partial merge starts its headline with.
module.exports = { parseShard, shardPlan, shardOf, shardList, shardLayout, shardFields, shardErrors, isPre, twinName };
