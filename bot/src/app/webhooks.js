'use strict';
// POST /api/github/webhooks: answered in milliseconds. A delivery is checked (method, content
// type, headers, size, signature, UTF-8, JSON), its meaning decided (triage.js), and what it asks
// for written in one transaction: the delivery id, the command, the job. The worker does the
// rest. Bad input gets a 4xx and leaves no row and makes no GitHub call; a delivery seen before
// (GitHub redelivers, proxies duplicate) is answered and changes nothing.
const { createHmac, timingSafeEqual } = require('node:crypto');
const { BlockList, isIPv4 } = require('node:net');
const { Webhooks, emitterEventNames } = require('@octokit/webhooks');
const store = require('../store');
const { triage } = require('./triage');
const { STAMP_MARGIN_MS } = require('./approval');
const { queueRunCompletion } = require('./run-completions');
const messages = require('./messages');
const { HttpRefusal: Refusal, sendText } = require('./http-server');

const KNOWN_EVENTS = new Set(emitterEventNames.map((name) => name.split('.')[0]));

// The body is read before its signature can be checked, so what it may hold is bounded first:
// its size by its Content-Length before a byte is read, then as it arrives (chunked bodies
// declare none); all bodies being read at once by `inFlight`, what many connections could
// otherwise make the bot hold. A body refused closes its connection instead of being drained.
function readBody(request, limit, inFlight, held) {
  const tooLarge = (what) => new Refusal(413, `the body ${what}; at most ${limit} are accepted`, { connection: 'close' });
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(`is ${declared} bytes`));
  return new Promise((resolve, reject) => {
    const chunks = [];
    const refuse = (refusal) => {
      request.off('data', onData);
      request.pause();
      reject(refusal);
    };
    function onData(chunk) {
      if (held.bytes + chunk.length > limit) {
        refuse(tooLarge(`goes on past ${limit} bytes`));
        return;
      }
      if (!inFlight.take(chunk.length)) {
        refuse(new Refusal(503, 'too many webhook bodies are being read at once; send it again', { connection: 'close', 'retry-after': '5' }));
        return;
      }
      held.bytes += chunk.length;
      chunks.push(chunk);
    }
    const cut = () => reject(new Refusal(400, 'the connection closed before the body ended'));
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks, held.bytes)));
    request.on('error', cut);
    request.on('close', () => {
      if (!request.complete) cut();
    });
  });
}

/**
 * Whether a peer address may deliver webhooks: always without a list of sources; with one,
 * when it lies in one of its blocks (an IPv4 peer of a dual-stack socket arrives as ::ffff:a.b.c.d).
 */
function sourceCheck(blocks) {
  if (!blocks) return () => true;
  const allowed = new BlockList();
  for (const b of blocks) allowed.addSubnet(b.address, b.prefix, b.family);
  return (address) => {
    if (typeof address !== 'string') return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return allowed.check(mapped[1], 'ipv4');
    return allowed.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  };
}

/** Bytes that requests may hold together: taken as they arrive, given back when answered. */
function byteBudget(limit) {
  let used = 0;
  return {
    take(bytes) {
      if (used + bytes > limit) return false;
      used += bytes;
      return true;
    },
    give(bytes) {
      used -= bytes;
    },
  };
}

// X-Hub-Signature-256 is GitHub's HMAC-SHA256 of the body's bytes as sent. @octokit/webhooks'
// verify() takes a string, and a body decoded first is checked as text, not as the bytes that
// were signed: bytes that are not UTF-8 decode to U+FFFD, which other bodies decode to as well.
function signatureMatches(secret, body, signature) {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// GitHub sends UTF-8 JSON. Decoded strictly, byte order mark kept, the text is the bytes that
// were signed: anything else is refused rather than repaired.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function header(request, name) {
  const value = request.headers[name];
  if (typeof value !== 'string' || !value) throw new Refusal(400, `the ${name} header is missing`);
  return value;
}

