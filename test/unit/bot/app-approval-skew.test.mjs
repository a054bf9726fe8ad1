// GitHub's clocks disagree: a push to a fork's pull request stamped a few seconds before (or
// after) a maintainer's `/perf quick`, in every delivery order. A head stamped within the
// margin of the comment, either side, is never built on the comment's word: the reply asks for
// the commit by name. Outside the margin the stamps decide as before. One table, every cell a
// command through the bot's webhooks against the GitHub double.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, commentEvent, HEAD_SHA, openPulls, postComment, pushEvent, REPOSITORY, settled, startBotOn, startDouble,
} from '../../support/bot.mjs';

const PUSHED = 'c'.repeat(40);
const short = (sha) => sha.slice(0, 12);
// approval.js's STAMP_MARGIN_MS, pinned by approval.test.js.
const MARGIN_S = 60;
// The push's stamp, in seconds from the comment's created_at.
const SKEWS = [-(MARGIN_S + 1), -5, -1, 0, 1, 5, MARGIN_S + 1];
const within = (skew) => Math.abs(skew) <= MARGIN_S;

// What each delivery order leads to, by skew: [status, dispatched [head-sha, approved-sha]s, reply].
const ORDERS = {
  // The push's delivery arrives before the comment's.
  'push first': (skew) => (skew < -MARGIN_S ? ['dispatched', [[PUSHED, PUSHED]], null]
    : within(skew) ? ['answered', [], 'near'] : ['cancelled', [], null]),
  // The comment first; the push happens and is delivered while the job waits on pulls.get.
  'push while the job waits on pulls.get': (skew) => (skew < -MARGIN_S ? ['dispatched', [[PUSHED, PUSHED]], null]
    : within(skew) ? ['answered', [], 'near'] : ['cancelled', [], null]),
  // The comment first, its job done on the head GitHub still showed; then the push and its delivery.
  'push after the job': (skew) => (skew < -MARGIN_S ? ['dispatched', [[HEAD_SHA, HEAD_SHA]], null] : ['cancelled', [[HEAD_SHA, HEAD_SHA]], null]),
};

describe('the head a /perf approves when GitHub\'s stamps disagree', () => {
  let gh;
  let running;
  let nextPr = 900;
  const prs = Array.from({ length: Object.keys(ORDERS).length * SKEWS.length }, (_, i) => 900 + i);
  before(async () => {
    gh = await startDouble({ prs });
    running = await startBotOn(gh);
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
  });

  const pull = (pr) => gh.state.repoByFullName('r', REPOSITORY).pulls.get(pr);
  const dispatchesOf = (pr) => gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)).map((d) => [d.inputs['head-sha'], d.inputs['approved-sha']]);
  const pushAt = (pr, comment, skew) => {
    pull(pr).head.sha = PUSHED;
    return running.deliver('pull_request', pushEvent({ pr, headSha: PUSHED, at: new Date(Date.parse(comment.created_at) + skew * 1000) }));
  };
  const deliverComment = (pr, comment) => running.deliver('issue_comment', commentEvent({ comment, pr }));
  const replyOf = (pr, comment) => botComments(gh, pr).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`)).map((c) => c.body.split('\n').slice(1).join('\n').trimEnd());
  const nearReply = `@maintainer I cannot tell which head of this pull request you saw when you wrote \`/perf quick\`: the head \`${short(PUSHED)}\` was stamped within ${MARGIN_S} s of your comment, too close for GitHub's clocks to tell which came first. Nothing was started. Name the commit you reviewed: \`/perf quick <sha>\` (the head is now \`${short(PUSHED)}\`).`;

  const DELIVER = {
    async 'push first'(pr, comment, skew) {
      await pushAt(pr, comment, skew);
      await deliverComment(pr, comment);
    },
    async 'push while the job waits on pulls.get'(pr, comment, skew) {
      const hold = gh.holdNext('pulls/get');
      await deliverComment(pr, comment);
      await hold.arrived;
      await pushAt(pr, comment, skew);
      hold.release();
    },
    async 'push after the job'(pr, comment, skew) {
      await deliverComment(pr, comment);
      await settled(running);
      await pushAt(pr, comment, skew);
    },
  };

  for (const [order, expect] of Object.entries(ORDERS)) {
    for (const skew of SKEWS) {
      const [status, dispatched, reply] = expect(skew);
      it(`${order}, the push stamped ${skew > 0 ? '+' : ''}${skew} s from the comment: ${status}`, async () => {
        const pr = nextPr++;
        const comment = await postComment(gh, 'maintainer', '/perf quick', { pr });
        await DELIVER[order](pr, comment, skew);
        await settled(running);
        const request = await bot.requestForComment(running.store, comment.id);
        assert.deepEqual([request.status, dispatchesOf(pr)], [status, dispatched]);
        if (reply === 'near') assert.deepEqual(replyOf(pr, comment), [nearReply]);
        // The pushed head is built only when stamped before the comment by more than the margin.
        if (skew >= -MARGIN_S) assert.ok(!dispatchesOf(pr).some(([head]) => head === PUSHED), 'an unapproved head was dispatched');
      });
    }
  }

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
