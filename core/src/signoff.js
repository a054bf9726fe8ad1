'use strict';
// A release sign-off's decision: the candidate measured against the previous release with the
// sign-off's suites (the full suite, and the DDL and TPC-C suites where the fork runs them), and
// the maintainers' waivers, in; the commit status `perfgate/signoff` out. Pure. The reports
// (render/signoff.js) show this decision; they do not make it.
//
// The decision is strict on purpose: a release is signed off only when every judged item of
// every suite (its rows, AHI gain cells and the suite as a whole) is within its limits (pass or
// warn) or a maintainer waived it, saying why. An undecided item is not within the limits: a
// release needs an answer, not "could be slower". A suite that left no verdict is an error.

const SIGNOFF_CONTEXT = 'perfgate/signoff';
// The artifact a sign-off workflow leaves its report in; each suite's merged, judged run folder
// is an artifact of its own (signoffArtifact).
const SIGNOFF_ARTIFACT = 'perfgate-signoff';
// GitHub keeps at most 140 characters of a commit status description.
const STATUS_DESCRIPTION_LIMIT = 140;
const WITHIN_LIMITS = new Set(['pass', 'warn']);
const SUITE_WIDE_GROUPS = ['point', 'range', 'write'];

const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Whether a row's verdict word is within the limits a sign-off holds a release to. */
const isWithinLimits = (word) => WITHIN_LIMITS.has(word);

/** The artifact holding one suite's merged, judged run folder of a sign-off. */
const signoffArtifact = (suite) => `${SIGNOFF_ARTIFACT}-${suite}`;

/** The name a suite-wide entry is waived by: `<suite>-suite`, or `<suite>-suite.<group>`. */
const suiteWideName = (suite, group = null) => `${suite}-suite${group ? `.${group}` : ''}`;

/** Every suite-wide name a suite can have (the bot checks a waiver against them). */
const suiteWideNames = (suite) => [suiteWideName(suite), ...SUITE_WIDE_GROUPS.map((g) => suiteWideName(suite, g))];

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
 * The sign-off's suites as [{suite, verdict, problem}]: `suites` as given, or the one `verdict`
 * (a sign-off of one suite), or none.
 */
function signoffParts({ verdict = null, suites = null }) {
  if (suites) return suites.map((s) => ({ suite: s.suite, verdict: s.verdict || null, problem: s.problem || null }));
  return verdict ? [{ suite: verdict.suite || 'full', verdict, problem: null }] : [];
}

/** Every judged item of one suite's verdict: its rows, its AHI gain cells, the suite as a whole. */
function judgedItems(suite, verdict) {
  const wide = (verdict.suite_wide && verdict.suite_wide.entries) || [];
  return [
    ...verdict.benchmarks.map((b) => ({ name: b.name, verdict: b.verdict })),
    ...(verdict.ahi || []).map((c) => ({ name: `${c.name} (${c.threads} threads) AHI gain`, verdict: c.verdict })),
    ...wide.map((e) => ({ name: suiteWideName(suite, e.group), verdict: e.verdict, wide: true })),
  ];
}

// Why one suite's verdict cannot be decided on (an error), or null.
function suiteError(part, blocking) {
  const { suite, verdict, problem } = part;
  if (problem || !verdict) return `the ${suite} suite left no verdict: ${problem || 'the run left none'}`;
  const shards = verdict.run && verdict.run.shards;
  const missing = shards && shards.missing && shards.missing.length ? shards.not_measured || [] : [];
  if (missing.length) return `Partial run: ${plural(missing.length, 'microbenchmark')} not measured (${listNames(missing, 2)})`;
  const errored = blocking.filter((b) => b.verdict === 'error');
  if (errored.length) return `${plural(errored.length, 'microbenchmark')} failed to run: ${listNames(errored.map((b) => b.id))}`;
  // The run failed outside any row (a server, the harness): its rows are not the whole answer.
  if (verdict.verdict === 'error' && !blocking.length) return `The sign-off run has errors: ${(verdict.errors && verdict.errors[0]) || verdict.headline}`;
  return null;
}

