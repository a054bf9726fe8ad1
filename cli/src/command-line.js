'use strict';
const { parseArgs } = require('node:util');
const { UsageError } = require('@perfgate/core');

// node:util parseArgs errors are multi-line prose; every perfgate command prints one line
// instead, naming the option and what is expected. `allowPositionals` for commands that take
// a folder (perfgate judge <dir>).
function parseCommandLine(command, argv, options, { allowPositionals = false } = {}) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    const option = /'(-[^' ]+)/.exec(err.message);
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const known = Object.keys(options).map((o) => `--${o}`).join(', ');
      throw new UsageError(`unknown option '${option ? option[1] : err.message}'; expected one of: ${known}`);
    }
    if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const name = option ? option[1] : '--option';
      throw new UsageError(`${name}: missing its value; expected ${name} <value> (see perfgate ${command} --help)`);
    }
    if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const arg = /'([^']+)'/.exec(err.message);
      throw new UsageError(`unexpected argument '${arg ? arg[1] : ''}'; expected only options (see perfgate ${command} --help)`);
    }
    throw err;
  }
}

module.exports = { parseCommandLine };
