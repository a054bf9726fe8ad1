'use strict';
// The edge of the bot's HTTP server (bot/src/app/http-server.js): request targets parsed once,
// every one an answer and none an exception; host names as the Host header carries them; a
// route that throws or rejects answered 500 and logged, the server still serving.
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { createHttpServer, requestTarget, hostnameOf, HttpRefusal } = require('../../../bot/src/app/http-server');

const refusal = (status, message) => (err) => {
  assert.ok(err instanceof HttpRefusal, String(err));
  assert.equal(err.status, status);
  assert.equal(err.message, message);
  return true;
};

describe('requestTarget', () => {
  test('a path, or an http(s) URL whose authority stands for Host', () => {
    const target = (raw, host) => {
      const { path, query, host: name } = requestTarget(raw, host);
      return [path, query.toString(), name];
    };
    assert.deepEqual(target('/healthz', '127.0.0.1:3000'), ['/healthz', '', '127.0.0.1']);
    assert.deepEqual(target('/dashboard/runs?limit=5&repo=a%2Fb', 'Perf.Example'), ['/dashboard/runs', 'limit=5&repo=a%2Fb', 'perf.example']);
    // What `new URL(target, base)` took for an authority is a path here.
    assert.deepEqual(target('///', 'localhost'), ['///', '', 'localhost']);
    assert.deepEqual(target('//[/api/github/webhooks', 'localhost'), ['//[/api/github/webhooks', '', 'localhost']);
    assert.deepEqual(target('//evil.example/dashboard', 'localhost'), ['//evil.example/dashboard', '', 'localhost']);
    assert.deepEqual(target('/healthz?%zz', undefined), ['/healthz', '%25zz=', null]);
    assert.deepEqual(target('http://Perf.Example:8080/healthz?x=1', 'other'), ['/healthz', 'x=1', 'perf.example']);
    assert.deepEqual(target('HTTPS://[::1]/dashboard', undefined), ['/dashboard', '', '::1']);
  });

  test('anything else is a 400 naming the target', () => {
    const expected = 'expected a path such as /healthz';
    assert.throws(() => requestTarget('http://[', 'x'), refusal(400, `the request target "http://[" is not a URL; ${expected}`));
    assert.throws(() => requestTarget('http://[::1/healthz', 'x'), refusal(400, `the request target "http://[::1/healthz" is not a URL; ${expected}`));
    assert.throws(() => requestTarget('*', 'x'), refusal(400, `the request target "*" is not a path; ${expected}`));
    assert.throws(() => requestTarget('ftp://x/healthz', 'x'), refusal(400, `the request target "ftp://x/healthz" is not a path; ${expected}`));
    assert.throws(() => requestTarget('example.com:443', 'x'), refusal(400, `the request target "example.com:443" is not a path; ${expected}`));
    assert.throws(() => requestTarget('', 'x'), refusal(400, `the request target is empty; ${expected}`));
    assert.throws(() => requestTarget(`x${'y'.repeat(200)}`, 'x'), refusal(400, `the request target "x${'y'.repeat(79)}…" is not a path; ${expected}`));
  });
});

test('hostnameOf: the host name of a Host header, or null', () => {
  const cases = {
    localhost: 'localhost', 'LocalHost:3000': 'localhost', 'perf.example.': 'perf.example', '127.0.0.1:1': '127.0.0.1',
    '[::1]': '::1', '[FD00::7]:3000': 'fd00::7', '': null, '[': null, '::1': null, 'a b': null, 'localhost:': null,
    'localhost:123456': null, 'user@host': null, 'host/path': null,
  };
  for (const [header, name] of Object.entries(cases)) assert.equal(hostnameOf(header), name, header);
  assert.equal(hostnameOf(undefined), null);
});

// Raw HTTP over loopback: the status line and the body of the answer.
function ask(port, text) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => { answer += chunk; });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ status: Number((/^HTTP\/1\.1 (\d{3})/.exec(answer) || [])[1]) || null, body: answer.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
  });
}

test('a route that throws, rejects or fails mid-answer: 500 or a closed connection, logged; the server goes on', async () => {
  const errors = [];
  const log = { error: (line) => errors.push(line), warn: () => {}, info: () => {} };
  const route = async (request, response, { path }) => {
    if (path === '/throws') throw new TypeError('a bug');
    if (path === '/refuses') throw new HttpRefusal(409, 'not now', { 'retry-after': '5' });
    if (path === '/mid-answer') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('half');
      throw new Error('broke after the headers');
    }
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': 4 });
    response.end('fine');
  };
  const sync = (request, response, target) => {
    if (target.path === '/sync') throw new RangeError('thrown before any await');
    return route(request, response, target);
  };
  const server = createHttpServer({ route: sync, limits: { maxConnections: 8, headersTimeoutMs: 2000, requestTimeoutMs: 2000 }, log });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const get = (path) => ask(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.deepEqual(await get('/throws'), { status: 500, body: 'internal error; the bot log has it\n' });
    assert.deepEqual(await get('/sync'), { status: 500, body: 'internal error; the bot log has it\n' });
    assert.deepEqual(await get('/refuses'), { status: 409, body: 'not now\n' });
    assert.deepEqual(await get('http://['), { status: 400, body: 'the request target "http://[" is not a URL; expected a path such as /healthz\n' });
    // Two Host headers: which one a proxy in front used is unknown, so neither is served.
    assert.deepEqual(await ask(port, 'GET /fine HTTP/1.1\r\nHost: x\r\nhost: evil.example\r\nConnection: close\r\n\r\n'),
      { status: 400, body: 'the request has 2 Host headers; expected exactly one\n' });
    const half = await get('/mid-answer');
    assert.equal(half.status, 200);
    assert.doesNotMatch(half.body, /0\r\n\r\n$/, 'the chunked answer was cut, not ended');
    assert.deepEqual(await get('/fine'), { status: 200, body: 'fine' });
    assert.equal(errors.length, 3);
    assert.match(errors[0], /^http GET "\/throws": TypeError: a bug\n {4}at /);
    assert.match(errors[1], /^http GET "\/sync": RangeError: thrown before any await/);
    assert.match(errors[2], /^http GET "\/mid-answer": Error: broke after the headers/);
  } finally {
    server.close();
  }
});
