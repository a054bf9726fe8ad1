'use strict';
const { parseCommand } = require('./parse');
const { helpText } = require('./help');
const { COMMANDS, LIMITS, usage } = require('./grammar');

module.exports = { parseCommand, helpText, COMMANDS, LIMITS, usage };
