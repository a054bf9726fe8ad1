// `perfgate bot`'s HTTP surface under what any client on the network can send, over raw TCP on
// loopback: malformed request lines and targets, odd, duplicate and oversized headers, bodies
// larger than allowed or that never end, slow headers and bodies, connections past the cap,
// and a few hundred byte-level mutants of real requests. The bot runs as its own process, so a
// request that stopped it would show as an exit. Afterwards it still answers /healthz, and the
// signed webhooks delivered during and after the storm were acted on.
//
// The mutants come from a seeded generator: PERFGATE_FUZZ_SEED=<n> repeats a run; a failure
// names the seed and the request that broke it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import {
  botEnvironment, commentEvent, openPulls, postComment, published, sleep, spawnBot, startDouble, stopSpawnedBot, waitFor, WEBHOOK_SECRET,
} from '../../support/bot.mjs';
import seededDraws from '../../support/seeded-draws.js';

const { seededUniform } = seededDraws;

const SEED = Number(process.env.PERFGATE_FUZZ_SEED || 20261124);
const MUTANTS = 300;
const CONCURRENCY = 16;
const MAX_CONNECTIONS = 48;
const HEADERS_TIMEOUT_SECONDS = 2;
const REQUEST_TIMEOUT_SECONDS = 4;

// Seeded, so that a failing run can be repeated.
function generator(seed) {
  const next = seededUniform(seed);
  const int = (n) => Math.floor(next() * n);
  return { int, pick: (list) => list[int(list.length)], bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))) };
}

/**
 * Sends `parts` on a new loopback connection (gapMs between them) and reads what comes back
 * until the server closes, answers and goes quiet, or `limitMs` passes. A client that has sent
 * everything and heard nothing for quietMs half-closes, as a client giving up would.
 */
function exchange(port, parts, { gapMs = 0, quietMs = 1000, limitMs = 20_000 } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const started = performance.now();
    const chunks = [];
    let quiet = null;
    let done = false;
    const finish = (how) => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(hard);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      // 1xx (100 Continue) is not an answer; pipelined requests may get several.
      const statuses = [...text.matchAll(/^HTTP\/1\.[01] (\d{3}) /gm)].map((m) => Number(m[1])).filter((s) => s >= 200);
      resolve({ status: statuses[0] ?? null, statuses, text, how, ms: performance.now() - started });
    };
    const hard = setTimeout(() => finish('client gave up'), limitMs);
    const rearm = (ms) => {
      clearTimeout(quiet);
      quiet = setTimeout(() => (chunks.length ? finish('answered') : socket.end()), ms);
    };
    socket.on('data', (data) => {
      chunks.push(data);
      rearm(150);
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', () => {}); // a reset by the server: 'close' follows
    socket.on('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed || done) return;
        socket.write(part);
        if (gapMs) await sleep(gapMs);
      }
      if (!chunks.length) rearm(quietMs);
    });
  });
}

// Runs `work` over `items`, `limit` at a time.
async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  }));
  return results;
}

const CRLF = '\r\n';
const head = (lines) => Buffer.from(`${lines.join(CRLF)}${CRLF}${CRLF}`, 'latin1');

