// A push to a pull request after a /perf command cancels what the command started, and no run
// of the new head is ever dispatched on that command's word: wherever the push lands between
// the command and its dispatch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, command, HEAD_SHA, openPulls, pushEvent, REPOSITORY, settled, startBotOn, startDouble, waitFor,
} from '../../support/bot.mjs';

const NEW_SHA = 'c'.repeat(40);

describe('a push after a command', () => {
  let gh;
  let running;
  let nextPr = 200;
  before(async () => {
    const prs = Array.from({ length: 10 }, (_, i) => 200 + i);
    gh = await startDouble({ prs });
    running = await startBotOn(gh);
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
  });

  const repo = () => gh.state.repoByFullName('r', REPOSITORY);
  // What GitHub does on a push: the pull request's head moves, then the webhook goes out,
  // stamped past the margin after the comment (a push within it: app-approval.test.mjs).
  async function push(pr, { at = new Date(Date.now() + 90_000), headSha = NEW_SHA } = {}) {
    repo().pulls.get(pr).head.sha = headSha;
    return running.deliver('pull_request', pushEvent({ pr, headSha, at }));
  }
  const sticky = (pr) => botComments(gh, pr).filter((c) => c.body.startsWith('<!-- perfgate:comment suite=quick -->')).map((c) => c.body);
  const cancelledSticky = (head) => `<!-- perfgate:comment suite=quick -->\n### ⏹️ perfgate quick: cancelled\n\n\`/perf quick\` from @maintainer${head ? ` (head \`${head.slice(0, 12)}\`)` : ''} was cancelled: new commits were pushed (head now \`${NEW_SHA.slice(0, 12)}\`); comment again to measure them.\n`;

  it('a push between the command and its dispatch: nothing is dispatched, and the sticky comment says why', async () => {
    const pr = nextPr++;
    const hold = gh.holdNext('repos/get-collaborator-permission-level');
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await hold.arrived;
    const pushed = await push(pr);
    assert.deepEqual([pushed.status, pushed.text], [202, 'cancelled 1']);
    hold.release();
    await settled(running);
    assert.deepEqual(gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)), []);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.deepEqual([request.status, request.headSha], ['cancelled', null]);
    assert.deepEqual(sticky(pr), [cancelledSticky(null)]);
    assert.deepEqual(gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`), []);
  });

  it('a push while the dispatch is on its way: the run (of the pinned head) is cancelled as soon as its id is known', async () => {
    const pr = nextPr++;
    const hold = gh.holdNext('actions/create-workflow-dispatch');
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await hold.arrived;
    await push(pr);
    hold.release();
    await settled(running);
    const dispatched = gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr));
    assert.deepEqual(dispatched.map((d) => d.inputs['head-sha']), [HEAD_SHA], 'only the pinned head was ever dispatched');
    const run = repo().runs.get(dispatched[0].runId);
    assert.deepEqual([run.status, run.conclusion], ['completed', 'cancelled']);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.deepEqual([request.status, request.runId], ['cancelled', run.id]);
    assert.deepEqual(sticky(pr), [cancelledSticky(HEAD_SHA)]);
  });

  it('a push after the dispatch: the run and the check run are cancelled, the sticky comment says so', async () => {
    const pr = nextPr++;
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await settled(running);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    const pushed = await push(pr);
    assert.deepEqual([pushed.status, pushed.text], [202, 'cancelled 1']);
    await settled(running);
    const run = repo().runs.get(request.runId);
    assert.deepEqual([run.status, run.conclusion], ['completed', 'cancelled']);
    const check = gh.state.checkRuns(REPOSITORY).find((c) => c.id === request.checkRunId);
    assert.deepEqual([check.status, check.conclusion], ['completed', 'cancelled']);
    assert.deepEqual(sticky(pr), [cancelledSticky(HEAD_SHA)]);
    assert.deepEqual(gh.state.dispatches.filter((d) => d.inputs['head-sha'] === NEW_SHA), []);
    // Delivered again, the push changes nothing more.
    const again = await running.deliver('pull_request', pushEvent({ pr, headSha: NEW_SHA }), { deliveryId: pushed.deliveryId });
    assert.deepEqual([again.status, again.text], [200, 'duplicate delivery']);
  });

  it('a command written more than the stamps\' margin after the push (its webhook late) is not cancelled by it; closing the pull request cancels it', async () => {
    const pr = nextPr++;
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await settled(running);
    const late = await running.deliver('pull_request', pushEvent({ pr, headSha: HEAD_SHA, at: new Date(Date.now() - 300_000) }));
    assert.deepEqual([late.status, late.text], [200, 'nothing to cancel']);
    assert.equal((await bot.requestForComment(running.store, comment.id)).status, 'dispatched');
    const closed = await running.deliver('pull_request', pushEvent({ pr, headSha: HEAD_SHA, action: 'closed' }));
    assert.deepEqual([closed.status, closed.text], [202, 'cancelled 1']);
    await settled(running);
    await waitFor('the cancelled sticky comment', () => sticky(pr)[0]?.includes('was cancelled: the pull request was closed.'));
  });

  it('a push leaves a queued /perf cancel and /perf waive alone: they measure nothing, and are carried out', async () => {
    // With the command job not started yet, a push cancelled every request written before it:
    // the waiver was lost and the cancel never ran.
    const pr = nextPr++;
    const hold = gh.holdNext('repos/get-collaborator-permission-level');
    const { comment } = await command(gh, running, 'maintainer', '/perf waive scan_range=100 -- known cost', { pr });
    await hold.arrived;
    const pushed = await push(pr);
    assert.deepEqual([pushed.status, pushed.text], [200, 'nothing to cancel']);
    hold.release();
    await settled(running);
    assert.equal((await bot.requestForComment(running.store, comment.id)).status, 'answered');
    const waivers = await bot.waiversFor(running.store, { repo: REPOSITORY, prNumber: pr });
    assert.deepEqual(waivers.map((w) => w.microbenchmark), ['scan_range=100']);
    const second = nextPr++;
    const holdCancel = gh.holdNext('repos/get-collaborator-permission-level');
    const cancel = await command(gh, running, 'maintainer', '/perf cancel', { pr: second });
    await holdCancel.arrived;
    assert.deepEqual((await push(second)).text, 'nothing to cancel');
    holdCancel.release();
    await settled(running);
    assert.notEqual((await bot.requestForComment(running.store, cancel.comment.id)).status, 'cancelled');
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
