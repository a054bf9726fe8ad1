'use strict';
// POST /api/github/webhooks: answered in milliseconds. A delivery is checked (method, content
// type, headers, size, signature, JSON), its meaning decided (triage.js), and what it asks
// for written in one transaction: the delivery id, the command, the job. The worker does the
// rest. Bad input gets a 4xx and leaves no row and makes no GitHub call; a delivery seen before
// (GitHub redelivers, proxies duplicate) is answered and changes nothing.
const { Webhooks, emitterEventNames } = require('@octokit/webhooks');
const store = require('../store');
const { triage } = require('./triage');
const messages = require('./messages');

const KNOWN_EVENTS = new Set(emitterEventNames.map((name) => name.split('.')[0]));

class Refusal extends Error {
  constructor(status, message, headers = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

function readBody(request, limit) {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new Refusal(413, `the body is ${declared} bytes; at most ${limit} are accepted`));
  }
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Refusal(413, `the body is larger than ${limit} bytes`));
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function header(request, name) {
  const value = request.headers[name];
  if (typeof value !== 'string' || !value) throw new Refusal(400, `the ${name} header is missing`);
  return value;
}

// The rows one delivery writes, all in one transaction.
async function record(db, { deliveryId, name, action, work }) {
  return store.inTransaction(db, async (tx) => {
    const delivery = await store.recordDelivery(tx, { deliveryId, event: name, action });
    if (delivery.duplicate) return { outcome: 'duplicate delivery' };
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
      // A push leaves a bisection running: it searches the pinned commits between good and
      // bad, which a new head does not change. Closing the pull request stops it too.
      const keep = work.action === 'closed' ? ['signoff'] : ['signoff', 'bisect'];
      const cancelled = await store.cancelRequests(tx, { repo: work.repo, prNumber: work.prNumber, before: work.at, reason, keep, by: 'push' });
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
    const job = await store.enqueue(tx, { kind: 'run', payload: work }, `run:${work.repo}/${work.runId}/${work.attempt}`);
    return { outcome: job.created ? 'queued' : 'duplicate run', jobId: job.id };
  });
}

/**
 * @param ctx  {store, config: {webhookSecret, maxWebhookBytes, repositories, workflows},
 *             benchmarks, log, onQueued()}
 * @returns async (request, response) => void
 */
function webhookHandler(ctx) {
  const webhooks = new Webhooks({ secret: ctx.config.webhookSecret });
  const context = { repositories: ctx.config.repositories, workflows: ctx.config.workflows, benchmarks: ctx.benchmarks, watch: ctx.config.watch };

  // Octokit's handlers decide and record; each writes what it found on the event it was given.
  const decide = async (event) => {
    const decided = triage(event.name, event.payload, context);
    if (decided.ignore) {
      event.answer = { status: 200, body: decided.pong ? 'pong' : `ignored: ${decided.ignore}` };
      return;
    }
    const result = await record(ctx.store, { deliveryId: event.id, name: event.name, action: event.payload.action, work: decided.work });
    event.answer = { status: result.jobId && !result.outcome.startsWith('duplicate') ? 202 : 200, body: result.outcome };
    if (event.answer.status === 202) ctx.onQueued();
  };
  webhooks.onAny(decide);

  async function receive(request) {
    if (request.method !== 'POST') throw new Refusal(405, 'only POST is accepted here', { allow: 'POST' });
    const type = String(request.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new Refusal(415, `content type '${type || 'none'}' is not accepted; set the App's webhook content type to application/json`);
    }
    const name = header(request, 'x-github-event');
    const deliveryId = header(request, 'x-github-delivery');
    const signature = header(request, 'x-hub-signature-256');
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(deliveryId)) throw new Refusal(400, 'the x-github-delivery header is not a delivery id');
    const body = (await readBody(request, ctx.config.maxWebhookBytes)).toString('utf8');
    const valid = await webhooks.verify(body, signature).catch(() => false);
    if (!valid) throw new Refusal(401, 'the signature does not match the body and the webhook secret');
    if (!KNOWN_EVENTS.has(name) && name !== 'ping') throw new Refusal(400, `'${name}' is not a GitHub webhook event`);
    let payload;
    try {
      payload = JSON.parse(body);
    } catch (err) {
      throw new Refusal(400, `the body is not JSON (${err.message})`);
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Refusal(400, 'the body is not a JSON object');
    const event = { id: deliveryId, name, payload };
    await webhooks.receive(event);
    return { ...event.answer, name, deliveryId };
  }

  return async function handle(request, response) {
    const started = performance.now();
    let answer;
    try {
      answer = await receive(request);
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
    response.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8', ...(answer.headers || {}) });
    response.end(`${answer.body}\n`);
    ctx.log.info(`webhook ${answer.name || '-'} ${answer.deliveryId || '-'}: ${answer.status} ${answer.body} (${(performance.now() - started).toFixed(1)} ms)`);
  };
}

module.exports = { webhookHandler };
