'use strict';
const { startBot, WEBHOOK_PATH, HEALTH_PATH } = require('./service');
const { readBotConfig, describeKeys, CONFIG_KEYS } = require('./config');
const contract = require('./contract');

module.exports = { startBot, readBotConfig, describeBotConfig: describeKeys, CONFIG_KEYS, WEBHOOK_PATH, HEALTH_PATH, contract };
