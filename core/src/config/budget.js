'use strict';
// A suite's budget: how much more a run may measure after its planned rounds and windows, in
// two knobs a user can reason about (docs/usage.md, "Budget"):
//   extra_pairs  the most timed pairs a row gets beyond measure.rounds, to narrow an open
//                interval and to confirm a fail or warn on fresh servers together;
//   minutes      the wall time the narrowing of a run may take, all rows together.
// Everything else (the size of a step, a confirmation, the instruction windows) is derived
// from them and the suite's measure by next-step.js's stepBudget.
const check = require('./checks');

const KEYS = ['extra_pairs', 'minutes'];
const FORM = 'budget: {extra_pairs: <timed pairs a row may get beyond measure.rounds>, minutes: <wall time of a run\'s extra measurement>}';
// The six knobs the budget had before it had two: a fork's suite file (or one perfgate
// calibrate wrote then) may still hold them.
const OLD_KEYS = ['extra_rounds', 'step_rounds', 'confirm_rounds', 'extra_windows', 'step_windows', 'confirm_windows'];

function loadBudget(src) {
  const at = ['budget'];
  const raw = check.mapping(src, at, { anyKeys: true, what: FORM });
  const old = Object.keys(raw).find((key) => OLD_KEYS.includes(key));
  if (old) {
    const pairs = (Number(raw.extra_rounds) || 0) + (Number(raw.confirm_rounds) || 0);
    src.fail([...at, old], `no longer a budget key (the budget is two knobs now); expected ${FORM}, e.g. {extra_pairs: ${pairs}, minutes: 5} for this file's extra_rounds + confirm_rounds (docs/usage.md, "Budget")`);
  }
  check.mapping(src, at, { required: KEYS, what: FORM });
  return {
    extra_pairs: check.number(src, [...at, 'extra_pairs'], { integer: true, min: 0 }),
    minutes: check.number(src, [...at, 'minutes'], { min: 0 }),
  };
}

module.exports = { loadBudget, BUDGET_KEYS: KEYS, OLD_BUDGET_KEYS: OLD_KEYS };
