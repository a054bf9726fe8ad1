// A maintainer's /perf approves the head they saw, pinned as of the comment: a push before,
// during and after the pin, with the push's delivery arriving before or after the comment's,
// and GitHub's answer about the pull request held while its head moves. GitHub's published
// payloads, delivered signed to the bot; the GitHub double moves the head as a push does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, command, commentEvent, HEAD_SHA, openPulls, postComment, pushEvent, REPOSITORY, settled, startBotOn, startDouble,
} from '../../support/bot.mjs';

const PUSHED = 'c'.repeat(40);
const short = (sha) => sha.slice(0, 12);

describe('the head a /perf approves, in every delivery order', () => {
  let gh;
  let running;
  let nextPr = 500;
  const prs = Array.from({ length: 16 + 21 }, (_, i) => 500 + i);
  before(async () => {
    gh = await startDouble({ prs });
    // The commits GitHub resolves a SHA prefix to.
    gh.state.addCommits(REPOSITORY, { commits: [{ sha: HEAD_SHA }, { sha: PUSHED }] });
    running = await startBotOn(gh);
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
  });

  const pull = (pr) => gh.state.repoByFullName('r', REPOSITORY).pulls.get(pr);
  const dispatchesOf = (pr) => gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)).map((d) => [d.inputs['head-sha'], d.inputs['approved-sha']]);
  const stamp = (comment, seconds) => new Date(Date.parse(comment.created_at) + seconds * 1000);
  // A push on GitHub: the head moves now; its delivery is sent when the test says.
  const movePush = (pr) => { pull(pr).head.sha = PUSHED; };
  const deliverPush = (pr, at) => running.deliver('pull_request', pushEvent({ pr, headSha: PUSHED, at }));
  const reply = (pr, comment) => botComments(gh, pr).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`)).map((c) => c.body.split('\n').slice(1).join('\n').trimEnd());
  const sticky = (pr) => botComments(gh, pr).filter((c) => c.body.startsWith('<!-- perfgate:comment suite=quick -->')).map((c) => c.body);
  const pushedSticky = (head) => `<!-- perfgate:comment suite=quick -->\n### ⏹️ perfgate quick: cancelled\n\n\`/perf quick\` from @maintainer${head ? ` (head \`${short(head)}\`)` : ''} was cancelled: new commits were pushed (head now \`${short(PUSHED)}\`); comment again to measure them.\n`;
  const askForSha = (line, why) => `@maintainer I cannot tell which head of this pull request you saw when you wrote \`${line}\`: ${why}. Nothing was started. Name the commit you reviewed: \`/perf quick <sha>\` (the head is now \`${short(PUSHED)}\`).`;
  const unseenPush = `its head is now \`${short(PUSHED)}\`, a push no delivery has told me about yet`;
  const status = async (comment) => (await bot.requestForComment(running.store, comment.id)).status;

  describe('a push before the comment', () => {
    it('its delivery first: the pushed head is approved', async () => {
      const pr = nextPr++;
      movePush(pr);
      assert.equal((await deliverPush(pr, new Date(Date.now() - 300_000))).text, 'nothing to cancel');
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[[PUSHED, PUSHED]], 'dispatched']);
    });

    it('its delivery late, before the job pins: the pushed head is approved', async () => {
      const pr = nextPr++;
      movePush(pr);
      const hold = gh.holdNext('repos/get-collaborator-permission-level');
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
      await hold.arrived;
      assert.equal((await deliverPush(pr, new Date(Date.now() - 300_000))).text, 'nothing to cancel');
      hold.release();
      await settled(running);
      assert.deepEqual(dispatchesOf(pr), [[PUSHED, PUSHED]]);
    });

    it('its delivery after the job: nothing is started, the reply asks for the SHA; the late delivery starts nothing either', async () => {
      const pr = nextPr++;
      movePush(pr);
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
      await settled(running);
      assert.deepEqual(reply(pr, comment), [askForSha('/perf quick', unseenPush)]);
      assert.equal((await deliverPush(pr, new Date(Date.now() - 300_000))).text, 'nothing to cancel');
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[], 'answered']);
    });
  });

  // Pushes within the stamps' margin of the comment: "GitHub's stamps a few seconds apart" below.
  describe('a push after the comment, past the margin of GitHub\'s stamps', () => {
    for (const seconds of [61, 300]) {
      it(`its delivery before the comment's (reordered, redelivered), ${seconds} s after it: cancelled, never dispatched`, async () => {
        const pr = nextPr++;
        const comment = await postComment(gh, 'maintainer', '/perf quick', { pr });
        movePush(pr);
        assert.equal((await deliverPush(pr, stamp(comment, seconds))).text, 'nothing to cancel');
        assert.equal((await running.deliver('issue_comment', commentEvent({ comment, pr }))).status, 202);
        await settled(running);
        assert.deepEqual([dispatchesOf(pr), await status(comment)], [[], 'cancelled']);
        assert.deepEqual(sticky(pr), [pushedSticky(null)]);
      });
    }

    // A /perf quick whose job waits at `operationId` while the head moves, and the push is
    // delivered (90 s after the comment) or not; -> {pr, comment, pushed: the push's answer}.
    async function pushWhileHeld(operationId, { delivered }) {
      const pr = nextPr++;
      const hold = gh.holdNext(operationId);
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
      await hold.arrived;
      movePush(pr);
      const pushed = delivered ? (await deliverPush(pr, stamp(comment, 90))).text : null;
      hold.release();
      await settled(running);
      return { pr, comment, pushed };
    }

    it("its delivery after the comment's, before the pin: cancelled by the push, never dispatched", async () => {
      const { pr, comment, pushed } = await pushWhileHeld('pulls/get', { delivered: true });
      assert.deepEqual([pushed, dispatchesOf(pr), await status(comment)], ['cancelled 1', [], 'cancelled']);
      assert.deepEqual(sticky(pr), [pushedSticky(null)]);
    });

    it('pulls.get held while the head moves, the push not delivered yet: nothing is started, the reply asks for the SHA', async () => {
      const { pr, comment } = await pushWhileHeld('pulls/get', { delivered: false });
      assert.deepEqual([dispatchesOf(pr), reply(pr, comment)], [[], [askForSha('/perf quick', unseenPush)]]);
      // The push's delivery, when it comes, finds nothing to cancel and starts nothing.
      assert.equal((await deliverPush(pr, stamp(comment, 90))).text, 'nothing to cancel');
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[], 'answered']);
    });

    it('during the dispatch: the run of the approved head is started, then cancelled', async () => {
      const { pr, comment, pushed } = await pushWhileHeld('actions/create-workflow-dispatch', { delivered: true });
      assert.deepEqual([pushed, dispatchesOf(pr), await status(comment)], ['cancelled 1', [[HEAD_SHA, HEAD_SHA]], 'cancelled']);
      const request = await bot.requestForComment(running.store, comment.id);
      assert.equal(gh.state.repoByFullName('r', REPOSITORY).runs.get(request.runId).conclusion, 'cancelled');
    });

    it('after the dispatch: the approved head was measured, and its run is cancelled', async () => {
      const pr = nextPr++;
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
      await settled(running);
      movePush(pr);
      assert.equal((await deliverPush(pr, stamp(comment, 90))).text, 'cancelled 1');
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[[HEAD_SHA, HEAD_SHA]], 'cancelled']);
      assert.deepEqual(sticky(pr), [pushedSticky(HEAD_SHA)]);
    });
  });

  describe('/perf quick <sha>', () => {
    it('the full SHA of the head: exactly that commit, with no delivery to vouch for it', async () => {
      const pr = nextPr++;
      movePush(pr);
      const { comment } = await command(gh, running, 'maintainer', `/perf quick ${PUSHED}`, { pr });
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[[PUSHED, PUSHED]], 'dispatched']);
      // The SHA is no measurement argument: nothing is "not passed on".
      assert.deepEqual(sticky(pr).map((s) => s.includes('not passed on')), [false]);
    });

    it('a prefix the deliveries show was the head before the comment, resolved by GitHub', async () => {
      const pr = nextPr++;
      const { comment } = await command(gh, running, 'maintainer', `/perf quick ${HEAD_SHA.slice(0, 7)}`, { pr });
      await settled(running);
      assert.deepEqual([dispatchesOf(pr), await status(comment)], [[[HEAD_SHA, HEAD_SHA]], 'dispatched']);
      assert.ok(gh.callsTo('repos/get-commit').some((c) => c.path.endsWith(`/commits/${HEAD_SHA.slice(0, 7)}`)));
    });

    it('refusals: a prefix nothing vouches for, an earlier head, no such commit', async () => {
      const cases = [
        [`/perf quick ${PUSHED.slice(0, 9)}`, `@maintainer \`${PUSHED.slice(0, 9)}\` names the head \`${short(PUSHED)}\`, but I cannot show it was the head when you wrote \`/perf quick ${PUSHED.slice(0, 9)}\`: give its full 40-digit SHA. Nothing was started.`],
        [`/perf quick ${HEAD_SHA}`, `@maintainer \`${HEAD_SHA}\` (\`${short(HEAD_SHA)}\`) is not the head of this pull request, which is now \`${short(PUSHED)}\`: \`/perf quick ${HEAD_SHA}\` was not started. A run measures the head only.`],
        ['/perf quick 0123456', '@maintainer `0123456` names no commit of this repository (GitHub: 422 No commit found for SHA: 0123456): `/perf quick 0123456` was not started.'],
      ];
      for (const [body, expected] of cases) {
        const pr = nextPr++;
        movePush(pr);
        const { comment } = await command(gh, running, 'maintainer', body, { pr });
        await settled(running);
        assert.deepEqual([reply(pr, comment), dispatchesOf(pr), await status(comment)], [[expected], [], 'answered'], body);
      }
    });
  });

  it('/perf rerun asks for the SHA with the suite it would run', async () => {
    const pr = nextPr++;
    await command(gh, running, 'maintainer', '/perf quick rounds=4', { pr });
    await settled(running);
    // A push whose delivery has not come yet.
    pull(pr).head.sha = 'd'.repeat(40);
    const { comment } = await command(gh, running, 'maintainer', '/perf rerun', { pr });
    await settled(running);
    assert.deepEqual(reply(pr, comment), [`@maintainer I cannot tell which head of this pull request you saw when you wrote \`/perf rerun\`: its head is now \`dddddddddddd\`, a push no delivery has told me about yet. Nothing was started. Name the commit you reviewed: \`/perf quick <sha>\` (the head is now \`dddddddddddd\`).`]);
  });

  // GitHub's clocks disagree: a push stamped a few seconds before (or after) the comment, in
  // every delivery order. A head stamped within the margin of the comment (approval.js's
  // STAMP_MARGIN_MS, pinned by approval.test.js), either side, is never built on the comment's
  // word: the reply asks for the commit by name. Outside it the stamps decide as before.
  describe("GitHub's stamps a few seconds apart: every delivery order and skew", () => {
    const MARGIN_S = 60;
    const SKEWS = [-(MARGIN_S + 1), -5, -1, 0, 1, 5, MARGIN_S + 1];
    const within = (skew) => Math.abs(skew) <= MARGIN_S;
    const pushAt = (pr, comment, skew) => {
      movePush(pr);
      return deliverPush(pr, stamp(comment, skew));
    };
    const deliverComment = (pr, comment) => running.deliver('issue_comment', commentEvent({ comment, pr }));
    const nearReply = `@maintainer I cannot tell which head of this pull request you saw when you wrote \`/perf quick\`: the head \`${short(PUSHED)}\` was stamped within ${MARGIN_S} s of your comment, too close for GitHub's clocks to tell which came first. Nothing was started. Name the commit you reviewed: \`/perf quick <sha>\` (the head is now \`${short(PUSHED)}\`).`;
    // Each order: how its deliveries go, and by skew what follows: [status, dispatched [head-sha, approved-sha]s, reply].
    const ORDERS = {
      'push first': {
        async deliver(pr, comment, skew) {
          await pushAt(pr, comment, skew);
          await deliverComment(pr, comment);
        },
        expect: (skew) => (skew < -MARGIN_S ? ['dispatched', [[PUSHED, PUSHED]], null] : within(skew) ? ['answered', [], 'near'] : ['cancelled', [], null]),
      },
      // The comment first; the push happens and is delivered while the job waits on pulls.get.
      'push while the job waits on pulls.get': {
        async deliver(pr, comment, skew) {
          const hold = gh.holdNext('pulls/get');
          await deliverComment(pr, comment);
          await hold.arrived;
          await pushAt(pr, comment, skew);
          hold.release();
        },
        expect: (skew) => (skew < -MARGIN_S ? ['dispatched', [[PUSHED, PUSHED]], null] : within(skew) ? ['answered', [], 'near'] : ['cancelled', [], null]),
      },
      // The comment first, its job done on the head GitHub still showed; then the push and its delivery.
      'push after the job': {
        async deliver(pr, comment, skew) {
          await deliverComment(pr, comment);
          await settled(running);
          await pushAt(pr, comment, skew);
        },
        expect: (skew) => (skew < -MARGIN_S ? ['dispatched', [[HEAD_SHA, HEAD_SHA]], null] : ['cancelled', [[HEAD_SHA, HEAD_SHA]], null]),
      },
    };
    for (const [order, { deliver, expect }] of Object.entries(ORDERS)) {
      for (const skew of SKEWS) {
        const [expected, dispatched, answer] = expect(skew);
        it(`${order}, the push stamped ${skew > 0 ? '+' : ''}${skew} s from the comment: ${expected}`, async () => {
          const pr = nextPr++;
          const comment = await postComment(gh, 'maintainer', '/perf quick', { pr });
          await deliver(pr, comment, skew);
          await settled(running);
          assert.deepEqual([await status(comment), dispatchesOf(pr)], [expected, dispatched]);
          if (answer === 'near') assert.deepEqual(reply(pr, comment), [nearReply]);
          // The pushed head is built only when stamped before the comment by more than the margin.
          if (skew >= -MARGIN_S) assert.ok(!dispatchesOf(pr).some(([head]) => head === PUSHED), 'an unapproved head was dispatched');
        });
      }
    }
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
