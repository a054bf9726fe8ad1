'use strict';
// What A/A runs (the base server against itself) say about a runner: per microbenchmark and
// per signal, how far an unchanged build's interval reaches, and the limits that keep such
// runs quiet while catching what lies beyond. Pure: results and the suite in, calibration and
// a suite file out.
//
// The method (docs/usage.md, "perfgate calibrate", says the same for users). Work on log
// ratios head/base, one signal at a time: rQPS from the timed rounds, instr/o from the
// instruction windows. Each A/A run is one pair of freshly started servers.
//   within   s_w: the spread of one pair's paired ratios (rounds or windows) around that pair's
//            own mean, pooled over the pairs.
//   between  the spread of the pairs' estimates around 1 (the truth of an A/A run) beyond what
//            s_w explains: what two processes of one build differ by for good (heap state,
//            memory placement, where their threads ran). Two processes can count further apart
//            than one process's windows spread (docs/usage.md#instructions-per-query): a limit
//            from the within spread alone would fail unchanged builds.
//   Both are taken at their upper 90% confidence bound (chi-square on their degrees of
//   freedom), so that a calibration from few pairs comes out wide, not lucky.
//   An A/A estimate after n rounds (or windows) spreads by σ_e(n) = √(between² + s_w²/n), and
//   its 95% interval reaches h(n) = t(0.975, n−1)·s_w/√n either side of it. A row is judged
//   warn only when its whole interval lies beyond warn (docs/verdicts.md): an A/A row does so
//   when its estimate lies beyond warn by more than h(n). The within spread is what the
//   interval already covers; the between spread is what it cannot
//   (every round of a run measures the same two processes), and it does not shrink as rounds
//   are added. So, for every size n a row can reach under the suite's budget (its planned
//   rounds or windows up to those plus every extra and confirming one):
//   warn  A/A rows judged warn at most 1% of the time: distance max_n z(0.99)·σ_e(n) − h(n),
//         and never where one of the A/A pairs' own intervals lay wholly beyond it;
//   fail  at most 0.1%: max_n z(0.999)·σ_e(n) − h(n), and at least a gap beyond warn.
//   Floors keep limits from resting on a calibration that happened to look quiet. Caps bound
//   what a calibration may give up: a calibrated runner still fails a 15% time-only slowdown
//   and a 4% instructions change its interval puts wholly beyond them (0.85, 1.04). Noise
//   beyond the caps is the rule's business, not the limit's: an interval that reaches a limit
//   stays open, and a fail is measured again on fresh servers before it stands (the shipped
//   limits on noisy runners: docs/measurements.md). Limits are rounded outward (rQPS down to
//   2 decimals, instr/o up to 3).
const { Document, parseDocument, isMap } = require('yaml');
const { pairedRatios, studentTQuantile, normalQuantile, chiSquareQuantile, mean, sampleSd } = require('./statistics');
const { instructionFigures } = require('./instructions');
const { judge } = require('./verdict');
const { stepBudget } = require('./next-step');
const { sideScheduleWords } = require('./side-schedules');
const { threadCounts } = require('./thread-scaling');

const METHOD = Object.freeze({
  warn_quantile: 0.99,
  fail_quantile: 0.999,
  bound_confidence: 0.9,
  interval_confidence: 0.95,
  power: 0.8,
});

// Per signal: which way is worse (-1: lower, rQPS; +1: higher, instr/o), how limits round,
// and the floors and caps (ratios; `gap`: the least distance from warn to fail).
const RULES = Object.freeze({
  time: { word: 'rQPS', worse: -1, digits: 2, warnFloor: 0.99, warnCap: 0.90, gap: 0.02, failCap: 0.85 },
  // instr/o's floors are the quick suite's shipped limits (1.003 / 1.007): a quiet runner is
  // held as tightly as shipped, never looser.
  instructions: { word: 'instr/o', worse: 1, digits: 3, warnFloor: 1.003, warnCap: 1.02, gap: 0.004, failCap: 1.04 },
});

const sq = (x) => x * x;

// Upper bound of a variance estimated with df degrees of freedom.
function upperVariance(variance, df) {
  return df > 0 ? (variance * df) / chiSquareQuantile(1 - METHOD.bound_confidence, df) : Infinity;
}

// Spread of log ratios around their own pair's mean, pooled over the pairs, and its degrees
// of freedom (null without two ratios in one pair).
function pooledWithin(groups) {
  const df = groups.reduce((s, g) => s + Math.max(0, g.length - 1), 0);
  if (!df) return { sd: null, df };
  const ss = groups.reduce((s, g) => (g.length ? s + g.reduce((t, x) => t + sq(x - mean(g)), 0) : s), 0);
  return { sd: Math.sqrt(ss / df), df };
}

