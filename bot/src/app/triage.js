'use strict';
// What a verified webhook delivery means for the bot, decided from the delivery alone: pure,
// no database, no GitHub. Either {ignore: reason} (answered 200, nothing written, nothing
// called), {malformed: reason} (a field the bot acts on is not of the form GitHub sends:
// answered 400, nothing written), or {work}: what the webhook handler records and queues.
//
//   issue_comment.created on a pull request, by a person, holding a /perf command (on an
//   issue: only /perf signoff and /perf waive, a release sign-off's conversation)
//       → {kind: 'command', ...}: parsed now, acted on by the worker
//   pull_request.opened and .reopened
//       → {kind: 'head', ...}: the pull request's head from then on is recorded
//   pull_request.synchronize (a push) and .closed
//       → {kind: 'push', ...}: cancels the pull request's commands written before it; the
//         pushed head is recorded
//   push to the watched branch (PERFGATE_WATCH=on)
//       → {kind: 'watch-push', ...}: the pushed commit is measured against the previous one
//   workflow_run.completed of a workflow the bot dispatches
//       → {kind: 'run', ...}: the worker downloads, checks and stores its run folder
const { parseCommand } = require('../commands');
const { commandLines } = require('../commands/markdown');
const { workflowPath } = require('./contract');
const { mainPush } = require('./watch-main');
const { starterOf } = require('./dispatch');

const ISSUE_COMMANDS = Object.freeze(['signoff', 'waive', 'cancel']);

// The fields the bot takes from a delivery, each with the form GitHub sends it in. A signed
// delivery is GitHub's, but a field of another form would otherwise reach the store or the
// API as it is (and fail there, as a 500 GitHub shows with no reason).
const FORMS = {
  id: { test: (v) => Number.isSafeInteger(v) && v > 0, expected: 'a positive integer' },
  login: { test: (v) => typeof v === 'string' && v !== '', expected: 'a login' },
  text: { test: (v) => v === null || typeof v === 'string', expected: 'text or null' },
  sha: { test: (v) => typeof v === 'string' && /^[0-9a-f]{40}$/.test(v), expected: '40 hex digits' },
  optionalId: { test: (v) => v === undefined || v === null || (Number.isSafeInteger(v) && v > 0), expected: 'a positive integer or nothing' },
  action: { test: (v) => v === undefined || typeof v === 'string', expected: 'an action name' },
  // A comment's time is what its approval is pinned to (approval.js), and what a later push
  // cancels it by: a command of unknown or implausible time could be neither.
  time: { test: (v, now) => stampOf(v, now) !== null, expected: 'a time such as 2026-11-25T12:00:00Z, from 2008 (GitHub\'s start) to a day from now' },
};

// GitHub's stamps: ISO 8601 (2026-11-25T12:00:00Z), none before GitHub began, none days ahead
// of this clock. Date.parse alone takes "0" (the year 2000) and much else.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;
const GITHUB_BEGAN_MS = Date.parse('2008-01-01T00:00:00Z');
const AHEAD_MS = 24 * 3600 * 1000;

