'use strict';
// Instructions per query from the harness's callgrind windows (results `benchmarks[].instructions`):
// the paired intervals, and where the instructions went. Pure.
//
// Window i of the base and window i of the head ran the same events with the same seed on the
// same rows, so they pair like timed rounds do, and spread far less than QPS does
// (docs/usage.md#instructions-per-query).
const { pairedInterval, mean } = require('./statistics');

// A change smaller than this is inside what two processes of one build can differ by (heap
// state; docs/usage.md#instructions-per-query): functions are listed only above it.
const NOTEWORTHY_CHANGE = 0.01;

// A window's instructions per query: of one group of threads, or of all of them (`all`: the
// queries' own threads and the background work they left, drained after the window).
function windowPerQuery(window, group) {
  if (group !== 'all') return window[group].per_query;
  return window.connection.per_query + ((window.background && window.background.per_query) || 0);
}

function pairedWindowRatios(instructions, group) {
  const base = instructions.base.windows;
  const head = instructions.head.windows;
  const out = [];
  for (let i = 0; i < Math.min(base.length, head.length); i++) {
    const b = windowPerQuery(base[i], group);
    const h = windowPerQuery(head[i], group);
    if (b > 0 && h > 0) out.push({ index: i, ratio: h / b });
  }
  return out;
}

const intervalOfRatios = (ratios) => (ratios.length ? pairedInterval(ratios) : null);

// Geometric mean of one side's instructions per query over its windows.
function perQuery(side, group) {
  const values = side.windows.map((w) => w[group].per_query).filter((v) => v > 0);
  return values.length ? Math.exp(mean(values.map(Math.log))) : null;
}

/**
 * @returns {connection, background, all}: head/base instr/o intervals of the queries' own
 *          threads, of the threads they leave work for (purge, flushing), and of both
 *          together; and the figures behind them
 */
function instructionFigures(instructions) {
  return {
    connection: intervalOfRatios(pairedWindowRatios(instructions, 'connection')),
    background: intervalOfRatios(pairedWindowRatios(instructions, 'background')),
    all: intervalOfRatios(pairedWindowRatios(instructions, 'all')),
    per_query: {
      base: perQuery(instructions.base, 'connection'),
      head: perQuery(instructions.head, 'connection'),
      base_background: perQuery(instructions.base, 'background'),
      head_background: perQuery(instructions.head, 'background'),
    },
    events: instructions.events,
    windows: Math.min(instructions.base.windows.length, instructions.head.windows.length),
  };
}

// Stripped binaries name most functions by address, and addresses of two builds never match.
function hasSymbols(functions) {
  if (!functions.length) return false;
  const named = functions.filter((f) => !/^0x[0-9a-f]+$/i.test(f.name)).length;
  return named / functions.length >= 0.5;
}

// One side's top functions of the given thread groups (a function in both groups: summed).
const functionsOf = (side, groups) => groups.flatMap((g) => (side.functions && side.functions[g]) || []);

/**
 * The functions whose instructions per query grew most, head minus base (self: in the
 * function itself; inclusive: with what it called), largest self growth first: of the
 * connection threads, or of every thread (`groups` also 'background', where the instructions
 * of all threads decided). A function in one side's list only counts 0 on the other (below
 * its top list).
 */
function grownFunctions(instructions, limit = 10, groups = ['connection']) {
  const base = functionsOf(instructions.base, groups);
  const head = functionsOf(instructions.head, groups);
  const rows = new Map();
  const key = (f) => `${f.name}\u0000${f.object || ''}`;
  for (const [side, list] of [['base', base], ['head', head]]) {
    for (const f of list) {
      if (!rows.has(key(f))) rows.set(key(f), { name: f.name, object: f.object || '', source: f.source || null, base_self: 0, head_self: 0, base_inclusive: 0, head_inclusive: 0 });
      const row = rows.get(key(f));
      row[`${side}_self`] += f.self;
      row[`${side}_inclusive`] += f.inclusive;
      if (side === 'head' && f.source) row.source = f.source;
    }
  }
  return [...rows.values()]
    .map((r) => ({ ...r, self_growth: r.head_self - r.base_self, inclusive_growth: r.head_inclusive - r.base_inclusive }))
    .filter((r) => r.self_growth > 0 || r.inclusive_growth > 0)
    .sort((a, b) => b.self_growth - a.self_growth || b.inclusive_growth - a.inclusive_growth || a.name.localeCompare(b.name))
    .slice(0, limit);
}

/**
 * Where the instructions went, for a microbenchmark whose instr/o changed by more than
 * NOTEWORTHY_CHANGE: the grown functions, whether names can be matched, and the callgrind
 * files of the last window to open by hand.
 */
function whereInstructionsWent(instructions, interval, limit = 10, groups = ['connection']) {
  if (!interval || Math.abs(interval.estimate - 1) < NOTEWORTHY_CHANGE) return null;
  const headFunctions = functionsOf(instructions.head, groups);
  const symbols = hasSymbols(headFunctions);
  const files = { base: instructions.base.files || null, head: instructions.head.files || null };
  return {
    symbols,
    why: symbols ? null : 'the server binary has no symbols (stripped): its functions are named by address, which differ between two builds; build with debug info (perfgate build uses RelWithDebInfo) to see names',
    grown: symbols ? grownFunctions(instructions, limit, groups) : [],
    files,
    annotate: files.head ? `callgrind_annotate --inclusive=yes ${files.head}/callgrind.out.*` : null,
  };
}

module.exports = { instructionFigures, grownFunctions, whereInstructionsWent, hasSymbols, NOTEWORTHY_CHANGE };
