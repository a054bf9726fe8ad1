'use strict';
// Verdicts written before perfgate.verdict/v2 — in run folders and artifacts of older runs, in
// the bot's history — read as v2, here and nowhere else. v1 said "inconclusive" for what is
// now undecided, and marked `open` a pass whose interval still reached the warn limit: that
// is a pass that could still be a warn (`could_be`). Reasons and headlines stay as they were
// written: they are the record of that run.
const { schemaProblem } = require('./schemas');

const V1 = 'perfgate.verdict/v1';
const V2 = 'perfgate.verdict/v2';

/** A verdict word of any version as v2 says it ("inconclusive" → "undecided"). */
const outcomeWord = (word) => (word === 'inconclusive' ? 'undecided' : word);

function rowFromV1(row) {
  const { open, ...rest } = row;
  const out = { ...rest, verdict: outcomeWord(row.verdict) };
  for (const key of ['time_verdict', 'instructions_verdict', 'cpu_verdict']) if (typeof row[key] === 'string') out[key] = outcomeWord(row[key]);
  if (row.io) {
    out.io = Object.fromEntries(Object.entries(row.io).map(([key, figure]) => [key, figure && figure.verdict ? { ...figure, verdict: outcomeWord(figure.verdict) } : figure]));
  }
  if (open !== undefined) out.could_be = open ? (out.verdict === 'pass' ? 'warn' : 'fail') : null;
  return out;
}

/** A valid perfgate.verdict/v1 document as perfgate.verdict/v2. */
function verdictFromV1(doc) {
  const { inconclusive, counts, ...rest } = doc;
  const { inconclusive: undecidedCount, ...otherCounts } = counts;
  return {
    ...rest,
    schema: V2,
    verdict: outcomeWord(doc.verdict),
    counts: { ...otherCounts, undecided: undecidedCount },
    undecided: inconclusive,
    benchmarks: doc.benchmarks.map(rowFromV1),
    ahi: doc.ahi.map(rowFromV1),
  };
}

/**
 * A verdict document of any version as v2, checked against its own version's schema first:
 * {verdict} or {problem: one line naming the key}.
 */
function readVerdict(doc) {
  const isObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  if (isObject && doc.schema !== V1 && doc.schema !== V2) {
    return { problem: `schema: ${JSON.stringify(doc.schema)} is not valid; expected one of: ${V2}, ${V1}` };
  }
  if (isObject && doc.schema === V1) {
    const problem = schemaProblem('verdict-v1', doc);
    return problem ? { problem } : { verdict: verdictFromV1(doc) };
  }
  const problem = schemaProblem('verdict', doc);
  return problem ? { problem } : { verdict: doc };
}

module.exports = { readVerdict, outcomeWord, VERDICT_V1: V1 };