const tHalf = (n) => studentTQuantile(0.5 + METHOD.interval_confidence / 2, n - 1);

/**
 * The A/A spread of one signal of one microbenchmark, from the log paired ratios of each pair
 * of server processes, for rows of n to nMax rounds or windows (the suite's size, and that
 * size with its whole budget spent). Null when no pair measured two ratios (a spread needs
 * them).
 * @param worse  -1 where lower is worse (rQPS), +1 where higher is (instr/o)
 */
function aaSpread(groups, n, nMax, worse) {
  const pairs = groups.filter((g) => g.length > 0);
  const { sd: within, df: dfWithin } = pooledWithin(pairs);
  if (within === null || n < 2) return null;
  const means = pairs.map(mean);
  const meanSquare = mean(means.map(sq));
  const ofMeans = sq(within) * mean(pairs.map((g) => 1 / g.length));
  const withinUp = Math.sqrt(upperVariance(sq(within), dfWithin));
  const betweenUp = Math.sqrt(Math.max(0, upperVariance(meanSquare, pairs.length) - ofMeans));
  const spreadAt = (m) => Math.sqrt(sq(betweenUp) + sq(withinUp) / m);
  const halfWidthAt = (m) => tHalf(m) * withinUp / Math.sqrt(m);
  // How far beyond 1, the worse way, each pair's own interval lay as a whole (its better end),
  // at its own size: a limit inside that would have judged an unchanged build beyond it.
  const wholeBeyond = pairs.filter((g) => g.length >= 2)
    .map((g) => worse * mean(g) - tHalf(g.length) * sampleSd(g) / Math.sqrt(g.length));
  return {
    pairs: pairs.length,
    measured: pairs.map((g) => g.length),
    estimates: means.map(Math.exp),
    min: Math.exp(Math.min(...pairs.flat())),
    max: Math.exp(Math.max(...pairs.flat())),
    within_sd: within,
    between_sd: Math.sqrt(Math.max(0, meanSquare - ofMeans)),
    sizes: { from: n, to: Math.max(n, nMax) },
    spread: spreadAt(n),
    half_width: halfWidthAt(n),
    aa_edge: Math.max(0, ...wholeBeyond),
    // The distance from 1 beyond which at most a share 1 − q of A/A rows is judged, at the
    // worst size a row can reach.
    beyond: (z) => {
      let worst = -Infinity;
      for (let m = n; m <= Math.max(n, nMax); m++) worst = Math.max(worst, z * spreadAt(m) - halfWidthAt(m));
      return worst;
    },
  };
}

const roundOut = (ratio, rule) => {
  const f = 10 ** rule.digits;
  // A hair of tolerance so that 1.0100000000000002 stays 1.01.
  return rule.worse > 0 ? Math.ceil(ratio * f - 1e-9) / f : Math.floor(ratio * f + 1e-9) / f;
};
// Limits in distance (log of the ratio, worse direction positive) and back.
const toRatio = (distance, rule) => Math.exp(rule.worse * distance);
const toDistance = (ratio, rule) => rule.worse * Math.log(ratio);

/** Suggested {warn, fail} of one signal from its A/A spread, with what bounded each. */
function limitsFromSpread(s, rule) {
  const zWarn = normalQuantile(METHOD.warn_quantile);
  const zFail = normalQuantile(METHOD.fail_quantile);
  const modelWarn = s.beyond(zWarn);
  let warnDistance = Math.max(modelWarn, s.aa_edge);
  let warnBound = s.aa_edge > modelWarn ? 'observed' : null;
  if (warnDistance < toDistance(rule.warnFloor, rule)) [warnDistance, warnBound] = [toDistance(rule.warnFloor, rule), 'floor'];
  if (warnDistance > toDistance(rule.warnCap, rule)) [warnDistance, warnBound] = [toDistance(rule.warnCap, rule), 'cap'];
  const warn = roundOut(toRatio(warnDistance, rule), rule);
  let failDistance = s.beyond(zFail);
  let failBound = null;
  const gapped = toDistance(warn + rule.worse * rule.gap, rule);
  if (failDistance < gapped) [failDistance, failBound] = [gapped, 'gap'];
  if (failDistance > toDistance(rule.failCap, rule)) [failDistance, failBound] = [toDistance(rule.failCap, rule), 'cap'];
  const fail = roundOut(toRatio(failDistance, rule), rule);
  // A change of this size is judged at least warn (fail) in 80% of runs: its interval's near
  // edge lies beyond the limit.
  const reach = s.half_width + normalQuantile(METHOD.power) * s.spread;
  return {
    suggested: { warn, fail },
    bound: { warn: warnBound, fail: failBound },
    catches: { warn: toRatio(toDistance(warn, rule) + reach, rule), fail: toRatio(toDistance(fail, rule) + reach, rule) },
  };
}

