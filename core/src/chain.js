'use strict';
// A chain of versions against one base (perfgate compare --base A --head B --head C ...), as
// the posts' tables have it: one column per version, each relative to the same base.
//
// Where the chain loops: in the measurement, not around it. One plan names every head (sides
// head, head2, ... headN); the harness starts every server once and runs each round of each
// microbenchmark on every side in turn, A B C / C B A, so the machine's drift hits every head
// alike, and head k's round i pairs with the base's round i of the very same run. Running one
// two-sided comparison per head would pair each head with a base measured at another time: the
// columns of one row would then differ by the machine's drift between the runs, not by the
// versions.
//
// Judging loops over the heads: each head's view of the results (the base's rounds and that
// head's, the head named `head`) goes through the one judge(), so a head of a chain is decided
// exactly as the head of a two-sided comparison. Pure.
const { UsageError } = require('./errors');
const { assertValid } = require('./schemas');
const { judge: judgeTwoSides, worst, EXIT_OF } = require('./verdict');
const { nextStep, planIdsFor } = require('./next-step');
const { mergeResults } = require('./merge-results');

// Every head is a running server with its own buffer pool and datadir (about 1 GB each at the
// smallest scale), and every round runs on every side: six servers on a 2-core runner is
// already a long run.
const MAX_HEADS = 5;

/** The side name of the k-th head (from 0): head, head2, head3, ... */
const headSide = (k) => (k === 0 ? 'head' : `head${k + 1}`);

/** The heads of a plan's or results' sides, in chain order. */
function headSides(sides) {
  return Array.from({ length: MAX_HEADS }, (_, k) => headSide(k)).filter((side) => sides[side]);
}

const isChain = (sides) => headSides(sides).length > 1;

/**
 * The sides of a chain from checked --base and --head values: {base, head, head2, ...}.
 * @param base   {basedir | ref, ...} of the base
 * @param heads  [{basedir | ref, ...}] in the order given
 * @param key    what names a side on the command line ('basedir' or 'ref'): a head given twice,
 *               or given as the base, is refused with the argument named
 */
function chainSides(base, heads, key) {
  if (heads.length > MAX_HEADS) {
    throw new UsageError(`--head: ${heads.length} heads given; expected at most ${MAX_HEADS} (every head is a server running beside the others, and every round runs on each of them)`);
  }
  const sides = { base };
  heads.forEach((head, k) => {
    const what = head[key];
    if (what === base[key]) throw new UsageError(`--head '${what}': the same ${key} as --base; expected a version other than the base`);
    const twice = heads.findIndex((h) => h[key] === what);
    if (twice < k) throw new UsageError(`--head '${what}': given twice (head ${twice + 1} and head ${k + 1}); expected each version once`);
    sides[headSide(k)] = head;
  });
  return sides;
}

// One head's rounds, errors and counters under the name `head`; the other heads' left out.
function headView(results, side) {
  const keep = (name) => name === 'base' || name === side;
  const renamed = (name) => (name === side ? 'head' : name);
  const sidesOf = (sides) => ({ base: sides.base, head: sides[side] });
  const benchmarks = results.benchmarks.map((b) => {
    const out = { ...b, rounds: (b.rounds || []).filter((r) => keep(r.side)).map((r) => ({ ...r, side: renamed(r.side) })) };
    if (b.error && b.error.side) out.error = { ...b.error, side: keep(b.error.side) ? renamed(b.error.side) : b.error.side };
    if (b.ahi_counters) out.ahi_counters = { base: b.ahi_counters.base, head: b.ahi_counters[side] };
    return out;
  });
  return {
    ...results,
    plan: results.plan ? { ...results.plan, sides: sidesOf(results.plan.sides) } : results.plan,
    errors: (results.errors || []).filter((e) => !e.side || keep(e.side) || e.benchmark).map((e) => ({ ...e, side: e.side && keep(e.side) ? renamed(e.side) : e.side })),
    sides: sidesOf(results.sides),
    benchmarks,
  };
}

/**
 * Every head judged against the base: perfgate.chain/v2 {verdict (the worst head's),
 * exit_code, headline, heads: [{side, verdict: perfgate.verdict/v2}]}. `results`: one
 * results document, or several of one chain to merge (perfgate judge --results).
 */
function judgeChain(docs, config = {}, options = {}) {
  const results = Array.isArray(docs) ? mergeResults(docs, { allowDifferentMachines: options.allowDifferentMachines }) : docs;
  const sides = headSides(results.sides);
  const heads = sides.map((side) => ({ side, verdict: judgeTwoSides(headView(results, side), config, options) }));
  const overall = worst(heads.map((h) => h.verdict.verdict));
  const version = (side) => (results.sides[side] && results.sides[side].version) || side;
  const chain = {
    schema: 'perfgate.chain/v2',
    suite: (results.plan && results.plan.suite) || null,
    verdict: overall,
    exit_code: EXIT_OF[overall],
    headline: heads.map((h, k) => `col-${k + 1} (${version(h.side)}): ${h.verdict.headline}`).join(' '),
    base: results.sides.base,
    heads,
  };
  return assertValid('chain', chain, 'the chain verdict');
}

// The order in which nextStep tries its actions: the chain takes the first action any head
// needs, for every head that needs it, since every step measures all sides at once.
const ACTIONS = ['count', 'recount', 'extend', 'confirm'];

/**
 * The next step of a chain: nextStep of each head (all heads share one budget, as they share
 * every round), the earliest action any head needs, for the union of the rows the heads need
 * it for. `plan_ids` are the plan's benchmarks to measure (AHI cells stand for their on and
 * off benchmarks).
 */
function chainStep(chain, budget, spent, plan) {
  const steps = chain.heads.map((h) => ({ head: h, step: nextStep(h.verdict, budget, spent) }));
  const action = ACTIONS.find((a) => steps.some(({ step }) => step.action === a));
  if (!action) {
    const why = [...new Set(steps.map(({ step }) => step.why))].join('; ');
    return { action: 'done', why };
  }
  const chosen = steps.filter(({ step }) => step.action === action);
  // In plan order, whichever head asked first (AHI cell ids, not in the plan, after them).
  const order = (id) => { const at = plan.benchmarks.findIndex((b) => b.id === id); return at < 0 ? Infinity : at; };
  const ids = [...new Set(chosen.flatMap(({ step }) => step.ids))].sort((a, b) => order(a) - order(b));
  const wanted = new Set(chosen.flatMap(({ head, step }) => planIdsFor(step.ids, head.verdict, plan)));
  const { rounds, windows } = chosen[0].step;
  return {
    action, ids, plan_ids: plan.benchmarks.filter((b) => wanted.has(b.id)).map((b) => b.id),
    ...(rounds !== undefined ? { rounds } : {}), ...(windows !== undefined ? { windows } : {}),
  };
}

module.exports = { MAX_HEADS, headSide, headSides, isChain, chainSides, headView, judgeChain, chainStep };
