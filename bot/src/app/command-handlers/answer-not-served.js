'use strict';
// A command the grammar knows and this bot does not carry out yet (/perf compare): said so.
const messages = require('../messages');
const { say } = require('../conversation');

module.exports = async function answerNotServed(ctx, { octokit, request, command, lookFirst }) {
  await say(ctx, octokit, request, messages.REPLIES.notServed({ author: request.author, name: command.name }), { status: 'answered', lookFirst });
};
