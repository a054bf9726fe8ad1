'use strict';
// A release sign-off's decision: the candidate measured against the previous release with the
// full suite, and the maintainers' waivers, in; the commit status `perfgate/signoff` out. Pure.
// The reports (render/signoff.js) show this decision; they do not make it.
//
// The decision is strict on purpose: a release is signed off only when every microbenchmark
// of the suite is within its limits (pass or warn) or a maintainer waived it, saying why. An
// undecided row is not within the limits: a release needs an answer, not "could be slower".

const SIGNOFF_CONTEXT = 'perfgate/signoff';
// The artifact a sign-off workflow leaves its merged, judged run folder in (report beside it).
const SIGNOFF_ARTIFACT = 'perfgate-signoff';
// GitHub keeps at most 140 characters of a commit status description.
const STATUS_DESCRIPTION_LIMIT = 140;
const WITHIN_LIMITS = new Set(['pass', 'warn']);

const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Whether a row's verdict word is within the limits a sign-off holds a release to. */
const isWithinLimits = (word) => WITHIN_LIMITS.has(word);

/** The waivers that apply to this verdict's rows, latest per microbenchmark, by name. */
function waiverIndex(waivers = []) {
  const byName = new Map();
  for (const w of waivers) byName.set(w.microbenchmark, w);
  return byName;
}

function listNames(names, max = 3) {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/**
 * The sign-off's decision, and the commit status that says it.
 *
 * @param verdict    the merged perfgate.verdict/v2 of the full suite, or null when the run left none
 * @param waivers    [{microbenchmark, reason, author}]: the sign-off's waivers
 * @param runFailed  why the run left no usable verdict (a string), or null
 * @returns {state: success | failure | error, description (≤ 140 characters), within, waived,
 *           blocking: [{id, verdict}], unknownWaivers: [names the verdict does not hold]}
 */
function signoffDecision({ verdict, waivers = [], runFailed = null }) {
  if (runFailed || !verdict) {
    const why = runFailed || 'the run left no verdict';
    return { state: 'error', description: cut(`The sign-off run failed: ${why}`, STATUS_DESCRIPTION_LIMIT), within: [], waived: [], blocking: [], unknownWaivers: [] };
  }
  const waived = waiverIndex(waivers);
  // Every judged item: the rows, and the AHI gain cells (judged on their own, like a row).
  const rows = [...verdict.benchmarks, ...(verdict.ahi || []).map((c) => ({ name: `${c.name} (${c.threads} threads) AHI gain`, verdict: c.verdict }))];
  const names = new Set(rows.map((b) => b.name));
  const within = rows.filter((b) => isWithinLimits(b.verdict)).map((b) => b.name);
  const waivedRows = rows.filter((b) => !isWithinLimits(b.verdict) && waived.has(b.name)).map((b) => b.name);
  const blocking = rows.filter((b) => !isWithinLimits(b.verdict) && !waived.has(b.name)).map((b) => ({ id: b.name, verdict: b.verdict }));
  const unknownWaivers = [...waived.keys()].filter((name) => !names.has(name));
  const shards = verdict.run && verdict.run.shards;
  const missing = shards && shards.missing && shards.missing.length ? shards.not_measured || [] : [];
  let state;
  let description;
  const total = rows.length;
  const waivedText = waivedRows.length ? `, ${waivedRows.length} waived` : '';
  if (missing.length) {
    state = 'error';
    description = `Partial run: ${plural(missing.length, 'microbenchmark')} not measured (${listNames(missing, 2)})`;
  } else if (blocking.some((b) => b.verdict === 'error')) {
    state = 'error';
    description = `${plural(blocking.filter((b) => b.verdict === 'error').length, 'microbenchmark')} failed to run: ${listNames(blocking.filter((b) => b.verdict === 'error').map((b) => b.id))}`;
  } else if (verdict.verdict === 'error' && !blocking.length) {
    // The run failed outside any row (a server, the harness): its rows are not the whole answer.
    state = 'error';
    description = `The sign-off run has errors: ${(verdict.errors && verdict.errors[0]) || verdict.headline}`;
  } else if (blocking.length) {
    state = 'failure';
    description = `${blocking.length} of ${total} not within limits (${listNames(blocking.map((b) => `${b.id} ${b.verdict}`), 2)})${waivedText}`;
  } else if (!isWithinLimits(verdict.verdict) && !waivedRows.length) {
    // Nothing above explains a run verdict beyond the limits: never sign off on it.
    state = 'error';
    description = `The run's verdict is ${verdict.verdict} though no row is beyond its limits: ${verdict.headline}`;
  } else {
    state = 'success';
    description = `All ${total} microbenchmarks within limits${waivedText}`;
  }
  return { state, description: cut(description, STATUS_DESCRIPTION_LIMIT), within, waived: waivedRows, blocking, unknownWaivers };
}

module.exports = { signoffDecision, isWithinLimits, waiverIndex, SIGNOFF_CONTEXT, SIGNOFF_ARTIFACT, STATUS_DESCRIPTION_LIMIT };
