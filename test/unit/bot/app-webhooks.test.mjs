// POST /api/github/webhooks: bad input is answered 4xx (or ignored) and leaves no row and makes
// no GitHub call; a delivery sent many times at once is acted on once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  bot, botCalls, botComments, commentEvent, deliver, openedEvent, openPulls, PR, postComment, published, pushEvent, settled, startBotOn, startDouble, waitFor, WEBHOOK_SECRET,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const { sql } = require('kysely');
const { healthCheck } = require('../../../bot/src/app/service.js');
const { createHttpServer } = require('../../../bot/src/app/http-server.js');

async function rows(running) {
  const count = async (table, where = (q) => q) => Number((await where(running.store.db.selectFrom(table)).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
  // The sweeps the bot queues on its own clock are not the deliveries' jobs.
  return { deliveries: await count('deliveries'), requests: await count('requests'), jobs: await count('jobs', (q) => q.where('kind', '!=', 'sweep')) };
}

describe('webhook deliveries', () => {
  let gh;
  let running;
  let callsBefore;
  let rowsBefore;
  before(async () => {
    gh = await startDouble();
    running = await startBotOn(gh);
    await openPulls(running, [PR]);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
  });
  beforeEach(async () => {
    await settled(running);
    callsBefore = gh.calls.length;
    rowsBefore = await rows(running);
  });
  const nothingHappened = async () => {
    await settled(running);
    assert.deepEqual(await rows(running), rowsBefore, 'a row was written');
    assert.deepEqual(gh.calls.slice(callsBefore).map((c) => c.operationId ?? c.path), [], 'GitHub was called');
  };
  const post = (headers, body) => fetch(`${running.url}/api/github/webhooks`, { method: 'POST', headers, body })
    .then(async (r) => ({ status: r.status, text: (await r.text()).trim() }));

  it('a forged signature: 401, no row, no call', async () => {
    const comment = await postComment(gh, 'maintainer', '/perf full');
    callsBefore = gh.calls.length;
    const answer = await deliver(running.url, 'issue_comment', commentEvent({ comment }), { secret: 'not-the-webhook-secret-at-all' });
    assert.deepEqual([answer.status, answer.text], [401, 'the signature does not match the body and the webhook secret']);
    // GitHub's signature of the delivery, on a body changed on the way.
    const signature = await deliverSignature(commentEvent({ comment }));
    const changed = await deliver(running.url, 'issue_comment', null, { body: JSON.stringify({ ...commentEvent({ comment }), extra: 1 }), headers: { 'x-hub-signature-256': signature } });
    assert.equal(changed.status, 401);
    await nothingHappened();
  });

  it('missing headers, a wrong content type, a malformed body, an oversized body, another method: 4xx, no row, no call', async () => {
    const body = JSON.stringify(published('ping', undefined));
    const signature = await deliverSignature(body);
    const good = { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature };
    for (const name of ['x-github-event', 'x-github-delivery', 'x-hub-signature-256']) {
      const { [name]: _, ...headers } = good;
      assert.deepEqual(await post(headers, body), { status: 400, text: `the ${name} header is missing` });
    }
    assert.deepEqual(await post({ ...good, 'content-type': 'application/x-www-form-urlencoded' }, `payload=${encodeURIComponent(body)}`),
      { status: 415, text: "content type 'application/x-www-form-urlencoded' is not accepted; set the App's webhook content type to application/json" });
    const broken = '{"action": "created", ';
    assert.deepEqual(await post({ ...good, 'x-github-event': 'issue_comment', 'x-hub-signature-256': await deliverSignature(broken) }, broken),
      { status: 400, text: "the body is not JSON (Expected double-quoted property name in JSON at position 22)" });
    assert.deepEqual(await post({ ...good, 'x-github-event': 'issue_comment', 'x-hub-signature-256': await deliverSignature('[1]') }, '[1]'), { status: 400, text: 'the body is not a JSON object' });
    // An action that is no string broke Octokit's handlers before triage: 500 and an error.
    for (const [action, said] of [[{ toString: null }, 'object'], [['created'], 'an array'], [7, 'number']]) {
      const odd = JSON.stringify({ ...JSON.parse(body), action });
      assert.deepEqual(await post({ ...good, 'x-github-event': 'issue_comment', 'x-hub-signature-256': await deliverSignature(odd) }, odd),
        { status: 400, text: `the delivery's action is ${said}; expected a string` });
    }
    const huge = JSON.stringify({ ...JSON.parse(body), padding: 'x'.repeat(running.config.maxWebhookBytes) });
    assert.deepEqual(await post({ ...good, 'x-hub-signature-256': await deliverSignature(huge) }, huge),
      { status: 413, text: `the body is ${Buffer.byteLength(huge)} bytes; at most ${running.config.maxWebhookBytes} are accepted` });
    assert.deepEqual(await post({ ...good, 'x-github-event': 'bogus', 'x-hub-signature-256': signature }, body), { status: 400, text: "'bogus' is not a GitHub webhook event" });
    assert.deepEqual(await post({ ...good, 'x-github-delivery': '../../etc' }, body), { status: 400, text: 'the x-github-delivery header is not a delivery id' });
    const get = await fetch(`${running.url}/api/github/webhooks`);
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
    await nothingHappened();
  });

  it('ping, events and actions perfgate does not act on, repositories it does not serve: 200, ignored, no row, no call', async () => {
    assert.deepEqual(await pick(deliver(running.url, 'ping', published('ping', undefined))), [200, 'pong']);
    assert.deepEqual(await pick(deliver(running.url, 'star', { ...published('star', 'created') })), [200, 'ignored: perfgate does not act on star events']);
    assert.deepEqual(await pick(deliver(running.url, 'installation', published('installation', 'created'))), [200, 'ignored: perfgate does not act on installation events']);
    assert.deepEqual(await pick(deliver(running.url, 'pull_request', pushEvent({ headSha: 'c'.repeat(40), action: 'labeled' }))), [200, 'ignored: perfgate does not act on pull_request.labeled']);
    const comment = await postComment(gh, 'maintainer', '/perf quick');
    callsBefore = gh.calls.length;
    assert.deepEqual(await pick(deliver(running.url, 'issue_comment', commentEvent({ comment, repository: 'perfgate-test/elsewhere' }))), [200, 'ignored: repository perfgate-test/elsewhere is not one this bot serves']);
    assert.deepEqual(await pick(deliver(running.url, 'issue_comment', commentEvent({ comment, action: 'edited' }))), [200, 'ignored: perfgate does not act on issue_comment.edited']);
    await nothingHappened();
  });

  it('a signed delivery with a field not of the form GitHub sends: 400 naming it, no row, no call', async () => {
    const comment = await postComment(gh, 'maintainer', '/perf quick');
    callsBefore = gh.calls.length;
    const odd = commentEvent({ comment });
    odd.comment.body = { toString: 1 };
    assert.deepEqual(await pick(deliver(running.url, 'issue_comment', odd)), [400, 'the delivery\'s comment.body is {"toString":1}; expected text or null']);
    const pushed = pushEvent({ headSha: 'c'.repeat(40) });
    pushed.pull_request.number = '7';
    assert.deepEqual(await pick(deliver(running.url, 'pull_request', pushed)), [400, 'the delivery\'s pull_request.number is "7"; expected a positive integer']);
    await nothingHappened();
  });

  it('the same delivery sent 20 times at once: one 202, one dispatch, one reaction, one sticky comment', async () => {
    const comment = await postComment(gh, 'maintainer', '/perf quick rounds=4');
    const payload = commentEvent({ comment });
    const deliveryId = randomUUID();
    const dispatchesBefore = gh.state.dispatches.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(running.url, 'issue_comment', payload, { deliveryId })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(19).fill(200), 202]);
    assert.equal(answers.filter((a) => a.text === 'duplicate delivery').length, 19);
    await settled(running);
    assert.equal(gh.state.dispatches.length - dispatchesBefore, 1);
    assert.equal(gh.state.dispatches.at(-1).inputs['request-id'], `c${comment.id}`);
    const reactions = gh.calls.slice(callsBefore).filter((c) => c.operationId === 'reactions/create-for-issue-comment');
    assert.equal(reactions.length, 1);
    assert.equal(botComments(gh).filter((c) => c.body.startsWith('<!-- perfgate:comment suite=quick -->')).length, 1);
    assert.deepEqual(await rows(running), { deliveries: rowsBefore.deliveries + 1, requests: rowsBefore.requests + 1, jobs: rowsBefore.jobs + 1 });
  });

  it('the same comment in 20 different deliveries at once (redelivered): one job, one dispatch', async () => {
    const comment = await postComment(gh, 'admin', '/perf full');
    const payload = commentEvent({ comment });
    const dispatchesBefore = gh.state.dispatches.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(running.url, 'issue_comment', payload)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(19).fill(200), 202]);
    assert.equal(answers.filter((a) => a.text === 'duplicate comment').length, 19);
    await settled(running);
    assert.equal(gh.state.dispatches.length - dispatchesBefore, 1);
    assert.deepEqual(await rows(running), { deliveries: rowsBefore.deliveries + 20, requests: rowsBefore.requests + 1, jobs: rowsBefore.jobs + 1 });
  });

  it('the signature is checked over the bytes as sent, not over their decoding', async () => {
    const { createHmac } = await import('node:crypto');
    const hmac = (bytes) => `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(bytes).digest('hex')}`;
    const headers = { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': randomUUID() };
    // Bytes that are not UTF-8 decode to U+FFFD: a signature of the text with U+FFFD in it is
    // not a signature of these bytes.
    const bytes = Buffer.concat([Buffer.from('{"zen":"'), Buffer.from([0xff]), Buffer.from('","hook_id":1}')]);
    const decoded = bytes.toString('utf8');
    assert.ok(decoded.includes('\ufffd'));
    assert.deepEqual(await post({ ...headers, 'x-hub-signature-256': await deliverSignature(decoded) }, bytes),
      { status: 401, text: 'the signature does not match the body and the webhook secret' });
    // Signed as sent, those bytes are refused for what they are.
    assert.deepEqual(await post({ ...headers, 'x-hub-signature-256': hmac(bytes) }, bytes), { status: 400, text: 'the body is not UTF-8 text' });
    // A body GitHub could send, signed over its bytes: accepted.
    const text = Buffer.from(JSON.stringify({ ...published('ping', undefined), zen: 'Ünïcödé ✓ 𝄞' }));
    assert.deepEqual(await post({ ...headers, 'x-hub-signature-256': hmac(text) }, text), { status: 200, text: 'pong' });
    await nothingHappened();
  });

  it('a body too large for its declared length, or without one, is refused as it arrives and the connection closed', async () => {
    const limit = running.config.maxWebhookBytes;
    const body = JSON.stringify({ ...published('ping', undefined), padding: 'x'.repeat(limit) });
    const signature = await deliverSignature(body);
    const chunks = async function* () {
      for (let at = 0; at < body.length; at += 65536) yield Buffer.from(body.slice(at, at + 65536));
    };
    const response = await fetch(`${running.url}/api/github/webhooks`, {
      method: 'POST', duplex: 'half', body: chunks(),
      headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature },
    }).catch((err) => err);
    // The bot may close before the client has sent everything: then the client sees the reset.
    if (!(response instanceof Error)) {
      assert.equal(response.status, 413);
      assert.equal(response.headers.get('connection'), 'close');
      assert.equal((await response.text()).trim(), `the body goes on past ${limit} bytes; at most ${limit} are accepted`);
    }
    assert.ok(running.log.lines.some((line) => line.includes(`413 the body goes on past ${limit} bytes`)), 'the bot answered 413');
    await nothingHappened();
  });

  it('bodies being read at once are bounded together: past PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT, 503; given back when their connections end', async () => {
    const small = await startBotOn(gh, { env: { PERFGATE_MAX_WEBHOOK_BYTES: '16384', PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT: '40000' } });
    const open = [];
    try {
      // A client that sends its headers and most of its body, then waits.
      const holder = () => new Promise((resolve) => {
        const socket = net.connect(small.port, '127.0.0.1', () => {
          socket.write(['POST /api/github/webhooks HTTP/1.1', 'Host: bot', 'Content-Type: application/json', 'X-GitHub-Event: ping',
            `X-GitHub-Delivery: ${randomUUID()}`, 'X-Hub-Signature-256: sha256=00', 'Content-Length: 16000', '', ''].join('\r\n'));
          socket.write(Buffer.alloc(15000, 0x20), () => setTimeout(() => resolve(socket), 200));
        });
        let text = '';
        socket.on('data', (chunk) => { text += chunk; });
        socket.on('error', () => {});
        socket.answer = () => text;
        open.push(socket);
      });
      const [first, second] = [await holder(), await holder()];
      const third = await holder();
      await waitFor('the third body to be refused', () => third.answer().includes('\r\n\r\n'));
      assert.match(third.answer(), /^HTTP\/1\.1 503 /);
      assert.match(third.answer(), /\r\nretry-after: 5\r\n/i);
      assert.ok(third.answer().endsWith('\r\n\r\ntoo many webhook bodies are being read at once; send it again\n'), third.answer());
      assert.deepEqual([first.answer(), second.answer()], ['', '']);
      first.destroy();
      second.destroy();
      await waitFor('their bytes to be given back', async () => (await deliver(small.url, 'ping', published('ping', undefined))).status === 200, { timeoutMs: 5000 });
    } finally {
      for (const socket of open) socket.destroy();
      await small.close();
    }
  });

  it('with PERFGATE_WEBHOOK_SOURCES, a peer outside its networks is answered 403 before its body is read; one inside is served', async () => {
    const elsewhere = await startBotOn(gh, { env: { PERFGATE_WEBHOOK_SOURCES: '10.0.0.0/8, 2001:db8::/32' } });
    const here = await startBotOn(gh, { env: { PERFGATE_WEBHOOK_SOURCES: '192.0.2.0/24,127.0.0.0/8' } });
    try {
      const refused = await deliver(elsewhere.url, 'ping', published('ping', undefined));
      assert.equal(refused.status, 403);
      // A client that declares a body and sends none is answered at once: it holds nothing.
      const answer = await new Promise((resolve) => {
        const socket = net.connect(elsewhere.port, '127.0.0.1', () => {
          socket.write(['POST /api/github/webhooks HTTP/1.1', 'Host: bot', 'Content-Type: application/json', 'X-GitHub-Event: ping',
            `X-GitHub-Delivery: ${randomUUID()}`, 'X-Hub-Signature-256: sha256=00', 'Content-Length: 16000', '', ''].join('\r\n'));
        });
        let text = '';
        socket.on('data', (chunk) => { text += chunk; });
        socket.on('error', () => {});
        socket.on('close', () => resolve(text));
      });
      assert.match(answer, /^HTTP\/1\.1 403 /);
      assert.ok(answer.endsWith('deliveries are taken from the networks of PERFGATE_WEBHOOK_SOURCES only\n'), answer);
      assert.equal((await deliver(here.url, 'ping', published('ping', undefined))).status, 200);
    } finally {
      await elsewhere.close();
      await here.close();
    }
  });

  it('GET /healthz says the status of the store and of GitHub and the queue, and nothing of where the store is or of the App', async () => {
    const response = await fetch(`${running.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok', store: 'ok', github: 'ok', queue: { queued: 0, running: 0 } });
    assert.equal((await fetch(`${running.url}/nope`)).status, 404);
    await nothingHappened();
  });

  it('GET /healthz while the store takes no writes: 503, not "ok" while every delivery is refused; ok again once it does', async () => {
    const readOnly = async (on) => sql.raw(`pragma query_only = ${on ? 1 : 0}`).execute(running.store.db);
    await readOnly(true);
    try {
      const refused = await deliver(running.url, 'pull_request', openedEvent({ pr: 4242 }));
      assert.deepEqual([refused.status, refused.text], [500, 'the delivery could not be recorded; send it again']);
      // The store is looked at once a second at most.
      await new Promise((resolve) => { setTimeout(resolve, 1100); });
      const answer = await fetch(`${running.url}/healthz`);
      assert.deepEqual([answer.status, await answer.json()], [503, { status: 'error', store: 'unwritable', github: 'ok', queue: { queued: 0, running: 0 } }]);
      assert.ok(running.log.lines.some((line) => /^error healthz: the store cannot be written: /.test(line)));
    } finally {
      await readOnly(false);
    }
    await new Promise((resolve) => { setTimeout(resolve, 1100); });
    const again = await fetch(`${running.url}/healthz`);
    assert.deepEqual([again.status, (await again.json()).status], [200, 'ok']);
  });

  it('GET /healthz of a store that cannot be read: 503 with the status only, the error in the log', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-healthz-'));
    const closed = await bot.openStore(path.join(folder, 'history.db'));
    await closed.close();
    const errors = [];
    const log = { error: (line) => errors.push(line), warn: () => {}, info: () => {} };
    const server = createHttpServer({ route: healthCheck({ store: closed, log }), limits: { maxConnections: 4, headersTimeoutMs: 5000, requestTimeoutMs: 5000 }, log });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${server.address().port}/healthz`);
      assert.deepEqual([answer.status, await answer.json()], [503, { status: 'error', store: 'unreadable', github: 'unknown' }]);
      assert.equal(errors.length, 1);
      assert.match(errors[0], /^healthz: the store cannot be written: /);
    } finally {
      server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('made only calls that GitHub\'s description allows', () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId}: ${c.problems.join('; ')}`), []);
    assert.ok(botCalls(gh).includes('actions/create-workflow-dispatch'));
  });
});

async function pick(answer) {
  const { status, text } = await answer;
  return [status, text];
}

async function deliverSignature(payload) {
  const { sign } = await import('@octokit/webhooks-methods');
  return sign(WEBHOOK_SECRET, typeof payload === 'string' ? payload : JSON.stringify(payload));
}
