// What each webhook delivery means, decided from GitHub's published payloads alone.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { commentEvent, HEAD_SHA, INSTALLATION_ID, openedEvent, published, pushEvent, REPOSITORY, workflowRunEvent } from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const { triage } = require('../../../bot/src/app/triage');
const { benchmarkNames } = require('../../../bot/src/app/service');
const core = require('@perfgate/core');

const context = { repositories: [REPOSITORY], workflows: { quick: 'perf-command.yml', ahi: 'perf-command.yml', full: 'perf-full.yml' }, benchmarks: benchmarkNames(core.loadThresholds()) };
const comment = (body, extra = {}) => ({ id: 1000000042, body, created_at: '2026-11-23T12:00:00Z', updated_at: '2026-11-23T12:00:00Z', html_url: 'https://github.com/x', user: { login: 'maintainer' }, ...extra });

describe('triage of webhook deliveries', () => {
  it('a new comment on a pull request holding a command becomes a command job, parsed', () => {
    const { work } = triage('issue_comment', commentEvent({ comment: comment('Thanks!\n\n/perf quick threads=1,4 rounds=8') }), context);
    assert.deepEqual(work, {
      kind: 'command', commentId: 1000000042, commentUrl: 'https://github.com/x', commentCreatedAt: Date.parse('2026-11-23T12:00:00Z'),
      author: 'maintainer', prNumber: 7, onPullRequest: true, line: '/perf quick threads=1,4 rounds=8',
      parsed: { command: { name: 'quick', needsWrite: true, args: { threads: [1, 4], rounds: 8 }, line: '/perf quick threads=1,4 rounds=8' } },
      repo: REPOSITORY, installationId: INSTALLATION_ID,
    });
  });

  it('a command with an error is still a command job: the worker answers it once the author may run commands', () => {
    const { work } = triage('issue_comment', commentEvent({ comment: comment('/perf quick rounds=4 rounds=5') }), context);
    assert.equal(work.line, '/perf quick rounds=4 rounds=5');
    assert.deepEqual(work.parsed, { error: "/perf quick: rounds= is given twice ('rounds=4' and 'rounds=5'): give it once" });
  });

  it('ignores what is not a new command of a person on a pull request of a served repository', () => {
    const cases = [
      ['edited comment', 'issue_comment', commentEvent({ comment: comment('/perf quick'), action: 'edited' }), 'perfgate does not act on issue_comment.edited'],
      ['deleted comment', 'issue_comment', commentEvent({ comment: comment('/perf quick'), action: 'deleted' }), 'perfgate does not act on issue_comment.deleted'],
      ["the bot's own comment", 'issue_comment', commentEvent({ comment: comment('/perf quick'), user: 'perfgate[bot]', userType: 'Bot' }), "a bot's comment"],
      ['no command', 'issue_comment', commentEvent({ comment: comment('LGTM, thanks') }), 'no /perf command in the comment'],
      ['a command in a code block', 'issue_comment', commentEvent({ comment: comment('Run this:\n\n```\n/perf full\n```') }), 'no /perf command in the comment'],
      ['a quoted command', 'issue_comment', commentEvent({ comment: comment('> /perf full\n\nNo, not yet.') }), 'no /perf command in the comment'],
      ['another repository', 'issue_comment', commentEvent({ comment: comment('/perf quick'), repository: 'perfgate-test/elsewhere' }), 'repository perfgate-test/elsewhere is not one this bot serves'],
      ['an event perfgate does not use', 'star', { ...published('star', 'created'), repository: { full_name: REPOSITORY } }, 'perfgate does not act on star events'],
      ['a pull request labeled', 'pull_request', published('pull_request', 'labeled'), 'perfgate does not act on pull_request.labeled'],
      ['a run requested', 'workflow_run', published('workflow_run', 'requested'), 'perfgate does not act on workflow_run.requested'],
    ];
    for (const [what, name, payload, reason] of cases) assert.deepEqual(triage(name, payload, context), { ignore: reason }, what);
    const onIssue = commentEvent({ comment: comment('/perf quick') });
    delete onIssue.issue.pull_request;
    assert.deepEqual(triage('issue_comment', onIssue, context), { ignore: 'a comment on an issue, not on a pull request (in issues only /perf signoff, /perf waive, /perf cancel count)' });
    const otherWorkflow = workflowRunEvent({ run: { id: 5, display_title: 'x' }, workflow: 'ci.yml' });
    assert.deepEqual(triage('workflow_run', otherWorkflow, context), { ignore: 'a run of .github/workflows/ci.yml, not of .github/workflows/perf-command.yml or .github/workflows/perf-full.yml' });
    assert.deepEqual(triage('ping', published('ping', undefined), context), { ignore: 'ping', pong: true });
  });

  it('on an issue (a release tracking issue), /perf signoff and /perf waive are command jobs', () => {
    const onIssue = (body) => {
      const payload = commentEvent({ comment: comment(body), pr: 41 });
      delete payload.issue.pull_request;
      return triage('issue_comment', payload, context);
    };
    const signoff = onIssue('/perf signoff mariadb-10.11.19 vs mariadb-10.11.18').work;
    assert.deepEqual([signoff.kind, signoff.prNumber, signoff.onPullRequest, signoff.parsed.command.name], ['command', 41, false, 'signoff']);
    assert.deepEqual(onIssue('/perf waive scan_range=100 -- known').work.parsed.command.args, { microbenchmark: 'scan_range=100', reason: 'known' });
    assert.match(onIssue('/perf help').ignore, /^a comment on an issue/);
    assert.match(onIssue('/perf signoff').ignore, /^a comment on an issue/);
  });

  it('a pull request opened or reopened: its head, stamped with the time of the delivery', () => {
    const at = new Date('2026-11-23T11:00:00Z');
    assert.deepEqual(triage('pull_request', openedEvent({ headSha: HEAD_SHA, at }), context).work,
      { kind: 'head', action: 'opened', prNumber: 7, headSha: HEAD_SHA, at: at.getTime(), repo: REPOSITORY, installationId: INSTALLATION_ID });
    assert.deepEqual(triage('pull_request', openedEvent({ headSha: HEAD_SHA, at, action: 'reopened' }), context).work.action, 'reopened');
  });

  it('a push or a close of a pull request, and a completed run of the dispatched workflow', () => {
    const at = new Date('2026-11-23T12:05:00Z');
    assert.deepEqual(triage('pull_request', pushEvent({ headSha: HEAD_SHA, at }), context).work,
      { kind: 'push', action: 'synchronize', prNumber: 7, headSha: HEAD_SHA, at: at.getTime(), repo: REPOSITORY, installationId: INSTALLATION_ID });
    assert.deepEqual(triage('pull_request', pushEvent({ headSha: HEAD_SHA, at, action: 'closed' }), context).work.at, at.getTime());
    const run = { id: 9000000001, display_title: 'perfgate quick on pull request 7 (c1000000042)', html_url: 'https://github.com/perfgate-test/fork/actions/runs/9000000001' };
    assert.deepEqual(triage('workflow_run', workflowRunEvent({ run, conclusion: 'failure' }), context).work, {
      kind: 'run', runId: 9000000001, attempt: 1, conclusion: 'failure', displayTitle: run.display_title, runUrl: run.html_url, repo: REPOSITORY, installationId: INSTALLATION_ID,
      // GitHub's example run: its actor dispatched it and triggered it.
      starter: { event: 'workflow_dispatch', actor: 'Codertocat', triggeredBy: 'Codertocat' },
    });
  });

  it('a field the bot takes, not of the form GitHub sends, is malformed, named with its value and the form expected', () => {
    const TIME = "expected a time such as 2026-11-25T12:00:00Z, from 2008 (GitHub's start) to a day from now";
    const edit = (payload, change) => { change(payload); return payload; };
    const onComment = (change) => edit(commentEvent({ comment: comment('/perf quick') }), change);
    const run = { id: 9000000001, display_title: 'perfgate quick on pull request 7 (c1)', html_url: 'https://github.com/x' };
    const cases = [
      ['issue_comment', onComment((p) => { p.comment.body = { toString: 1 }; }), 'the delivery\'s comment.body is {"toString":1}; expected text or null'],
      ['issue_comment', onComment((p) => { p.comment.body = ['/perf quick']; }), 'the delivery\'s comment.body is ["/perf quick"]; expected text or null'],
      ['issue_comment', onComment((p) => { p.comment.id = 'x'; }), 'the delivery\'s comment.id is "x"; expected a positive integer'],
      ['issue_comment', onComment((p) => { p.comment.id = 1e300; }), 'the delivery\'s comment.id is 1e+300; expected a positive integer'],
      ['issue_comment', onComment((p) => { delete p.comment.user; }), "the delivery's comment.user.login is missing; expected a login"],
      ['issue_comment', onComment((p) => { p.issue.number = '7'; }), 'the delivery\'s issue.number is "7"; expected a positive integer'],
      ['issue_comment', onComment((p) => { p.comment.created_at = 'yesterday'; }), `the delivery's comment.created_at is "yesterday"; ${TIME}`],
      ['issue_comment', onComment((p) => { delete p.comment.created_at; }), `the delivery's comment.created_at is missing; ${TIME}`],
      // Date.parse takes these; GitHub never sends them.
      ['issue_comment', onComment((p) => { p.comment.created_at = '0'; }), `the delivery's comment.created_at is "0"; ${TIME}`],
      ['issue_comment', onComment((p) => { p.comment.created_at = 0; }), `the delivery's comment.created_at is 0; ${TIME}`],
      ['issue_comment', onComment((p) => { p.comment.created_at = '1970-01-01T00:00:00Z'; }), `the delivery's comment.created_at is "1970-01-01T00:00:00Z"; ${TIME}`],
      ['issue_comment', onComment((p) => { p.comment.created_at = '2999-01-01T00:00:00Z'; }), `the delivery's comment.created_at is "2999-01-01T00:00:00Z"; ${TIME}`],
      ['issue_comment', onComment((p) => { p.comment.created_at = 'Tue, 25 Nov 2026 12:00:00 GMT'; }), `the delivery's comment.created_at is "Tue, 25 Nov 2026 12:00:00 GMT"; ${TIME}`],
      ['issue_comment', onComment((p) => { p.comment.created_at = '2026-11-25'; }), `the delivery's comment.created_at is "2026-11-25"; ${TIME}`],
      ['issue_comment', onComment((p) => { p.action = ['created']; }), 'the delivery\'s action is ["created"]; expected an action name'],
      ['pull_request', edit(pushEvent({ headSha: HEAD_SHA }), (p) => { p.pull_request.head.sha = 'zz'; }), 'the delivery\'s pull_request.head.sha is "zz"; expected 40 hex digits'],
      ['pull_request', edit(openedEvent({}), (p) => { p.pull_request.number = 7.5; }), "the delivery's pull_request.number is 7.5; expected a positive integer"],
      ['workflow_run', edit(workflowRunEvent({ run }), (p) => { p.workflow_run.id = 'abc'; }), 'the delivery\'s workflow_run.id is "abc"; expected a positive integer'],
      ['workflow_run', edit(workflowRunEvent({ run }), (p) => { p.workflow_run.run_attempt = -1; }), "the delivery's workflow_run.run_attempt is -1; expected a positive integer or nothing"],
    ];
    for (const [name, payload, reason] of cases) assert.deepEqual(triage(name, payload, context), { malformed: reason }, reason);
    // A comment body of 'null' (GitHub sends one for an empty comment) is no command.
    assert.deepEqual(triage('issue_comment', onComment((p) => { p.comment.body = null; }), context), { ignore: 'no /perf command in the comment' });
  });
});
