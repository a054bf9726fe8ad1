'use strict';

// Exit codes are part of perfgate's interface (README "Exit codes"): callers such as the
// action branch on them, so they live in one place.
const EXIT = Object.freeze({
  ok: 0,          // pass or warn
  fail: 1,        // a confirmed regression
  usage: 2,       // bad arguments, bad config, bad input files
  undecided: 3,   // an interval still reaches the fail limit once the budget is spent: it could be a fail
  error: 4,       // the measurement itself failed: a server crashed, sysbench failed, a build failed
});

// An error the user can fix: bad argument, bad file, bad key. The message is printed as one
// line, without a stack, and the process exits with `code`.
class UsageError extends Error {
  constructor(message, code = EXIT.usage) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = code;
  }
}

// A problem in a thresholds folder or a build recipe: the message already names the file, the
// line, the key, the bad value and the expected form.
class ConfigError extends UsageError {
  constructor(message) {
    super(message);
    this.name = 'ConfigError';
  }
}

module.exports = { EXIT, UsageError, ConfigError };