/**
 * The sign-off's decision, and the commit status that says it.
 *
 * @param verdict    the merged perfgate.verdict/v2 of a sign-off of one suite, or null
 * @param suites     [{suite, verdict, problem}]: each suite's merged verdict, or why it has none
 * @param waivers    [{microbenchmark, reason, author}]: the sign-off's waivers
 * @param runFailed  why the run left no usable verdict (a string), or null
 * @returns {state: success | failure | error, description (≤ 140 characters), within, waived,
 *           blocking: [{id, verdict}], unknownWaivers: [names the verdicts do not hold]}
 */
function signoffDecision({ verdict = null, suites = null, waivers = [], runFailed = null }) {
  const parts = signoffParts({ verdict, suites });
  const none = { within: [], waived: [], blocking: [], unknownWaivers: [] };
  if (runFailed || !parts.length) {
    const why = runFailed || 'the run left no verdict';
    return { state: 'error', description: cut(`The sign-off run failed: ${why}`, STATUS_DESCRIPTION_LIMIT), ...none };
  }
  const waived = waiverIndex(waivers);
  const all = { within: [], waived: [], blocking: [], names: new Set(), rows: 0, wideBlocking: 0 };
  const errors = [];
  let unexplained = null;
  for (const part of parts) {
    const items = part.verdict ? judgedItems(part.suite, part.verdict) : [];
    const blocking = items.filter((b) => !isWithinLimits(b.verdict) && !waived.has(b.name)).map((b) => ({ id: b.name, verdict: b.verdict }));
    const waivedHere = items.filter((b) => !isWithinLimits(b.verdict) && waived.has(b.name)).map((b) => b.name);
    for (const b of items) all.names.add(b.name);
    all.rows += items.filter((b) => !b.wide).length;
    all.wideBlocking += items.filter((b) => b.wide && !isWithinLimits(b.verdict) && !waived.has(b.name)).length;
    all.within.push(...items.filter((b) => isWithinLimits(b.verdict)).map((b) => b.name));
    all.waived.push(...waivedHere);
    all.blocking.push(...blocking);
    const error = suiteError(part, blocking);
    if (error) errors.push(parts.length > 1 && part.verdict ? `${part.suite}: ${error}` : error);
    // Nothing explains a run verdict beyond the limits: never sign off on it.
    else if (!blocking.length && !isWithinLimits(part.verdict.verdict) && !waivedHere.length && !unexplained) {
      unexplained = `The ${part.suite} run's verdict is ${part.verdict.verdict} though no row is beyond its limits: ${part.verdict.headline}`;
    }
  }
  const unknownWaivers = [...waived.keys()].filter((name) => !all.names.has(name));
  // The count says rows (and AHI cells); a suite as a whole beyond its limits is said apart.
  const rowsBlocking = all.blocking.length - all.wideBlocking;
  const waivedText = all.waived.length ? `, ${all.waived.length} waived` : '';
  let state;
  let description;
  if (errors.length) {
    state = 'error';
    description = errors.length > 1 ? `${errors[0]}; ${errors.length - 1} more suite${errors.length > 2 ? 's' : ''} with errors` : errors[0];
  } else if (all.blocking.length) {
    state = 'failure';
    const what = [
      rowsBlocking ? `${rowsBlocking} of ${all.rows} not within limits` : null,
      all.wideBlocking ? `${all.wideBlocking === 1 ? 'a suite' : `${all.wideBlocking} suites or groups`} as a whole not within limits` : null,
    ].filter(Boolean).join(', ');
    description = `${what} (${listNames(all.blocking.map((b) => `${b.id} ${b.verdict}`), 2)})${waivedText}`;
  } else if (unexplained) {
    state = 'error';
    description = unexplained;
  } else {
    state = 'success';
    description = `All ${all.rows} microbenchmarks within limits${waivedText}`;
  }
  return { state, description: cut(description, STATUS_DESCRIPTION_LIMIT), within: all.within, waived: all.waived, blocking: all.blocking, unknownWaivers };
}

module.exports = {
  signoffDecision, signoffParts, judgedItems, isWithinLimits, waiverIndex, signoffArtifact, suiteWideName, suiteWideNames,
  SIGNOFF_CONTEXT, SIGNOFF_ARTIFACT, STATUS_DESCRIPTION_LIMIT,
};
