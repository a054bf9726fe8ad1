'use strict';
const { openStore, schemaVersion, LATEST } = require('./open');
// commitId and findOrInsert stay inside the store (shared by its modules).
const { commitId, findOrInsert, ...history } = require('./history');
const regressions = require('./regressions');
const watchRuns = require('./watch-runs');
const queue = require('./queue');
const requests = require('./requests');
const bisections = require('./bisections');
const dashboard = require('./dashboard');
const signoffs = require('./signoffs');
const pullHeads = require('./pull-heads');
const health = require('./health');
const { StoreError, redact } = require('./connection');

module.exports = { openStore, schemaVersion, LATEST_MIGRATION: LATEST, StoreError, redact, ...history, ...queue, ...requests, ...bisections, ...dashboard, ...regressions, ...watchRuns, ...signoffs, ...pullHeads, ...health };
