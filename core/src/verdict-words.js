'use strict';
// The words of a verdict: each row's reason, the phrase the headline gives it, and the
// headline. Decisions come in made (row-verdict.js, row-signals.js, process-pairs.js); this
// only says them. Every sentence here is pinned by a test: reports print it as is.
const { higherIsWorse } = require('./row-signals');
const { shardList } = require('./shards');

// How each signal is named and what one sample of it is called. Instructions repeat within a
// fraction of a percent: they are shown to three decimals.
const SIGNAL_TERMS = {
  rqps: { what: 'rQPS', unit: 'pair', digits: 2 },
  cpu: { what: 'cpu/o', unit: 'pair', digits: 2 },
  instructions: { what: 'instr/o', unit: 'window', digits: 3 },
  instructions_all: { what: 'instr/o of all threads', unit: 'window', digits: 3 },
  gain: { what: 'AHI gain ratio', unit: 'pair', digits: 2 },
  io: { what: 'I/O per query', unit: 'pair', digits: 2 },
  // A difference head − base in bytes (no ratio: the base's growth is often about 0).
  memory: { what: 'memory growth per query', unit: 'pair', bytes: true },
  // The suite as a whole (suite-wide.js): its figures name how many rows they are over.
  geomean_rqps: { what: 'rQPS', unit: 'row', digits: 3, counted: false },
  geomean_instructions: { what: 'instr/o', unit: 'row', digits: 4, counted: false },
};

// What each step on fresh server processes is called (`rerun`: the rounds or windows of
// another run of the comparison, joined by perfgate judge).
const STEP_WORDS = {
  rounds: { extend: 'extra rounds on fresh servers', confirm: 'confirming rounds on fresh servers', rerun: 'rounds of another run' },
  windows: { count: 'extra windows on fresh servers', recount: 'recount on fresh servers', rerun: 'windows of another run' },
};