/** A stamp's time in ms, or null when it is not a plausible GitHub stamp. */
function stampOf(value, now) {
  if (typeof value !== 'string' || !ISO_TIME.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && ms >= GITHUB_BEGAN_MS && ms <= now + AHEAD_MS ? ms : null;
}

/** The first of `fields` ([name, value, form]) not of its form, as a reason; else null. */
function malformed(fields, now = Date.now()) {
  for (const [name, value, form] of fields) {
    if (!FORMS[form].test(value, now)) {
      const shown = JSON.stringify(value);
      return `the delivery's ${name} is ${shown === undefined ? 'missing' : (shown.length > 60 ? `${shown.slice(0, 60)}…` : shown)}; expected ${FORMS[form].expected}`;
    }
  }
  return null;
}

function repositoryOf(payload) {
  const name = payload && payload.repository && payload.repository.full_name;
  return typeof name === 'string' ? name : null;
}

function installationOf(payload) {
  const id = payload && payload.installation && payload.installation.id;
  return Number.isInteger(id) ? id : null;
}

function commandComment(payload, context) {
  const { comment, issue } = payload;
  if (!comment || !issue) return { ignore: 'the delivery has no comment' };
  if (comment.user && comment.user.type === 'Bot') return { ignore: "a bot's comment" };
  const wrong = malformed([
    ['comment.id', comment.id, 'id'], ['comment.body', comment.body ?? null, 'text'], ['comment.user.login', comment.user && comment.user.login, 'login'],
    ['comment.created_at', comment.created_at, 'time'], ['issue.number', issue.number, 'id'],
  ], context.now);
  if (wrong) return { malformed: wrong };
  const parsed = parseCommand(comment.body, { benchmarks: context.benchmarks });
  if (parsed === null) return { ignore: 'no /perf command in the comment' };
  // In an issue (e.g. a release tracking issue) only a release sign-off, its waivers and its
  // cancellation count.
  const onPullRequest = Boolean(issue.pull_request);
  if (!onPullRequest && !(parsed.command && ISSUE_COMMANDS.includes(parsed.command.name))) {
    return { ignore: `a comment on an issue, not on a pull request (in issues only ${ISSUE_COMMANDS.map((c) => `/perf ${c}`).join(', ')} count)` };
  }
  const line = parsed.command ? parsed.command.line : commandLines(comment.body)[0];
  return {
    work: {
      kind: 'command',
      commentId: comment.id,
      commentUrl: comment.html_url || null,
      commentCreatedAt: stampOf(comment.created_at, context.now),
      author: comment.user && comment.user.login,
      prNumber: issue.number,
      onPullRequest,
      line,
      parsed,
    },
  };
}

// A pull request's number and head, and the time GitHub stamped on the delivery: when the
// push (or the opening, the reopening, the close) landed.
function pullHead(payload, context, action, kind, stampFrom) {
  const pull = payload.pull_request;
  if (!pull || !pull.head) return { ignore: 'the delivery has no pull request' };
  const wrong = malformed([['pull_request.number', pull.number, 'id'], ['pull_request.head.sha', pull.head.sha, 'sha']]);
  if (wrong) return { malformed: wrong };
  return { work: { kind, action, prNumber: pull.number, headSha: pull.head.sha, at: stampOf(stampFrom(pull), context.now) } };
}

function workflowRun(payload, context) {
  const run = payload.workflow_run;
  if (!run) return { ignore: 'the delivery has no workflow run' };
  const watched = context.watch && context.watch.enabled ? [context.watch.workflow] : [];
  const dispatched = [...new Set([...Object.values(context.workflows), ...watched])].map(workflowPath);
  const runPath = typeof run.path === 'string' ? run.path : '';
  if (!dispatched.includes(runPath.split('@')[0])) return { ignore: `a run of ${runPath.slice(0, 200) || '(no path)'}, not of ${dispatched.join(' or ')}` };
  const wrong = malformed([['workflow_run.id', run.id, 'id'], ['workflow_run.run_attempt', run.run_attempt, 'optionalId']]);
  if (wrong) return { malformed: wrong };
  return { work: runWork(run) };
}

/** A completed run's job payload, from a delivery's workflow_run or the REST API's run (the sweep). */
function runWork(run) {
  return {
    kind: 'run',
    runId: run.id,
    attempt: run.run_attempt || 1,
    conclusion: run.conclusion,
    displayTitle: run.display_title || null,
    runUrl: run.html_url || null,
    // Who started it: the run jobs take only runs this App dispatched (dispatch.js).
    starter: starterOf(run),
  };
}

const HANDLED = {
  'issue_comment.created': commandComment,
  // The head from then on, which a later /perf approves (approval.js); nothing to cancel.
  'pull_request.opened': (payload, context) => pullHead(payload, context, 'opened', 'head', (pull) => pull.created_at || pull.updated_at),
  'pull_request.reopened': (payload, context) => pullHead(payload, context, 'reopened', 'head', (pull) => pull.updated_at),
  // Commands written before a push or a close asked for commits that are no longer the head.
  'pull_request.synchronize': (payload, context) => pullHead(payload, context, 'synchronize', 'push', (pull) => pull.updated_at),
  'pull_request.closed': (payload, context) => pullHead(payload, context, 'closed', 'push', (pull) => pull.closed_at || pull.updated_at),
  'workflow_run.completed': workflowRun,
};

// push carries no action: a push to the watched branch (watch-main.js).
const EVENTS = [...new Set([...Object.keys(HANDLED).map((k) => k.split('.')[0]), 'push'])];

/**
 * @param name     the X-GitHub-Event header
 * @param payload  the parsed body
 * @param given    {repositories: ['owner/name' lower case], workflows: {suite: file}, benchmarks,
 *                 watch: {enabled, branch, workflow}, now?: ms (the clock stamps are checked by)}
 */
function triage(name, payload, given) {
  // The stamps are checked against the receiving clock (a test gives its own).
  const context = { now: Date.now(), ...given };
  if (name === 'ping') return { ignore: 'ping', pong: true };
  if (!EVENTS.includes(name)) return { ignore: `perfgate does not act on ${name} events` };
  const action = payload && payload.action;
  const wrongAction = malformed([['action', action, 'action']]);
  if (wrongAction) return { malformed: wrongAction };
  const handle = name === 'push' ? (p) => mainPush(p, context.watch || { enabled: false }) : HANDLED[`${name}.${action}`];
  if (!handle) return { ignore: `perfgate does not act on ${name}.${action}` };
  const repo = repositoryOf(payload);
  if (!repo || !context.repositories.includes(repo.toLowerCase())) return { ignore: `repository ${repo} is not one this bot serves` };
  const decided = handle(payload, context);
  if (decided.ignore || decided.malformed) return decided;
  return { work: { ...decided.work, repo, installationId: installationOf(payload) } };
}

module.exports = { triage, runWork, EVENTS };