function signalCalibration(groups, n, nMax, rule) {
  const s = n ? aaSpread(groups, n, nMax, rule.worse) : null;
  if (!s) return null;
  const { beyond, ...figures } = s;
  return { ...figures, ...limitsFromSpread(s, rule) };
}

const logs = (ratios) => ratios.map(Math.log);

function timeGroups(runs, id, metric) {
  return runs.map((r) => {
    const b = r.benchmarks.find((x) => x.id === id && x.status === 'ok');
    return b ? logs(pairedRatios(b.rounds || [], metric).map((p) => p.ratio)) : [];
  });
}

// The queries' own instructions only: the limits are tight where they repeat, and the noisier
// figure of all threads (which only proves, on every pair of processes) must not loosen them.
function instructionGroups(runs, id) {
  return runs.map((r) => {
    const b = r.benchmarks.find((x) => x.id === id && x.status === 'ok');
    const figures = b && b.instructions ? instructionFigures(b.instructions).connection : null;
    return figures ? logs(figures.ratios) : [];
  });
}

// What the A/A runs measured with (their plan), which may differ from the suite's settings.
function measuredSettings(results) {
  const plan = results.plan || {};
  if (!plan.scale || !plan.measure) return null;
  const counted = (plan.measure.signals || []).includes('instructions') && plan.measure.instructions;
  return {
    tables: plan.scale.tables, rows: plan.scale.rows, seconds: plan.measure.seconds, rounds: plan.measure.rounds,
    windows: counted ? plan.measure.instructions.windows : null,
    // The spread of a pair depends on how its rounds were run: limits are for that way.
    side_schedule: plan.measure.side_schedule || 'in-turn',
    // ... and on whether sysbench and mysqld had CPUs of their own (the CPU sets, or null).
    pin_cpus: plan.measure.pin_cpus || null,
    // ... and on the client threads: pairs spread differently at one thread than at two, and a
    // wait shows whole at one and partly hidden at two (docs/runner-setup.md, "CPU pinning").
    threads: threadCounts(plan.benchmarks || []),
  };
}

/**
 * calibrate(runs, suite) -> perfgate.calibration/v4
 *   runs   A/A results documents, one per pair of freshly started servers (the same plan)
 *   suite  the loaded suite (config.suites[name]): its limits judge the A/A runs as they stand,
 *          its measure.rounds and instructions.windows are the sizes the limits are made for
 */
function calibrate(runs, suite) {
  if (!Array.isArray(runs) || !runs.length) throw new Error('calibrate: expected a list of A/A results documents, one per pair of servers');
  const verdicts = runs.map((r) => judge(r, suite));
  const at = { rounds: suite.measure.rounds, windows: suite.instructions ? suite.instructions.windows : null };
  // The largest size a row reaches: every extra and confirming round or window spent on it.
  const budget = stepBudget(suite.budget, at);
  const upTo = {
    rounds: at.rounds + budget.extra_rounds + budget.confirm_rounds,
    windows: at.windows === null ? null : at.windows + budget.extra_windows + budget.confirm_windows,
  };
  const ids = [];
  for (const r of runs) for (const b of r.benchmarks) if (!ids.includes(b.id)) ids.push(b.id);
  const benchmarks = ids.map((id) => {
    const rows = verdicts.map((v) => v.benchmarks.find((b) => b.id === id) || null);
    const judged = rows.find(Boolean);
    return {
      id,
      aa_verdicts: rows.map((b) => (b ? b.verdict : 'error')),
      limits: judged ? judged.limits : null,
      time: signalCalibration(timeGroups(runs, id, 'qps'), at.rounds, upTo.rounds, RULES.time),
      cpu_per_query_sd: pooledWithin(timeGroups(runs, id, 'cpu_per_query_us')).sd,
      instructions: signalCalibration(instructionGroups(runs, id), at.windows, upTo.windows, RULES.instructions),
    };
  });
  const suggested = {};
  for (const b of benchmarks) {
    const entry = {};
    if (b.time) Object.assign(entry, b.time.suggested);
    if (b.instructions) entry.instructions = { ...b.instructions.suggested };
    if (Object.keys(entry).length) suggested[b.id] = entry;
  }
  const first = verdicts[0];
  return {
    schema: 'perfgate.calibration/v4',
    suite: first.suite,
    machine: first.run.machine,
    server: first.run.sides.base,
    pairs: runs.length,
    measured: measuredSettings(runs[0]),
    at,
    method: { ...METHOD, limits: RULES },
    doctor: [...new Set(verdicts.flatMap((v) => v.doctor || []))],
    aa: verdicts.map((v, k) => ({ pair: k + 1, verdict: v.verdict, headline: v.headline })),
    benchmarks,
    suggested,
  };
}