describe('perfgate bot under a storm of malformed, oversized and slow requests', () => {
  let gh;
  let folder;
  let botProcess;
  let port;
  let host;
  let ping;
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-http-fuzz-'));
    gh = await startDouble({ prs: [7, 8] });
    botProcess = await spawnBot({
      env: botEnvironment({
        folder,
        apiUrl: gh.url,
        extra: {
          PERFGATE_DASHBOARD: 'on',
          PERFGATE_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
          PERFGATE_HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_SECONDS),
          PERFGATE_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_SECONDS),
        },
      }),
    });
    port = Number(new URL(botProcess.url).port);
    host = `127.0.0.1:${port}`;
    // The bot approves the head its deliveries showed before a command: both pull requests open.
    await openPulls(botProcess, [7, 8]);
    const body = JSON.stringify(published('ping', undefined));
    ping = { body, signature: await sign(WEBHOOK_SECRET, body) };
  });
  after(async () => {
    await stopSpawnedBot({ botProcess, gh, folder });
  });

  const alive = () => assert.equal(botProcess.child.exitCode, null, `perfgate bot exited (seed ${SEED}):\n${botProcess.stderr()}`);
  const webhook = (headers, body) => [head([
    'POST /api/github/webhooks HTTP/1.1', `Host: ${host}`, 'Content-Type: application/json', 'X-GitHub-Event: ping',
    `X-GitHub-Delivery: ${randomUUID()}`, `X-Hub-Signature-256: ${ping.signature}`, ...headers,
  ]), ...(body === undefined ? [] : [Buffer.from(body)])];

  // A request that makes the bot act: a maintainer's /perf quick, delivered signed as GitHub does.
  async function commandDelivered(label, pr) {
    const comment = await postComment(gh, 'maintainer', '/perf quick rounds=3', { pr });
    const answer = await botProcess.deliver('issue_comment', commentEvent({ comment, pr }));
    assert.equal(answer.status, 202, `${label}: ${answer.status} ${answer.text}`);
    return comment;
  }
  const dispatchedFor = (comment) => gh.state.dispatches.some((d) => d.inputs['request-id'] === `c${comment.id}`);

  it('answers each known-bad request with the status that names the problem, and keeps running', async () => {
    const cases = [
      // Request targets that `new URL(request.url, base)` refuses.
      ['GET /// (a scheme-relative target)', [head(['GET /// HTTP/1.1', `Host: ${host}`])], 404],
      ['POST //[/api/github/webhooks', webhook([], '').map((p, i) => (i ? p : Buffer.from(p.toString('latin1').replace('POST /api/github/webhooks', 'POST //[/api/github/webhooks'), 'latin1'))), 404],
      ['GET http://[ (a broken absolute URL)', [head(['GET http://[ HTTP/1.1', `Host: ${host}`])], 400],
      ['GET http://[::1 (an unclosed IPv6 authority)', [head(['GET http://[::1/healthz HTTP/1.1', `Host: ${host}`])], 400],
      ['GET * (asterisk form)', [head(['GET * HTTP/1.1', `Host: ${host}`])], 400],
      ['OPTIONS *', [head(['OPTIONS * HTTP/1.1', `Host: ${host}`])], 400],
      ['GET //[/dashboard', [head(['GET //[/dashboard HTTP/1.1', `Host: ${host}`])], 404],
      ['GET ///dashboard', [head(['GET ///dashboard HTTP/1.1', `Host: ${host}`])], 404],
      ['GET /dashboard//[', [head(['GET /dashboard//[ HTTP/1.1', `Host: ${host}`])], 404],
      ['GET ftp://x/healthz (another scheme)', [head(['GET ftp://x/healthz HTTP/1.1', `Host: ${host}`])], 400],
      ['GET http://127.0.0.1/healthz (absolute form)', [head([`GET http://${host}/healthz HTTP/1.1`, `Host: ${host}`])], 200],
      ['GET /healthz?%zz', [head(['GET /healthz?%zz HTTP/1.1', `Host: ${host}`])], 200],
      // Hosts: the dashboard answers only its own names (DNS rebinding); the rest ignore Host.
      ['GET /dashboard, Host: an attacker\'s name', [head(['GET /dashboard HTTP/1.1', 'Host: rebind.attacker.example'])], 421],
      ['GET /dashboard, Host: [', [head(['GET /dashboard HTTP/1.1', 'Host: ['])], 421],
      ['GET /dashboard, HTTP/1.0 without Host', [Buffer.from(`GET /dashboard HTTP/1.0${CRLF}${CRLF}`)], 400],
      ['GET /dashboard, absolute form naming another host', [head(['GET http://rebind.attacker.example/dashboard HTTP/1.1', `Host: ${host}`])], 421],
      ['GET /dashboard, Host: localhost', [head([`GET /dashboard/runs?limit=2 HTTP/1.1`, `Host: localhost:${port}`])], 200],
      ['GET /healthz, Host: an attacker\'s name', [head(['GET /healthz HTTP/1.1', 'Host: rebind.attacker.example'])], 200],
      ['GET /dashboard?repo=%E0%A4%A', [head(['GET /dashboard?repo=%E0%A4%A HTTP/1.1', `Host: ${host}`])], 400],
      // Headers.
      ['two different Content-Lengths', webhook(['Content-Length: 5', 'Content-Length: 6'], '{}'), 400],
      ['Content-Length and chunked (request smuggling)', webhook(['Content-Length: 4', 'Transfer-Encoding: chunked'], `0${CRLF}${CRLF}`), 400],
      ['Content-Length: -1', webhook(['Content-Length: -1'], '{}'), 400],
      ['a header line without a colon', [head(['GET /healthz HTTP/1.1', `Host: ${host}`, 'no colon here'])], 400],
      ['a 20 KB header', [head(['GET /healthz HTTP/1.1', `Host: ${host}`, `X-Big: ${'x'.repeat(20_000)}`])], 431],
      ['3000 headers', [head(['GET /healthz HTTP/1.1', `Host: ${host}`, ...Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${i}`)])], 431],
      ['a request line of 100 KB', [head([`GET /${'a'.repeat(100_000)} HTTP/1.1`, `Host: ${host}`])], 431],
      ['the signature header twice', webhook([`X-Hub-Signature-256: ${ping.signature}`, `Content-Length: ${Buffer.byteLength(ping.body)}`], ping.body), 401],
      ['a SHA-1 signature', webhook([`Content-Length: ${Buffer.byteLength(ping.body)}`], ping.body).map((p, i) => (i ? p : Buffer.from(p.toString('latin1').replace(/X-Hub-Signature-256: .*/, 'X-Hub-Signature-256: sha1=0000'), 'latin1'))), 401],
      ['HTTP/2 preface', [Buffer.from(`PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`)], 400],
      ['binary garbage', [Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, 0x00, 0xff, 0x0d, 0x0a, 0x0d, 0x0a])], 400],
      ['an unknown method', [head(['BREW /healthz HTTP/1.1', `Host: ${host}`])], 400],
      // Bodies.
      ['a declared 100 GB body', webhook(['Content-Length: 100000000000']), 413],
      ['a 2 MiB chunked body', webhook(['Transfer-Encoding: chunked'], Buffer.concat([Buffer.from(`200000${CRLF}`), Buffer.alloc(0x200000, 0x20), Buffer.from(`${CRLF}0${CRLF}${CRLF}`)])), 413],
      ['a body that is not UTF-8, signed', null, 400],
      ['GET /healthz with an unread 1 MiB body', [head(['GET /healthz HTTP/1.1', `Host: ${host}`, 'Content-Length: 1048576']), Buffer.alloc(1024)], 200],
    ];
    // A body of bytes that are not UTF-8, signed over those bytes: the signature holds, the
    // body is refused for what it is.
    const raw = Buffer.concat([Buffer.from('{"zen":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const rawSignature = `sha256=${(await import('node:crypto')).createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex')}`;
    cases.find((c) => c[1] === null)[1] = webhook([`Content-Length: ${raw.length}`], raw).map((p, i) => (i ? p : Buffer.from(p.toString('latin1').replace(/X-Hub-Signature-256: .*/, `X-Hub-Signature-256: ${rawSignature}`), 'latin1')));

    const answers = await pool(cases, 8, ([, parts]) => exchange(port, parts));
    alive();
    const wrong = cases.map(([label, , expected], i) => [label, expected, answers[i].status, answers[i].text.split(CRLF).at(-1).slice(0, 200)])
      .filter(([, expected, status]) => status !== expected);
    assert.deepEqual(wrong, [], `seed ${SEED}`);
  });

  it('cuts slow headers and slow bodies, and drops connections past its cap until they time out', async () => {
    const slowHeaders = () => exchange(port, [...`GET /healthz HTTP/1.1${CRLF}Host: ${host}${CRLF}X-Slow: `].map((c) => Buffer.from(c)).concat(Array(200).fill(Buffer.from('a'))), { gapMs: 100 });
    const slowBody = () => exchange(port, [webhook(['Content-Length: 4000'])[0], ...Array(200).fill(Buffer.from(' '))], { gapMs: 100 });
    const [headers, body] = await Promise.all([Promise.all(Array.from({ length: 4 }, slowHeaders)), Promise.all(Array.from({ length: 4 }, slowBody))]);
    for (const answer of [...headers, ...body]) {
      assert.equal(answer.status, 408, answer.text);
      assert.ok(answer.ms < (REQUEST_TIMEOUT_SECONDS + 3) * 1000, `cut after ${answer.ms} ms`);
    }
    assert.ok(Math.min(...headers.map((a) => a.ms)) >= HEADERS_TIMEOUT_SECONDS * 1000 - 100);
    assert.ok(Math.min(...body.map((a) => a.ms)) >= REQUEST_TIMEOUT_SECONDS * 1000 - 100);

    // Twice the cap of idle connections at once: those past the cap are closed at once, the
    // rest when their headers time out; then the bot answers again.
    const opened = MAX_CONNECTIONS * 2;
    const idle = await Promise.all(Array.from({ length: opened }, () => exchange(port, [], { quietMs: 30_000 })));
    const dropped = idle.filter((a) => a.status === null && a.ms < 1000).length;
    const timedOut = idle.filter((a) => a.status === 408).length;
    assert.ok(dropped >= opened - MAX_CONNECTIONS, `${dropped} of ${opened} dropped at once`);
    assert.equal(dropped + timedOut, opened);
    assert.ok(Math.max(...idle.map((a) => a.ms)) < (HEADERS_TIMEOUT_SECONDS + 3) * 1000);
    alive();
    assert.equal((await fetch(`${botProcess.url}/healthz`)).status, 200);
  });

  it(`survives ${MUTANTS} mutants of real requests, acts on the signed webhooks sent during and after them, and still answers /healthz`, async (t) => {
    const random = generator(SEED);
    const chunked = Buffer.from(`${ping.body.length.toString(16)}${CRLF}${ping.body}${CRLF}0${CRLF}${CRLF}`);
    const seeds = [
      Buffer.concat(webhook([`Content-Length: ${Buffer.byteLength(ping.body)}`], ping.body)),
      Buffer.concat(webhook(['Transfer-Encoding: chunked'], chunked)),
      head(['GET /healthz HTTP/1.1', `Host: ${host}`]),
      head(['GET /dashboard/runs?limit=5&repo=perfgate-test/fork HTTP/1.1', `Host: ${host}`]),
      head(['GET /dashboard/history?repo=perfgate-test/fork&benchmark=update-index_range%3D100&last=10 HTTP/1.1', `Host: localhost:${port}`]),
      head(['HEAD /dashboard/style.css HTTP/1.1', `Host: ${host}`]),
    ];
    const TARGETS = ['///', '//[', 'http://[', 'http://[::1', '*', '', '/%', '/%00', '/\\', '/..%2f..%2f', '//@/', 'http://a:b@/', '/dashboard/../api/github/webhooks', '/dashboard?repo=%FF', '?', '#', '/healthz#x'];
    const HEADERS = ['Host:', 'Host: [', 'Host: a b', 'Content-Length: 999999999999', 'Content-Length: 1e3', 'Content-Length: 0x10', 'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: chunked',
      'Content-Type: application/json; charset=utf-16', 'Content-Type: application/json, text/html', 'X-GitHub-Event: ../../etc', 'X-GitHub-Delivery: ', 'X-Hub-Signature-256: sha256=zz', 'Expect: 100-continue',
      'Connection: upgrade', 'Upgrade: websocket', `X-Long: ${'z'.repeat(5000)}`, 'X-Nul: a\0b', ' folded: continuation'];
    const mutate = (request) => {
      let bytes = request;
      for (let n = 1 + random.int(3); n > 0; n--) {
        const at = random.int(bytes.length + 1);
        switch (random.int(7)) {
          case 0: bytes = Buffer.concat([bytes.subarray(0, at), random.bytes(1 + random.int(16)), bytes.subarray(at)]); break;
          case 1: bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1 + random.int(32)))]); break;
          case 2: bytes = Buffer.from(bytes); if (bytes.length) bytes[Math.min(at, bytes.length - 1)] = random.int(256); break;
          case 3: bytes = bytes.subarray(0, at); break;
          case 4: {
            const text = bytes.toString('latin1');
            bytes = Buffer.from(text.replace(/^(\S+) \S+/, `$1 ${random.pick(TARGETS)}`), 'latin1');
            break;
          }
          case 5: {
            const text = bytes.toString('latin1');
            const end = text.indexOf(CRLF);
            bytes = end < 0 ? bytes : Buffer.from(`${text.slice(0, end + 2)}${random.pick(HEADERS)}${CRLF}${text.slice(end + 2)}`, 'latin1');
            break;
          }
          default: {
            const lines = bytes.toString('latin1').split(CRLF);
            const line = random.int(lines.length);
            lines.splice(line, 0, lines[line]);
            bytes = Buffer.from(lines.join(CRLF), 'latin1');
          }
        }
      }
      return bytes;
    };
    const mutants = Array.from({ length: MUTANTS }, () => mutate(random.pick(seeds)));

    let during = null;
    const answers = await pool(mutants, CONCURRENCY, async (bytes, i) => {
      // Halfway through, a real delivery: it must be taken while the storm goes on.
      if (i === MUTANTS / 2) during = commandDelivered('during the storm', 7).then((comment) => ({ comment }), (error) => ({ error }));
      return exchange(port, [bytes], { quietMs: 500 });
    });
    alive();
    const { comment: duringComment, error } = await during;
    if (error) throw error;
    const failed = answers.map((a, i) => ({ i, ...a })).filter((a) => a.statuses.some((s) => s >= 500));
    assert.deepEqual(failed.map((a) => ({ request: mutants[a.i].toString('latin1').slice(0, 300), answer: a.text.slice(0, 300) })), [], `seed ${SEED}: answered 5xx`);
    const answered = answers.filter((a) => a.status !== null).length;
    const tally = {};
    for (const a of answers) tally[a.status ?? a.how] = (tally[a.status ?? a.how] || 0) + 1;
    t.diagnostic(`seed ${SEED}: ${JSON.stringify(tally)}`);
    assert.ok(answered >= MUTANTS / 2, `only ${answered} of ${MUTANTS} mutants got an answer`);

    const health = await fetch(`${botProcess.url}/healthz`);
    assert.equal(health.status, 200);
    const afterComment = await commandDelivered('after the storm', 8);
    await waitFor('both commands to be dispatched', () => dispatchedFor(duringComment) && dispatchedFor(afterComment), { timeoutMs: 30_000 });
    alive();
    // Nothing went wrong inside: every request was answered by a rule, none by the guard.
    assert.doesNotMatch(botProcess.stderr(), / error /, `seed ${SEED}`);
  });
});
