'use strict';
const commands = require('./commands');
module.exports = { ...commands };
