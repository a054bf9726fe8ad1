'use strict';
// Where a request's conversation is and what the bot says there, for every job: the client of
// its installation, who may run commands, one reply to a command, where a measuring command
// stands (its reply, or the suite's sticky comment when the bot reports: PERFGATE_REPORT), and
// what a cancelled request had started stopped and said.
const core = require('@perfgate/core');
const store = require('../store');
const contract = require('./contract');
const messages = require('./messages');
const gh = require('./pull-request');
const signoff = require('./signoff');

function whereOf(request) {
  const [owner, repo] = request.repo.split('/');
  return { owner, repo, prNumber: request.prNumber };
}

async function clientFor(ctx, request, installationId = request.installationId) {
  if (installationId) return ctx.github.installation(installationId);
  const { owner, repo } = whereOf(request);
  const { data } = await ctx.github.app.rest.apps.getRepoInstallation({ owner, repo });
  return ctx.github.installation(data.id);
}

/** Write access (admin, maintain, write), or active membership of one of the configured teams. */
async function mayRun(ctx, octokit, { owner, repo }, login) {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: login });
    if (data.permission === 'admin' || data.permission === 'write') return true;
  } catch (err) {
    if (err.status !== 404) throw err;
  }
  for (const team of ctx.config.teams) {
    const [org, slug] = team.split('/');
    try {
      const { data } = await octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: slug, username: login });
      if (data.state === 'active') return true;
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  return false;
}

const suiteOf = (request) => request.suite || contract.SUITE_OF_COMMAND[request.command] || null;

/** Posts a reply once and moves the request to `status` (as its command job, or `by`: store LIFECYCLE). */
async function say(ctx, octokit, request, text, { status, lookFirst, by = 'command' }) {
  const replyId = await gh.postReply(octokit, whereOf(request), {
    commentId: request.commentId, author: ctx.botLogin, body: messages.reply(request.commentId, text), lookFirst,
  });
  await store.transition(ctx.store, request.id, status, { by, replyId });
}

/**
 * Says where a measuring command stands: its reply (the workflow reports), or the sticky
 * comment of its suite (the bot reports). `state`: queued | cancelled | failed | stored;
 * `body` replaces the sticky comment's text when the bot shows a verdict.
 */
async function tell(ctx, octokit, request, state, fields = {}) {
  const where = whereOf(request);
  const suite = suiteOf(request);
  if (ctx.config.report === 'bot') {
    if (!suite) return;
    const body = fields.body || messages.sticky(state, { suite, request, ...fields });
    await gh.upsertSticky(octokit, where, { marker: core.commentMarker(suite), author: ctx.botLogin, body });
    return;
  }
  const replyId = await gh.upsertReply(octokit, where, {
    commentId: request.commentId, replyId: request.replyId, author: ctx.botLogin,
    body: messages.reply(request.commentId, messages.STATUS[state]({ request, ...fields })), lookFirst: true,
  });
  if (replyId !== request.replyId) await store.updateRequest(ctx.store, request.id, { replyId });
}

/** Stops what cancelled requests started and says so: workflow run, check run, their state. */
async function announceCancelled(ctx, octokit, requests) {
  for (const request of requests) {
    const where = whereOf(request);
    if (request.runId) await gh.cancelRun(octokit, where, request.runId);
    // A sign-off says it in its report and its commit status (signoff.js).
    if (request.command === 'signoff' && await signoff.signoffCancelled(ctx, octokit, request)) continue;
    if (request.checkRunId) {
      await gh.completeCheckRun(octokit, where, request.checkRunId, { conclusion: 'cancelled', output: messages.CHECK.cancelled({ suite: suiteOf(request), request }) });
    }
    await tell(ctx, octokit, request, 'cancelled');
  }
}

/** After a step that wrote to GitHub: a request a push or /perf cancel cancelled meanwhile ends up said cancelled. */
async function settleCancelled(ctx, octokit, request) {
  const now = await store.getRequest(ctx.store, request.id);
  if (now.status === 'cancelled') await announceCancelled(ctx, octokit, [now]);
}

module.exports = { whereOf, clientFor, mayRun, suiteOf, say, tell, announceCancelled, settleCancelled };
