'use strict';
// /perf help: anyone may ask (within the reply limit); 👍 and the help text.
const messages = require('../messages');
const gh = require('../pull-request');
const { whereOf, say } = require('../conversation');

module.exports = async function answerHelp(ctx, { octokit, request, lookFirst }) {
  await gh.acknowledge(octokit, whereOf(request), request.commentId);
  await say(ctx, octokit, request, messages.REPLIES.help({ author: request.author }), { status: 'answered', lookFirst });
};
