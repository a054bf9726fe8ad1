// Every kind of /perf command, as a maintainer or a reader writes it in a pull request,
// delivered as GitHub delivers it, answered by the bot against the GitHub double. Each case has
// its own pull request, so the sticky comments of one do not meet another's.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import {
  BASE_SHA, bot, botComments, command, commentEvent, HEAD_SHA, openPulls, postComment, REPOSITORY, settled, startBotOn, startDouble,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const { benchmarkNames } = require('../../../bot/src/app/service');
const { REPLIES } = require('../../../bot/src/app/messages');

const BENCHMARKS = benchmarkNames(core.loadThresholds());
const HINT = '\n\n`/perf help` lists the commands and their arguments.';

describe('/perf commands in pull requests', () => {
  let gh;
  let running;
  let nextPr = 100;
  before(async () => {
    const prs = [7, ...Array.from({ length: 40 }, (_, i) => 100 + i)];
    gh = await startDouble({ prs });
    running = await startBotOn(gh);
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
  });

  /** Posts `body` as `login` on a fresh pull request, delivers it, waits for the bot. */
  async function say(login, body, { pr = nextPr++ } = {}) {
    const callsBefore = gh.calls.length;
    const dispatchesBefore = gh.state.dispatches.length;
    const { comment, answer } = await command(gh, running, login, body, { pr });
    assert.equal(answer.status, 202, `${body}: ${answer.text}`);
    await settled(running);
    const calls = gh.calls.slice(callsBefore).filter((c) => c.identity.login === 'perfgate[bot]');
    return {
      pr,
      comment,
      replies: botComments(gh, pr).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`)).map((c) => c.body.split('\n').slice(1).join('\n').trimEnd()),
      sticky: botComments(gh, pr).filter((c) => c.body.startsWith('<!-- perfgate:comment ')).map((c) => c.body),
      dispatches: gh.state.dispatches.slice(dispatchesBefore),
      reactions: gh.state.comments(REPOSITORY, pr).find((c) => c.id === comment.id).reactions.map((r) => `${r.content} by ${r.user.login}`),
      checks: gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`),
      calls: calls.map((c) => c.operationId),
      request: await bot.requestForComment(running.store, comment.id),
    };
  }

  it('/perf quick with arguments: pinned SHAs and the arguments dispatched, 👍, check run and sticky comment queued', async () => {
    const r = await say('maintainer', 'Thanks! Let us see.\n\n/perf quick threads=1,4 rounds=8 metric=both');
    assert.equal(r.dispatches.length, 1);
    assert.deepEqual(r.dispatches[0], {
      repository: REPOSITORY, workflow: 'perf-command.yml', workflowId: r.dispatches[0].workflowId, ref: 'main', actor: 'perfgate[bot]', runId: r.dispatches[0].runId,
      inputs: {
        'pull-request': String(r.pr), 'base-sha': BASE_SHA, 'head-sha': HEAD_SHA, 'approved-sha': HEAD_SHA, suite: 'quick', options: 'rounds=8 threads=1,4', 'request-id': `c${r.comment.id}`,
      },
    });
    assert.deepEqual(r.reactions, ['+1 by perfgate[bot]']);
    assert.deepEqual(r.replies, []);
    const runUrl = `https://github.com/${REPOSITORY}/actions/runs/${r.dispatches[0].runId}`;
    assert.deepEqual(r.sticky, [`<!-- perfgate:comment suite=quick -->\n### ⏳ perfgate quick: queued\n\n\`/perf quick threads=1,4 rounds=8 metric=both\` from @maintainer measures head \`${HEAD_SHA.slice(0, 12)}\` against base \`${BASE_SHA.slice(0, 12)}\`: [workflow run](${runUrl}) queued (\`metric=\` not passed on: the workflow's options take rounds, threads and tests).\n`]);
    // Rounds of its own: never the check run a branch protection rule requires (perfgate quick).
    assert.deepEqual(r.checks.map((c) => [c.name, c.headSha, c.status, c.detailsUrl, c.output.title]), [['perfgate quick (rounds=8 threads=1,4)', HEAD_SHA, 'queued', runUrl, 'perfgate quick: queued']]);
    assert.deepEqual([r.request.status, r.request.baseSha, r.request.headSha, r.request.runId, r.request.suite], ['dispatched', BASE_SHA, HEAD_SHA, r.dispatches[0].runId, 'quick']);
    // Permission first, then the pull request as it is now, then the dispatch.
    // (The installation token is made on the first call; the default branch is read once.)
    assert.deepEqual(r.calls.filter((c) => !['issues/list-comments', 'apps/create-installation-access-token'].includes(c)), [
      'repos/get-collaborator-permission-level', 'reactions/create-for-issue-comment', 'pulls/get', 'repos/get',
      'actions/create-workflow-dispatch', 'checks/create', 'issues/create-comment',
    ]);
  });

  it('/perf full by an admin and /perf ahi by a member of the configured team (read access only) are dispatched', async () => {
    const full = await say('admin', '/perf full');
    assert.deepEqual(full.dispatches.map((d) => [d.workflow, d.inputs.suite, d.inputs.options]), [['perf-full.yml', 'full', '']]);
    const ahi = await say('teamster', '/perf ahi tests=point-select+5%update-index');
    assert.deepEqual(ahi.dispatches.map((d) => [d.inputs.suite, d.inputs.options]), [['ahi', 'tests=point-select+5%update-index']]);
    assert.ok(ahi.calls.includes('teams/get-membership-for-user-in-org'));
  });

  it('/perf contention: the contention slice on perf-command.yml, its own rows and thread counts; a row of another suite is refused', async () => {
    const r = await say('maintainer', '/perf contention threads=32 tests=update-one_range=100');
    assert.deepEqual(r.dispatches.map((d) => [d.workflow, d.inputs.suite, d.inputs.options]), [['perf-command.yml', 'contention-quick', 'tests=update-one_range=100 threads=32']]);
    const other = await say('maintainer', '/perf contention tests=scan_range=100');
    assert.deepEqual(other.dispatches, []);
    assert.match(other.replies.join('\n'), /scan_range=100/);
  });

  it('/perf tpcc: the TPC-C suite on perf-command.yml with its own client threads and rounds; tests= is refused', async () => {
    const r = await say('maintainer', '/perf tpcc threads=4 rounds=6');
    assert.deepEqual(r.dispatches.map((d) => [d.workflow, d.inputs.suite, d.inputs.options]), [['perf-command.yml', 'tpcc', 'rounds=6 threads=4']]);
    const other = await say('maintainer', '/perf tpcc tests=tpcc');
    assert.deepEqual(other.dispatches, []);
    assert.match(other.replies.join('\n'), /tests=/);
  });

  it('/perf why <row>: the quick suite of that row, dispatched with the row to explain; a name not in the catalogue is refused', async () => {
    const r = await say('maintainer', '/perf why update-index_range=100');
    assert.deepEqual(r.dispatches.map((d) => d.inputs), [{
      'pull-request': String(r.pr), 'base-sha': BASE_SHA, 'head-sha': HEAD_SHA, 'approved-sha': HEAD_SHA, suite: 'quick', options: 'tests=update-index_range=100', 'request-id': `c${r.comment.id}`, explain: 'update-index_range=100',
    }]);
    assert.deepEqual(r.checks.map((c) => c.name), ['perfgate quick (tests=update-index_range=100)']);
    assert.deepEqual([r.request.command, r.request.suite, r.request.args], ['why', 'quick', { tests: 'update-index_range=100', explain: 'update-index_range=100' }]);
    const bad = await say('maintainer', '/perf why update-index_range=100,$(id)');
    assert.deepEqual(bad.dispatches, []);
    assert.match(bad.replies[0], /`\/perf why`: unknown microbenchmark|unknown microbenchmark/);
  });

  it("a read-only user's /perf full: one polite refusal and nothing else, also when GitHub delivers it again", async () => {
    const r = await say('reader', '/perf full');
    assert.deepEqual(r.replies, ['Sorry @reader, `/perf full` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`. Nothing was started.']);
    assert.deepEqual([r.dispatches, r.reactions, r.checks, r.sticky], [[], [], [], []]);
    assert.deepEqual(r.calls.filter((c) => c !== 'issues/list-comments'), ['repos/get-collaborator-permission-level', 'teams/get-membership-for-user-in-org', 'issues/create-comment']);
    assert.equal(r.request.status, 'refused');
    const again = await running.deliver('issue_comment', commentEvent({ comment: r.comment, pr: r.pr }));
    assert.deepEqual([again.status, again.text], [200, 'duplicate comment']);
    await settled(running);
    assert.equal(botComments(gh, r.pr).length, 1);
    assert.equal(gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${r.comment.id}`).length, 0);
  });

  it('triage permission is not enough; permission is checked before the command is read', async () => {
    const triager = await say('triager', '/perf quick');
    assert.deepEqual(triager.replies, ['Sorry @triager, `/perf quick` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`. Nothing was started.']);
    const malformed = await say('reader', '/perf quick threads=0');
    assert.deepEqual(malformed.replies, ['Sorry @reader, `/perf quick threads=0` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`. Nothing was started.']);
    assert.deepEqual([...triager.dispatches, ...malformed.dispatches], []);
  });

  it('every kind of bad command gets the parser\'s reply, quoting it and saying what is allowed; nothing is started', async () => {
    const bodies = [
      '/perf quick threads=0',
      '/perf quick rounds=4 rounds=5',
      '/perf quick bogus=1',
      '/perf quick now',
      '/perf fast',
      '/perf',
      '/perf quick tests=point-query,nope',
      '/perf quick\n/perf full',
      '/perf waive scan_range=100',
      '/perf quick tests=@perfgate-test/perf-team',
    ];
    for (const body of bodies) {
      const r = await say('maintainer', body);
      const { error } = bot.parseCommand(body, { benchmarks: BENCHMARKS });
      assert.ok(error, body);
      // The error quotes what was typed: as text, so a name like @team mentions nobody.
      assert.deepEqual(r.replies, [`@maintainer ${core.markdownText(error, { max: 1000 })}${HINT}`], body);
      assert.doesNotMatch(r.replies[0].slice('@maintainer '.length), /(^|[^\w\u200d])@[A-Za-z0-9]/, body);
      assert.deepEqual([r.dispatches, r.reactions, r.sticky, r.request.status], [[], [], [], 'invalid'], body);
    }
  });

  it('/perf waive echoes its reason as text: no mention, link, image or HTML', async () => {
    const reason = 'cc @octocat ![x](https://evil.example/x.png) <img src="https://evil.example/y"> [click](https://evil.example) <!-- hidden -->';
    const r = await say('maintainer', `/perf waive scan_range=100 -- ${reason}`);
    assert.deepEqual(r.replies, [`@maintainer waiver recorded for \`scan_range=100\` in this pull request: ${core.markdownText(reason)}`]);
    assert.doesNotMatch(r.replies[0].slice('@maintainer '.length), /(^|[^\w\u200d])@[A-Za-z0-9]|(^|[^\\])\]\(|(^|[^\\])</);
  });

  it('/perf waive of a suite as a whole in a pull request is refused: only a sign-off waives it', async () => {
    const r = await say('maintainer', '/perf waive quick-suite -- spread thin');
    assert.deepEqual([r.replies, r.request.status], [[REPLIES.waiveSignoffOnly({ author: 'maintainer', microbenchmark: 'quick-suite' })], 'invalid']);
  });

  it('/perf help: anyone may ask; the reply is the help text', async () => {
    const r = await say('reader', '/perf help');
    assert.deepEqual(r.replies, [`@reader here is what I understand:\n\n${bot.helpText().trimEnd()}`]);
    assert.deepEqual(r.reactions, ['+1 by perfgate[bot]']);
    assert.ok(!r.calls.includes('repos/get-collaborator-permission-level'));
  });

  it('/perf compare is answered as not served yet', async () => {
    for (const [body, name] of [['/perf compare main', 'compare']]) {
      const r = await say('maintainer', body);
      assert.deepEqual(r.replies, [`@maintainer \`/perf ${name}\` is not served by this bot yet; \`/perf quick\`, \`/perf full\`, \`/perf ahi\`, \`/perf ddl\`, \`/perf contention\`, \`/perf tpcc\`, \`/perf rerun\`, \`/perf cancel\`, \`/perf waive\`, \`/perf bisect\`, \`/perf signoff\` and \`/perf help\` are.`]);
      assert.deepEqual(r.dispatches, []);
    }
  });

  it('/perf waive records the waiver for the pull request', async () => {
    const r = await say('maintainer', '/perf waive scan_range=100 -- known cost of the new index, MDEV-1');
    assert.deepEqual(r.replies, ['@maintainer waiver recorded for `scan_range=100` in this pull request: known cost of the new index, MDEV-1']);
    const waivers = await bot.waiversFor(running.store, { repo: REPOSITORY, prNumber: r.pr });
    assert.deepEqual(waivers.map((w) => [w.microbenchmark, w.reason, w.author, w.requestId]), [['scan_range=100', 'known cost of the new index, MDEV-1', 'maintainer', r.request.id]]);
  });

  it('/perf rerun measures the last command of the pull request again, at its head now; with none it says so', async () => {
    const pr = nextPr++;
    const first = await say('maintainer', '/perf quick rounds=4', { pr });
    const rerun = await say('admin', '/perf rerun', { pr });
    assert.deepEqual(rerun.dispatches.map((d) => [d.inputs.suite, d.inputs.options, d.inputs['request-id']]), [['quick', 'rounds=4', `c${rerun.comment.id}`]]);
    assert.notEqual(rerun.dispatches[0].runId, first.dispatches[0].runId);
    const none = await say('maintainer', '/perf rerun');
    assert.deepEqual(none.replies, ['@maintainer nothing to run again: no `/perf quick`, `/perf full`, `/perf ahi`, `/perf ddl`, `/perf contention` or `/perf tpcc` has been run on this pull request yet.']);
  });

  it('/perf cancel stops the queued run, completes its check run as cancelled and says so', async () => {
    const pr = nextPr++;
    const queued = await say('maintainer', '/perf quick', { pr });
    const runId = queued.dispatches[0].runId;
    const cancel = await say('admin', '/perf cancel', { pr });
    assert.deepEqual(cancel.replies, ['@admin cancelled the queued or running measurement of this pull request.']);
    const run = gh.state.repoByFullName('r', REPOSITORY).runs.get(runId);
    assert.deepEqual([run.status, run.conclusion], ['completed', 'cancelled']);
    const [check] = gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${queued.comment.id}`);
    assert.deepEqual([check.status, check.conclusion, check.output.title], ['completed', 'cancelled', 'perfgate quick: cancelled']);
    assert.deepEqual(cancel.sticky, [`<!-- perfgate:comment suite=quick -->\n### ⏹️ perfgate quick: cancelled\n\n\`/perf quick\` from @maintainer (head \`${HEAD_SHA.slice(0, 12)}\`) was cancelled: @admin cancelled it with \`/perf cancel\`.\n`]);
    assert.equal((await bot.getRequest(running.store, queued.request.id)).status, 'cancelled');
    const nothing = await say('admin', '/perf cancel', { pr });
    assert.deepEqual(nothing.replies, ['@admin nothing to cancel: no measurement of this pull request is queued or running.']);
  });

  it('a closed pull request is not measured', async () => {
    const pr = nextPr++;
    gh.state.repoByFullName('r', REPOSITORY).issues.get(pr).state = 'closed';
    const r = await say('maintainer', '/perf quick', { pr });
    assert.deepEqual(r.replies, [`@maintainer pull request #${pr} is closed: \`/perf quick\` was not started.`]);
    assert.deepEqual(r.dispatches, []);
  });

  it('someone who may not run commands and keeps commenting: one reply per pull request per hour, however many comments arrive in a row; maintainers are not held back', async () => {
    const pr = nextPr++;
    const bodies = ['/perf full', '/perf quick', '/perf help', '/perf quick threads=0', '/perf signoff', '/perf help', '/perf full', '/perf rerun', '/perf cancel', '/perf bisect a b'];
    const comments = [];
    for (const body of bodies) comments.push(await postComment(gh, 'reader', body, { pr }));
    const callsBefore = gh.calls.length;
    // In a row, as a script would post them, with nothing answered yet: the workers take them side by side.
    const answers = [];
    for (const comment of comments) answers.push(await running.deliver('issue_comment', commentEvent({ comment, pr })));
    assert.deepEqual(answers.map((a) => a.status), bodies.map(() => 202));
    await settled(running);
    const replies = botComments(gh, pr);
    assert.deepEqual(replies.map((c) => c.body.split('\n').slice(1).join('\n').trimEnd()), ['Sorry @reader, `/perf full` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`. Nothing was started.']);
    assert.ok(replies[0].body.startsWith(`<!-- perfgate:reply comment=${comments[0].id} -->`), 'the first comment got the reply');
    const requests = await Promise.all(comments.map((c) => bot.requestForComment(running.store, c.id)));
    assert.deepEqual(requests.map((r) => r.status), ['refused', 'refused', 'answered', 'refused', 'refused', 'answered', 'refused', 'refused', 'refused', 'refused']);
    assert.deepEqual(requests.slice(1).map((r) => r.detail), requests.slice(1).map(() => `not answered: @reader may not run commands, and their comment ${comments[0].id}, less than 60 minutes earlier, takes the one reply that allows`));
    const calls = gh.calls.slice(callsBefore).filter((c) => c.identity.login === 'perfgate[bot]').map((c) => c.operationId);
    assert.deepEqual([calls.filter((c) => c === 'issues/create-comment').length, calls.filter((c) => c.startsWith('reactions/')).length, gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)).length], [1, 0, 0]);

    // Another pull request is another conversation: one reply there too.
    const elsewhere = await say('reader', '/perf quick');
    assert.equal(elsewhere.replies.length, 1);
    // A maintainer asking the same pull request many times is answered every time.
    const help = [await say('maintainer', '/perf help', { pr }), await say('maintainer', '/perf help', { pr }), await say('maintainer', '/perf cancel', { pr })];
    assert.deepEqual(help.map((r) => r.replies.length), [1, 1, 1]);
  });

  it('a comment of 64 KiB that marked is slow to read, or nesting quotes past its stack: taken at once, answered as any command', async () => {
    // Anyone who may comment can post these; they are read in the webhook's request.
    const fill = (unit) => `/perf quick\n${unit.repeat(Math.ceil(65_000 / unit.length)).slice(0, 65_000 - 12)}`;
    for (const unit of ['_a_', '>']) {
      const pr = nextPr++;
      const comment = await postComment(gh, 'reader', fill(unit), { pr });
      const answer = await running.deliver('issue_comment', commentEvent({ comment, pr }));
      assert.deepEqual([answer.status, answer.text], [202, 'queued'], unit);
      assert.ok(answer.ms < 1500, `${unit}: answered in ${answer.ms} ms`);
    }
    await settled(running);
    const readers = botComments(gh, nextPr - 1).map((c) => c.body.split('\n').slice(1).join('\n').trimEnd());
    assert.deepEqual(readers, ['Sorry @reader, `/perf quick` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`. Nothing was started.']);
    const r = await say('maintainer', fill('*a'));
    assert.deepEqual(r.replies, [`@maintainer the comment is 65000 characters long, and commands are read only in comments of up to 4000: post '/perf quick' in a comment of its own${HINT}`]);
    assert.deepEqual([r.dispatches, r.request.status], [[], 'invalid']);
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