// --- what calibrate prints and writes -------------------------------------------------------

const pct = (x, digits = 1) => (typeof x === 'number' ? `${(x * 100).toFixed(digits)}%` : '–');
// A ratio as the change it stands for: 0.79 → -21%, 1.014 → +1.4%.
const change = (ratio, digits) => `${ratio >= 1 ? '+' : '-'}${(Math.abs(ratio - 1) * 100).toFixed(digits)}%`;
const BOUND_WORDS = { floor: 'floor', cap: 'cap', gap: 'gap', observed: 'A/A edge' };

function boundText(bound) {
  const parts = [];
  if (bound.warn) parts.push(`warn ${BOUND_WORDS[bound.warn]}`);
  if (bound.fail) parts.push(`fail ${BOUND_WORDS[bound.fail]}`);
  return parts.join(', ') || '–';
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

function signalTable(cal, key, rule, size) {
  const rows = cal.benchmarks.filter((b) => b[key]).map((b) => {
    const s = b[key];
    const f = (x) => x.toFixed(rule.digits);
    return [b.id, s.estimates.map(f).join(' '), `${f(s.min)}–${f(s.max)}`, pct(s.within_sd, rule.digits - 1), pct(s.between_sd, rule.digits - 1),
      pct(Math.exp(s.half_width) - 1, rule.digits - 1), f(s.suggested.warn), f(s.suggested.fail),
      `${change(s.catches.warn, rule.digits - 1)} / ${change(s.catches.fail, rule.digits - 1)}`, boundText(s.bound)];
  });
  if (!rows.length) return [];
  return table(['microbenchmark', `A/A ${rule.word} per pair`, 'min–max', 'within', 'between', `±95% at ${size}`, 'warn', 'fail', 'caught as warn / fail', 'limited by'], rows);
}

/** The text `perfgate calibrate` prints: both signals' tables, the suggested limits, the A/A verdicts. */
function renderCalibration(cal) {
  const sizes = [`${cal.at.rounds} rounds per side`, cal.at.windows ? `${cal.at.windows} instruction windows` : null].filter(Boolean).join(' and ');
  const out = [
    `perfgate calibrate: ${cal.server && cal.server.version} against itself, suite ${cal.suite}: ${cal.pairs} pair${cal.pairs === 1 ? '' : 's'} of freshly started servers; limits for ${sizes}`,
  ];
  const time = signalTable(cal, 'time', RULES.time, cal.at.rounds);
  if (time.length) out.push('', 'rQPS (timed rounds):', '', ...time);
  const instr = signalTable(cal, 'instructions', RULES.instructions, cal.at.windows);
  if (instr.length) out.push('', 'instr/o (connection threads, paired windows):', '', ...instr);
  out.push(
    '',
    'within: spread (sd of log ratios) of one pair\'s rounds or windows; between: of the pairs\' estimates beyond that (two processes of one build).',
    `±95%: reach of an A/A interval at the suite's size. warn: A/A rows are judged warn (the whole interval beyond it) at most ${pct(1 - METHOD.warn_quantile, 0)} of the time, fail ${pct(1 - METHOD.fail_quantile, 1)},`,
    `at every size the suite's budget lets a row reach (spreads at their upper ${pct(METHOD.bound_confidence, 0)} confidence bound). caught as warn / fail: a change this large is judged so in ${pct(METHOD.power, 0)} of runs.`,
    `limited by: floor (rQPS warn ${RULES.time.warnFloor}, instr/o warn ${RULES.instructions.warnFloor}), cap (rQPS warn ${RULES.time.warnCap} / fail ${RULES.time.failCap}, instr/o ${RULES.instructions.warnCap} / ${RULES.instructions.failCap}: the most a calibration gives up; a signal noisier than that leaves more rows open),`,
    `gap (fail at least ${RULES.time.gap} / ${RULES.instructions.gap} beyond warn), A/A edge (an A/A pair's whole interval lay further).`,
  );
  if (Object.keys(cal.suggested).length) out.push('', 'Suggested limits per microbenchmark (suite file format):', '', suggestedLimitsText(cal).trimEnd());
  out.push('', 'A/A verdicts at the current limits:', ...cal.aa.map((a) => `  pair ${a.pair}: ${a.verdict}: ${a.headline}`));
  for (const w of cal.doctor || []) out.push(`runner warning: ${w}`);
  return out.join('\n') + '\n';
}

// One entry of `limits:` as written in a suite file: a flow mapping on one line, ratios with
// the digits their signal rounds to (0.80, not 0.8).
function limitsNode(doc, entry, digits = RULES.time.digits) {
  const node = doc.createNode(entry);
  node.flow = true;
  for (const pair of node.items) {
    if (isMap(pair.value)) {
      pair.value.flow = true;
      for (const inner of pair.value.items) inner.value.minFractionDigits = RULES.instructions.digits;
    } else if (typeof pair.value.value === 'number') {
      pair.value.minFractionDigits = digits;
    }
  }
  return node;
}

// The comment above a calibrated entry: what each signal's A/A pairs showed.
const AA_COMMENT = /^ (rQPS|instr\/o): A\/A on \d+ pairs? of servers/;
function aaComment(b) {
  const lines = [];
  for (const [key, rule] of [['time', RULES.time], ['instructions', RULES.instructions]]) {
    const s = b[key];
    if (!s) continue;
    const capped = s.bound.warn === 'cap' ? `; capped: ${rule.word} is noisier here than its limits, so more of its rows stay open` : '';
    lines.push(` ${rule.word}: A/A on ${s.pairs} pair${s.pairs === 1 ? '' : 's'} of servers, within ${pct(s.within_sd, rule.digits - 1)}, between ${pct(s.between_sd, rule.digits - 1)}${capped}`);
  }
  return lines.join('\n');
}

/** The suggested entries alone, as a `limits:` block to paste into a suite file. */
function suggestedLimitsText(cal) {
  const doc = new Document({});
  const limits = doc.createNode({});
  for (const [id, entry] of Object.entries(cal.suggested)) limits.set(id, limitsNode(doc, entry));
  doc.contents.set('limits', limits);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

const HEADER_START = ' Limits per microbenchmark from `perfgate calibrate`';

function measuredText(m) {
  if (!m) return 'the suite\'s settings';
  const windows = m.windows ? `, ${m.windows} instruction windows` : '';
  const sides = m.side_schedule && m.side_schedule !== 'in-turn' ? `, ${sideScheduleWords(m.side_schedule)}` : '';
  const threads = m.threads && m.threads.length ? `, ${m.threads.join(', ')} client thread${m.threads.length === 1 && m.threads[0] === 1 ? '' : 's'}` : '';
  return `${m.tables} tables × ${m.rows.toLocaleString('en-US')} rows${threads}, ${m.rounds} rounds per side of ${m.seconds} s${sides}${windows}`;
}

// The spread of a timed pair depends on the length of its rounds and on how the sides share
// the machine (in turn or alternating: docs/usage.md#perfgate-compare), so the calibrated
// file runs its rounds as the A/A pairs ran: limits made with
// `--sides alternating` and judged on rounds in turn would warn on noise. Sets
// measure.threads, seconds, side_schedule and pin_cpus in `doc` where they differ (a file
// calibrated twice reads the same); the sentence saying so, or null. (Rounds differ on
// purpose: the limits are made for the suite's own number.)
function measuredHow(doc, measured) {
  const measure = doc.get('measure', true);
  if (!measured || !isMap(measure)) return null;
  if (measured.seconds !== undefined && measure.get('seconds') !== measured.seconds) measure.set('seconds', measured.seconds);
  if ((measure.get('side_schedule') || 'in-turn') !== measured.side_schedule) measure.set('side_schedule', measured.side_schedule);
  // Pairs pinned (the suite's split or a runner's sets) make a pinned suite, unpinned pairs an
  // unpinned one: split limits judged on rounds free to move would warn on noise. (A
  // calibration recorded before pinning was recorded says nothing: the file keeps its own.)
  const pinned = measured.pin_cpus === undefined ? undefined : (measured.pin_cpus ? 'split' : 'none');
  if (pinned !== undefined && (measure.get('pin_cpus') || 'none') !== pinned) measure.set('pin_cpus', pinned);
  const pinWords = pinned === undefined ? '' : `, measure.pin_cpus (${measure.get('pin_cpus') || 'none'})`;
  // The limits are keyed by microbenchmark alone when the pairs ran one thread count: the file
  // runs the thread counts the pairs ran. (A calibration recorded before threads were says nothing.)
  const ranThreads = measured.threads && measured.threads.length ? measured.threads : null;
  if (ranThreads) {
    const own = [].concat(measure.toJSON().threads);
    if (own.join(',') !== ranThreads.join(',')) {
      measure.set('threads', ranThreads.length === 1 ? ranThreads[0] : doc.createNode(ranThreads, { flow: true }));
    }
  }
  const threadWords = ranThreads ? `measure.threads (${ranThreads.join(', ')}), ` : '';
  return `${threadWords}measure.seconds (${measure.get('seconds')})${pinWords} and measure.side_schedule (${measure.get('side_schedule') || 'in-turn'}) are as the pairs ran: the limits hold for rounds run that way.`;
}

/**
 * The suite file `sourceText` with the suggested limits of `cal` written into its `limits`:
 * one entry per calibrated microbenchmark (keys an entry already had, like cpu_per_query, stay),
 * `default` as it was (safe on runners never calibrated), a comment saying where they came from,
 * and the round length and side schedule the A/A pairs ran with (measuredHow).
 * @param date  when the calibration ran (YYYY-MM-DD), for the header
 */
function suggestedSuiteText(sourceText, cal, { date }) {
  const doc = parseDocument(sourceText);
  if (doc.errors.length) throw new Error(`suggestedSuiteText: the suite file does not parse: ${doc.errors[0].message}`);
  const limits = doc.get('limits', true);
  if (!isMap(limits)) throw new Error('suggestedSuiteText: the suite file has no limits mapping');
  for (const b of cal.benchmarks) {
    const entry = cal.suggested[b.id];
    if (!entry) continue;
    const node = limitsNode(doc, entry);
    const pair = limits.items.find((p) => p.key && p.key.value === b.id);
    // Keys the entry had and calibration does not set (cpu_per_query) stay, after the new ones.
    if (pair && isMap(pair.value)) for (const old of pair.value.items) if (!node.has(old.key.value)) node.items.push(old);
    const key = doc.createNode(b.id);
    // A comment of the entry's own stays; one from an earlier calibration is replaced. (The
    // parser hangs the comment above a mapping's first entry on the mapping.)
    const opening = pair === limits.items[0] ? [limits.commentBefore] : [];
    if (pair === limits.items[0]) limits.commentBefore = null;
    const kept = [...opening, pair && pair.key.commentBefore].filter(Boolean).join('\n').split('\n').filter((l) => !AA_COMMENT.test(l));
    key.commentBefore = [...kept, aaComment(b)].join('\n');
    if (pair) Object.assign(pair, { key, value: node });
    else limits.items.push(doc.createPair(key, node));
  }
  const how = measuredHow(doc, cal.measured);
  const m = cal.machine || {};
  const host = [m.hostname, m.cpu_model, m.cores ? `${m.cores} CPUs` : null].filter(Boolean).join(', ');
  const header = [
    `${HEADER_START} on ${host || 'this runner'}, ${date}:`,
    ` ${(cal.server && cal.server.version) || 'the base server'} against itself on ${cal.pairs} pair${cal.pairs === 1 ? '' : 's'} of freshly started servers.`,
    ` Measured at ${measuredText(cal.measured)}.`,
    ...(how ? [` ${how}`] : []),
    ' How they are computed: docs/usage.md, "perfgate calibrate". `default` is left as it was, safe',
    ' on a runner never calibrated. Copy this file to thresholds/suites/ of your fork.',
  ].join('\n');
  // The file's opening comment (the parser hangs it on the first key) stays; the header of an
  // earlier calibration is replaced.
  const first = doc.contents.items[0].key;
  const opening = [doc.commentBefore, first.commentBefore].filter(Boolean).join('\n\n');
  const own = opening.split('\n\n').filter((block) => block && !block.startsWith(HEADER_START));
  doc.commentBefore = null;
  first.commentBefore = [header, ...own].join('\n\n');
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
module.exports = {
  calibrate, renderCalibration, suggestedSuiteText, suggestedLimitsText, METHOD, RULES, pct, roundOut, toRatio, toDistance,
};