// The rows one delivery writes, all in one transaction.
async function record(db, { deliveryId, name, action, work }) {
  return store.inTransaction(db, async (tx) => {
    const delivery = await store.recordDelivery(tx, { deliveryId, event: name, action });
    // A run's completion delivered again is looked at again: its first job may not have done
    // its work (run-completions.js).
    if (delivery.duplicate && work.kind !== 'run') return { outcome: 'duplicate delivery' };
    if (work.kind === 'command') {
      const command = work.parsed.command || { name: 'invalid', args: {}, line: work.line };
      await store.recordRequest(tx, {
        commentId: work.commentId, deliveryId, repo: work.repo, prNumber: work.prNumber, author: work.author,
        command, commentCreatedAt: work.commentCreatedAt, installationId: work.installationId,
      });
      const job = await store.enqueue(tx, { kind: 'command', payload: { commentId: work.commentId, parsed: work.parsed, onPullRequest: work.onPullRequest } }, `command:${work.commentId}`);
      return { outcome: job.created ? 'queued' : 'duplicate comment', jobId: job.id };
    }
    // The heads a /perf approves are pinned from (approval.js).
    const head = (work.kind === 'head' || (work.kind === 'push' && work.action === 'synchronize')) && work.at !== null
      ? await store.recordPullHead(tx, { repo: work.repo, prNumber: work.prNumber, sha: work.headSha, at: work.at, action: work.action, deliveryId })
      : null;
    if (work.kind === 'head') return { outcome: head ? 'head recorded' : 'no head time' };
    if (work.kind === 'push') {
      const reason = messages.CANCEL_REASONS[work.action === 'closed' ? 'closed' : 'push']({ headSha: work.headSha });
      // A push cancels what measures the pull request's head. It leaves what does not: a
      // release sign-off (pinned release refs), a maintainer's `/perf cancel`, `waive` and
      // `help` (no measurement at all), and a bisection, which searches the pinned commits
      // between good and bad that a new head does not change (closing the pull request stops
      // that too).
      const notMeasuringTheHead = ['signoff', 'cancel', 'waive', 'help'];
      const keep = work.action === 'closed' ? notMeasuringTheHead : [...notMeasuringTheHead, 'bisect'];
      // Commands written up to the stamps' margin after the push too: which came first is
      // unknown, and the command's job would refuse such a head (approval.js).
      const before = work.at === null ? null : work.at + STAMP_MARGIN_MS;
      const cancelled = await store.cancelRequests(tx, { repo: work.repo, prNumber: work.prNumber, before, reason, keep, by: 'push' });
      if (!cancelled.length) return { outcome: 'nothing to cancel' };
      const job = await store.enqueue(tx, {
        kind: 'push',
        payload: { repo: work.repo, prNumber: work.prNumber, installationId: work.installationId, cancelled: cancelled.map((r) => ({ id: r.id, status: r.status })) },
      }, `push:${deliveryId}`);
      return { outcome: `cancelled ${cancelled.length}`, jobId: job.id };
    }
    if (work.kind === 'watch-push') {
      const job = await store.enqueue(tx, { kind: 'watch-push', payload: work }, `watch-push:${work.repo}/${work.headSha}`);
      return { outcome: job.created ? 'queued' : 'duplicate push', jobId: job.id };
    }
    const queued = await queueRunCompletion(tx, work);
    return { outcome: queued.outcome === 'duplicate run' && delivery.duplicate ? 'duplicate delivery' : queued.outcome, jobId: queued.jobId };
  });
}

/**
 * @param ctx  {store, config: {webhookSecret, maxWebhookBytes, maxWebhookBytesInFlight, repositories, workflows},
 *             benchmarks, log, onQueued()}
 * @returns async (request, response) => void
 */
