'use strict';
const { UsageError } = require('../errors');

// A problem in thresholds/: the message already names file, line, key, value and expected form.
class ConfigError extends UsageError {
  constructor(message) {
    super(message);
    this.name = 'ConfigError';
  }
}

module.exports = { ConfigError };