const f2 = (x) => x.toFixed(2);
// A limit shown with the digits it was set with (instr/o limits such as 1.015).
const limitText = (x) => (Number(x.toFixed(2)) === x ? x.toFixed(2) : String(Number(x.toFixed(4))));
const range = (i) => `[${f2(i.low)}, ${f2(i.high)}]`;
// Bytes with thousands marked: a difference signed (+1,049, -12), a limit with its unit (256 B).
const grouped = (x) => String(Math.abs(Math.round(x))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const signedBytes = (x) => `${Math.round(x) < 0 ? '-' : '+'}${grouped(x)}`;
// A signal's figure, its bounds and its limits as a clause writes them.
function shown(kind) {
  const { digits, bytes } = SIGNAL_TERMS[kind];
  if (bytes) return { one: (x) => `${signedBytes(x)} B`, bound: signedBytes, limit: (x) => `${grouped(x)} B` };
  const n = (x) => x.toFixed(digits);
  return { one: n, bound: n, limit: limitText };
}
const figureText = (kind, what, i) => {
  const s = shown(kind);
  return i.low === null ? `${what} ${s.one(i.estimate)}` : `${what} ${s.one(i.estimate)} [${s.bound(i.low)}, ${s.bound(i.high)}]`;
};
const plural = (n, unit) => `${n} ${unit}${n === 1 ? '' : 's'}`;
const pctOf = (r) => {
  const p = Math.abs(1 - r) * 100;
  return `${p >= 1 ? Math.round(p) : p.toFixed(1)}%`;
};

// When one pair of server processes measured what it did, and where it did and the others did
// not (a stretch of process-pairs.js).
function stretchWhen({ unit, steps, at }) {
  if (!steps.length) return 'before a recount on fresh servers';
  return at < 0 ? `before the ${STEP_WORDS[unit][steps[0].purpose]}` : `in the ${STEP_WORDS[unit][steps[at].purpose]}`;
}
function stretchWhere({ unit, steps, at }) {
  if (!steps.length) return 'on its first servers, not yet on fresh ones';
  return at < 0 ? 'on its first servers, not on fresh ones' : `in the ${STEP_WORDS[unit][steps[at].purpose]}, not on its other servers`;
}

/** One clause saying where a signal's interval lies against its limits. */
function clause(kind, interval, limits, span, what = SIGNAL_TERMS[kind].what) {
  const { unit, counted = true } = SIGNAL_TERMS[kind];
  const worseHigh = higherIsWorse(kind);
  if (!interval || interval.n === 0) return `${what}: no paired ${unit}s, nothing to compare`;
  if (interval.low === null) return `${figureText(kind, what, interval)} from 1 ${unit}: an interval needs at least 2`;
  const bad = worseHigh ? 'above' : 'below';
  const good = worseHigh ? 'below' : 'above';
  const at = figureText(kind, what, interval);
  const W = shown(kind).limit(limits.warn);
  const F = shown(kind).limit(limits.fail);
  const after = counted ? ` after ${plural(interval.n, unit)}` : '';
  switch (`${span.best}-${span.worst}`) {
    case 'fail-fail': return `${at} lies wholly ${bad} the fail limit ${F}`;
    case 'warn-warn': return `${at} lies wholly ${bad} the warn limit ${W}, ${good} the fail limit ${F}`;
    case 'pass-pass': return `${at} lies ${good} the warn limit ${W}`;
    case 'pass-warn': return `${at} reaches ${bad} the warn limit ${W}, not the fail limit ${F}${after ? `,${after}` : ''}`;
    case 'warn-fail': return `${at} lies wholly ${bad} the warn limit ${W} and reaches ${bad} the fail limit ${F}${after}`;
    default: return `${at} reaches ${bad} the fail limit ${F}${after}`;
  }
}

/** A signal's clause, with what one pair of processes measured or all of them did. */
function clauseOf(signal) {
  let text = clause(signal.kind, signal.interval, signal.limits, signal.span, signal.what || SIGNAL_TERMS[signal.kind].what);
  if (signal.onEachOf) text = `${text}, and on each of its ${signal.onEachOf} pairs of server processes on its own`;
  if (signal.stretch) text = `${text} ${stretchWhen(signal.stretch)}`;
  return text;
}

/** The clauses of a signal made of parts (rQPS with cpu/o, a pair's own proof), in order. */
const clausesOf = (signals) => signals.flatMap((s) => s.parts || [s]).map(clauseOf).join('; ');

/**
 * What a signal says in a maintainer's words, e.g. "8% more instructions per query" or
 * "12% slower"; null when its estimate is not on the worse side (a limit above 1.00 for
 * rQPS, a fork that demands a speed-up).
 */
function change(kind, interval) {
  if (kind === 'memory') return interval && interval.estimate > 0 ? `memory grows ${grouped(interval.estimate)} B more per query` : null;
  if (!interval || (higherIsWorse(kind) ? interval.estimate <= 1 : interval.estimate >= 1)) return null;
  // The suite as a whole is judged at a fraction of a percent: one decimal, always.
  const pct = SIGNAL_TERMS[kind].counted === false ? (r) => `${(Math.abs(1 - r) * 100).toFixed(1)}%` : pctOf;
  switch (kind) {
    case 'instructions':
    case 'geomean_instructions': return `${pct(interval.estimate)} more instructions per query`;
    case 'instructions_all': return `${pct(interval.estimate)} more instructions per query, counting the background threads`;
    case 'cpu': return `${pct(interval.estimate)} more CPU time per query`;
    default: return `${pct(interval.estimate)} slower`;
  }
}

// The row's figure a headline shows for a signal: "(instr/o 1.08 [1.08, 1.08], fail limit 1.04)".
function figures(signal, limitWord) {
  const { what } = SIGNAL_TERMS[signal.kind];
  return `(${figureText(signal.kind, what, signal.interval)}, ${limitWord} limit ${shown(signal.kind).limit(signal.limits[limitWord])})`;
}

// How a headline names a proof one pair of processes gave and the others did not:
// "failed on its first servers, not on fresh ones (rQPS 0.90 [0.88, 0.92], fail limit 0.93)".
function unconfirmedPhrase(seen) {
  const word = seen.best === 'fail' ? 'failed' : 'beyond its warn limit';
  return `${word} ${stretchWhere(seen.stretch)} ${figures(seen, seen.best)}`;
}

/**
 * The reason of a row and its headline phrase, from the rule's outcome and the signals.
 * Leads with the signal that decided; names the limit it was held to.
 */
function explain(row, signals) {
  const rowSignal = { cpu: 'time', memory: 'time', rqps: 'time', instructions_all: 'instructions', geomean_rqps: 'time', geomean_instructions: 'instructions' };
  const byKind = Object.fromEntries(signals.map((s) => [rowSignal[s.kind] || s.kind, s]));
  // Of the signals that leave a row open, the one that reaches the limit named leads: an
  // undecided row's could-be fail is the signal that can reach the fail limit.
  const reaching = row.verdict === 'undecided' ? 'fail' : row.open ? 'warn' : null;
  const deciding = row.decidedBy.map((name) => byKind[name]).filter(Boolean);
  const leading = reaching ? [...deciding.filter((s) => s.worst === reaching), ...deciding.filter((s) => s.worst !== reaching)] : deciding;
  const clauses = clausesOf([...leading, ...signals.filter((s) => !leading.includes(s))]);
  const lead = leading[0] || null;
  let summary;
  let phrase;
  if (row.verdict === 'fail' || row.verdict === 'warn') {
    const said = change(lead.kind, lead.interval);
    summary = said || `below its ${row.verdict} limit`;
    phrase = `${said || `not slower, but beyond its ${row.verdict} limit`} ${figures(lead, row.verdict)}`;
  } else if (row.verdict === 'undecided') {
    // Beyond the warn limit already when some signal proves it (maybe not the one left open).
    const proving = row.best === 'warn' ? signals.find((s) => s.best === 'warn') : null;
    // A fail one pair of server processes measured and the others did not: that is the news.
    const seen = signals.find((s) => s.unconfirmed && s.unconfirmed.best === 'fail');
    const atLeast = proving ? `${change(proving.kind, proving.interval) || 'beyond its warn limit'}, ` : '';
    summary = `${atLeast}could be beyond its fail limit`;
    phrase = `${atLeast}could be beyond its fail limit ${figures(lead, 'fail')}`;
    if (seen) {
      summary = `failed ${stretchWhere(seen.unconfirmed.stretch)}: ${summary}`;
      phrase = `${atLeast}${unconfirmedPhrase(seen.unconfirmed)}`;
    }
  } else if (row.open) {
    // A pass that could still be a warn: noise alone must not warn, nor may this read as
    // "within limits".
    const seen = signals.find((s) => s.unconfirmed);
    summary = 'within the fail limit; its interval still reaches the warn limit';
    phrase = `its interval still reaches the warn limit ${figures(lead, 'warn')}`;
    if (seen) {
      summary = `within the fail limit; beyond its warn limit ${stretchWhere(seen.unconfirmed.stretch)}`;
      phrase = unconfirmedPhrase(seen.unconfirmed);
    }
  } else {
    summary = 'within limits';
    phrase = null;
  }
  return { reason: `${summary}: ${clauses}`, phrase };
}

const listed = (items, fmt, max = 3) => {
  const shown = items.slice(0, max).map(fmt);
  if (items.length > max) shown.push(`${items.length - max} more`);
  if (shown.length === 1) return shown[0];
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
};

// What the headline says of one row: its phrase (a row's, from explain), or for an AHI gain
// cell, its ratio and the limit it is held to.
function rowPhrase(b) {
  const what = b.gain_ratio ? `${b.name} (${b.threads} threads) AHI gain` : b.id;
  if (b.headline_phrase) return `${what}: ${b.headline_phrase}`;
  const i = b.gain_ratio || b.rqps;
  const word = b.verdict === 'fail' ? 'fail' : 'warn';
  const limit = b.verdict === 'undecided' ? 'fail' : word;
  const fig = i && i.low !== null ? `(${b.gain_ratio ? 'gain ratio' : 'rQPS'} ${f2(i.estimate)} ${range(i)}, ${limit} limit ${f2(b.limits[limit])})` : '';
  // A gain ratio below 1 says the head gains less from AHI than the base, not that it is
  // slower (both sides may be faster with AHI on and off alike).
  const lower = b.gain_ratio ? `${pctOf(i.estimate)} lower` : `${pctOf(i.estimate)} slower`;
  let how = i && i.estimate < 1 ? lower : `beyond its ${word} limit`;
  if (b.verdict === 'undecided') how = 'could be beyond its fail limit';
  else if (b.verdict === 'pass') how = 'its interval still reaches the warn limit';
  return `${what}: ${how} ${fig}`.trim();
}

/**
 * The headline: one sentence form per outcome, `<Outcome>: <each row that made it, in words>`;
 * a pass names the rows whose intervals still reach the warn limit; rows unstable on main
 * (`unstable`, left out of `items`) follow in a sentence of their own. A merge that lacks shards
 * (`partial`: results' shards) is at best undecided, and says what it lacks.
 */
function headline({ overall, measured, items, wide = [], runError, partial = null, unstable = [] }) {
  const unstableRows = listed(unstable, rowPhrase, 5);
  let said;
  if (!runError && unstable.length && !items.length) said = `Undecided: no row is judged, each is unstable on main: ${unstableRows}.`;
  else said = `${sentence(measured, items, runError, wide)}${unstable.length && !runError ? ` Not judged, unstable on main: ${unstableRows}.` : ''}`;
  if (!partial) return said;
  const { missing, count, not_measured: notMeasured, benchmarks_in_suite: inSuite } = partial;
  const lacks = `${shardList(missing, count)} ${missing.length === 1 ? 'is' : 'are'} missing, ${notMeasured.length} of ${inSuite} microbenchmarks not measured`;
  return overall === measured ? `${said} Partial: ${lacks}.` : `Undecided: ${lacks}. ${said}`;
}

// The sentence of what was measured. The suite-wide entries (`wide`) are named first beside
// the rows that made the outcome; the comparisons a pass counts are the rows.
function sentence(overall, items, runError, wide) {
  const total = items.length;
  // Of the suite-wide entries, the whole suite stands for its groups when it has their outcome.
  const wideOf = (keep) => {
    const some = wide.filter(keep);
    return some.some((e) => e.group === null) ? some.filter((e) => e.group === null) : some;
  };
  const by = (v) => [...wideOf((e) => e.verdict === v), ...items.filter((b) => b.verdict === v)];
  const isReaching = (b) => b.verdict === 'pass' && Boolean(b.could_be);
  const reaching = [...wideOf(isReaching), ...items.filter(isReaching)];
  const also = (label, rows, max) => (rows.length ? `; ${label}${listed(rows, rowPhrase, max)}` : '');
  switch (overall) {
    case 'error': {
      if (runError) return `Error: no verdict: ${runError}.`;
      return `Error: no verdict for ${listed(by('error'), (b) => `${b.id} (${b.reason})`, 2)}: the measurement failed.`;
    }
    case 'fail':
      return `Fail: ${listed(by('fail'), rowPhrase)}${also('undecided: ', by('undecided'), 2)}.`;
    case 'undecided': {
      // What more would decide: rounds for time, windows for instructions. The budget is spent
      // on open rows; the suite as a whole open alone asks for more of its rows.
      const rowsOpen = items.filter((b) => b.verdict === 'undecided');
      const needed = new Set((rowsOpen.length ? rowsOpen : by('undecided')).flatMap((b) => b.needs || []));
      const more = needed.has('instructions') ? (needed.has('time') ? 'more rounds or instruction windows' : 'more instruction windows') : 'more rounds';
      const whose = rowsOpen.length ? 'than the budget allows' : 'of its rows';
      return `Undecided: ${listed(by('undecided'), rowPhrase)}; ${more} ${whose} would decide${also('warn: ', by('warn'))}.`;
    }
    case 'warn':
      return `Warn: ${listed(by('warn'), rowPhrase)}${also('', reaching)}.`;
    default: {
      const all = (limits) => (total === 1 ? `1 comparison, within its ${limits}` : `all ${total} comparisons within their ${limits}`);
      if (reaching.length) return `Pass: ${all('fail limits')}${also('', reaching)}.`;
      // Instructions miss what waits (locks, I/O, fsync, sleeps): rows that were not timed
      // cannot say that nothing got slower.
      const untimed = items.filter((b) => !b.rqps && !b.gain_ratio).length;
      if (untimed === total) return `Pass: ${all('limits')}, on instructions alone (time was not measured: waits, locks and I/O run no instructions).`;
      return `Pass: ${all('limits')}${untimed ? ` (${untimed} of them on instructions alone: not timed)` : ''}.`;
    }
  }
}

// "its rQPS spread on main is <p99>% (99th percentile of <runs> runs)": the signals unstable on
// main (learned limits); `words` names a signal otherwise (an AHI gain cell's rqps is its gain).
const SPREAD_WORDS = { rqps: 'rQPS', instructions: 'instr/o', cpu: 'cpu/o' };
function spreadWords(unstable, words = SPREAD_WORDS) {
  const each = unstable.map((u) => `${words[u.signal]} spread on main is ${(100 * u.p99).toFixed(1)}% (99th percentile of ${u.runs} runs)`);
  return `its ${each.join(', its ')}`;
}

module.exports = { signedBytes, clause, clauseOf, clausesOf, explain, unconfirmedPhrase, headline, listed, spreadWords };