function webhookHandler(ctx) {
  const webhooks = new Webhooks({ secret: ctx.config.webhookSecret });
  const inFlight = byteBudget(ctx.config.maxWebhookBytesInFlight);
  const mayDeliver = sourceCheck(ctx.config.webhookSources || null);
  const context = { repositories: ctx.config.repositories, workflows: ctx.config.workflows, benchmarks: ctx.benchmarks, watch: ctx.config.watch };

  // Octokit's handlers decide and record; each writes what it found on the event it was given.
  const decide = async (event) => {
    const decided = triage(event.name, event.payload, context);
    if (decided.ignore) {
      event.answer = { status: 200, body: decided.pong ? 'pong' : `ignored: ${decided.ignore}` };
      return;
    }
    if (decided.malformed) {
      event.answer = { status: 400, body: decided.malformed };
      return;
    }
    const result = await record(ctx.store, { deliveryId: event.id, name: event.name, action: event.payload.action, work: decided.work });
    event.answer = { status: result.jobId && !result.outcome.startsWith('duplicate') ? 202 : 200, body: result.outcome };
    if (event.answer.status === 202) ctx.onQueued();
  };
  webhooks.onAny(decide);

  async function receive(request, held) {
    // Before anything is read: the body's bytes are what a stranger could hold.
    if (!mayDeliver(request.socket.remoteAddress)) throw new Refusal(403, 'deliveries are taken from the networks of PERFGATE_WEBHOOK_SOURCES only', { connection: 'close' });
    if (request.method !== 'POST') throw new Refusal(405, 'only POST is accepted here', { allow: 'POST' });
    const type = String(request.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new Refusal(415, `content type '${type || 'none'}' is not accepted; set the App's webhook content type to application/json`);
    }
    const name = header(request, 'x-github-event');
    const deliveryId = header(request, 'x-github-delivery');
    const signature = header(request, 'x-hub-signature-256');
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(deliveryId)) throw new Refusal(400, 'the x-github-delivery header is not a delivery id');
    const raw = await readBody(request, ctx.config.maxWebhookBytes, inFlight, held);
    if (!signatureMatches(ctx.config.webhookSecret, raw, signature)) throw new Refusal(401, 'the signature does not match the body and the webhook secret');
    let body;
    try {
      body = utf8.decode(raw);
    } catch {
      throw new Refusal(400, 'the body is not UTF-8 text');
    }
    if (!KNOWN_EVENTS.has(name) && name !== 'ping') throw new Refusal(400, `'${name}' is not a GitHub webhook event`);
    let payload;
    try {
      payload = JSON.parse(body);
    } catch (err) {
      throw new Refusal(400, `the body is not JSON (${err.message})`);
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Refusal(400, 'the body is not a JSON object');
    // The event's action names the handlers Octokit calls: anything but a string there breaks
    // them before the delivery is triaged.
    if (payload.action !== undefined && typeof payload.action !== 'string') throw new Refusal(400, `the delivery's action is ${Array.isArray(payload.action) ? 'an array' : typeof payload.action}; expected a string`);
    const event = { id: deliveryId, name, payload };
    await webhooks.receive(event);
    return { ...event.answer, name, deliveryId };
  }

  return async function handle(request, response) {
    const started = performance.now();
    let answer;
    const held = { bytes: 0 };
    try {
      answer = await receive(request, held);
    } catch (err) {
      if (err instanceof Refusal) {
        answer = { status: err.status, body: err.message, headers: err.headers };
      } else {
        // A database that cannot be written: GitHub shows the failed delivery and it can be
        // sent again; nothing half-written stays behind (one transaction).
        const cause = err && err.errors ? err.errors.map((e) => e.message).join('; ') : String(err && err.stack ? err.stack : err);
        ctx.log.error(`webhook: ${cause}`);
        answer = { status: 500, body: 'the delivery could not be recorded; send it again' };
      }
    }
    inFlight.give(held.bytes);
    sendText(request, response, answer.status, answer.body, answer.headers);
    ctx.log.info(`webhook ${answer.name || '-'} ${answer.deliveryId || '-'}: ${answer.status} ${answer.body} (${(performance.now() - started).toFixed(1)} ms)`);
  };
}

module.exports = { webhookHandler, sourceCheck };
