'use strict';
const { openStore, schemaVersion, LATEST } = require('./open');
const history = require('./history');
const queue = require('./queue');
const requests = require('./requests');
const signoffs = require('./signoffs');
const { StoreError, redact } = require('./connection');

module.exports = { openStore, schemaVersion, LATEST_MIGRATION: LATEST, StoreError, redact, ...history, ...queue, ...requests, ...signoffs };
