'use strict';
// One handler per /perf command, by the command's name (the grammar's table: ../../commands).
// The command job (jobs.js) has found the request, authorized its author, answered a malformed
// command and acknowledged it; a handler does the command's own work:
//   handler(ctx, {octokit, request, command, job, lookFirst})
const startMeasurement = require('./start-measurement');
const rerunMeasurement = require('./rerun-measurement');
const explainRow = require('./explain-row');
const cancelRuns = require('./cancel-runs');
const recordWaiver = require('./record-waiver');
const startSignoff = require('./start-signoff');
const startBisection = require('./start-bisection');
const answerHelp = require('./answer-help');
const answerNotServed = require('./answer-not-served');

/** The table, given the bisection's jobs (bisect.js), which share the command job's steps. */
function commandHandlers({ bisect }) {
  return {
    quick: startMeasurement,
    full: startMeasurement,
    ahi: startMeasurement,
    ddl: startMeasurement,
    contention: startMeasurement,
    tpcc: startMeasurement,
    rerun: rerunMeasurement,
    why: explainRow,
    cancel: cancelRuns,
    waive: recordWaiver,
    signoff: startSignoff,
    bisect: startBisection(bisect),
    help: answerHelp,
    compare: answerNotServed,
  };
}

module.exports = { commandHandlers };
