'use strict';
// Where a judged row's pooled intervals lie against its limits, read from the verdict's own
// figures: what the gate's promises are checked against (never-passes.test.js,
// confirmation.test.js).
function pooledIntervals(row, limits) {
  const time = row.rqps && row.rqps.low !== null ? row.rqps : null;
  const instr = row.instructions_per_query && row.instructions_per_query.low !== null ? row.instructions_per_query : null;
  return {
    beyondWarn: Boolean((time && time.high < limits.warn) || (instr && instr.low > limits.instructions.warn)),
    beyondFail: Boolean((time && time.high < limits.fail) || (instr && instr.low > limits.instructions.fail)),
    reachesWarn: Boolean((time && time.low < limits.warn) || (instr && instr.high > limits.instructions.warn)),
    single: Boolean((row.rqps && row.rqps.low === null) || (row.instructions_per_query && row.instructions_per_query.low === null)),
  };
}

module.exports = { pooledIntervals };
