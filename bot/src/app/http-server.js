'use strict';
// The edge of the bot's HTTP server, where every request from the network arrives first.
//
// - The request target is parsed here, once: a path ("/healthz?x") or an http(s) URL (absolute
//   form); anything else is a 400, as are two Host headers. Routes get {path, query, host},
//   never request.url.
// - A route's refusal (HttpRefusal) is answered with its status and one plain-text line.
// - Nothing a client sends ends the process: whatever else a route throws, or rejects with, is
//   logged and answered 500 (or the connection closed, if the answer had begun).
// - Limits bound what one client can hold: connections, the time to send headers and the whole
//   request, the header size (Node's 16 KiB default). A request answered without its body read
//   closes the connection rather than draining a body nobody wants.
const http = require('node:http');

/** An answer to a request that cannot be served as sent: a status and one line saying why. */
class HttpRefusal extends Error {
  constructor(status, message, headers = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

// "host", "host:port", "[v6]", "[v6]:port" → the host name in lower case without port or
// brackets; null for anything else.
function hostnameOf(authority) {
  if (typeof authority !== 'string') return null;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._~%!$&'()*+,;=-]+))(?::(\d{1,5}))?$/.exec(authority);
  if (!m) return null;
  return (m[1] || m[2]).toLowerCase().replace(/\.$/, '');
}

/**
 * The request target (RFC 9112 §3.2): origin form "/path?query" or absolute form
 * "http://host/path?query". `host` is the Host header, or the absolute form's authority, which
 * replaces it.
 * @returns {path, query: URLSearchParams, host: lower-case host name or null}
 * @throws HttpRefusal 400 on any other target
 */
function requestTarget(target, hostHeader) {
  const expected = 'expected a path such as /healthz';
  if (typeof target !== 'string' || !target) throw new HttpRefusal(400, `the request target is empty; ${expected}`);
  const shown = JSON.stringify(target.length > 80 ? `${target.slice(0, 80)}…` : target);
  let url;
  let host;
  if (target.startsWith('/')) {
    // Parsed as a path of a fixed origin: "//x" and "///" stay paths, never become authorities.
    url = URL.parse(`http://origin${target}`);
    host = hostnameOf(hostHeader);
  } else if (/^https?:\/\//i.test(target)) {
    url = URL.parse(target);
    host = url ? hostnameOf(url.host) : null;
  } else {
    throw new HttpRefusal(400, `the request target ${shown} is not a path; ${expected}`);
  }
  if (!url) throw new HttpRefusal(400, `the request target ${shown} is not a URL; ${expected}`);
  return { path: url.pathname, query: url.searchParams, host };
}

/**
 * The request's one Host header. Node keeps the first of several and drops the rest, but a
 * proxy in front may have used another: two Host headers are a 400 (RFC 9112 §3.2), never a
 * guess at which host was meant.
 * @throws HttpRefusal 400 when there is more than one
 */
function hostHeaderOf(request) {
  const raw = request.rawHeaders || [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (String(raw[i]).toLowerCase() === 'host') count += 1;
  if (count > 1) throw new HttpRefusal(400, `the request has ${count} Host headers; expected exactly one`);
  return request.headers.host;
}

// A body declared and not (yet) read: answering leaves it unread, so the connection closes.
function hasUnreadBody(request) {
  if (request.complete) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Answers with one line of plain text (HEAD: the headers only). */
function sendText(request, response, status, line, headers = {}) {
  const body = `${line}\n`;
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    ...(hasUnreadBody(request) ? { connection: 'close' } : {}),
    ...headers,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Answers with JSON. */
function sendJson(request, response, status, value) {
  const body = `${JSON.stringify(value)}\n`;
  response.writeHead(status, {
    'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(hasUnreadBody(request) ? { connection: 'close' } : {}),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * The request listener around `route(request, response, target)`: the target parsed, refusals
 * answered, every other error answered 500 and logged; it never throws.
 */
function guardedListener(route, log) {
  const answer = (request, response, err) => {
    if (err instanceof HttpRefusal) {
      if (!response.headersSent) sendText(request, response, err.status, err.message, err.headers);
      else response.destroy();
      return;
    }
    log.error(`http ${request.method} ${JSON.stringify(String(request.url).slice(0, 200))}: ${err && err.stack ? err.stack : String(err)}`);
    if (response.headersSent) response.destroy();
    else sendText(request, response, 500, 'internal error; the bot log has it', { connection: 'close' });
  };
  const failed = (request, response, err) => {
    try {
      answer(request, response, err);
    } catch (again) {
      // The answer itself failed (a header Node refuses, say): the connection goes instead.
      log.error(`http: answering failed: ${again && again.stack ? again.stack : String(again)}`);
      response.destroy();
    }
  };
  return (request, response) => {
    try {
      const target = requestTarget(request.url, hostHeaderOf(request));
      Promise.resolve(route(request, response, target)).catch((err) => failed(request, response, err));
    } catch (err) {
      failed(request, response, err);
    }
  };
}

/**
 * @param route   async (request, response, {path, query, host}) => void
 * @param limits  {maxConnections, headersTimeoutMs, requestTimeoutMs}
 * @param log     {info, warn, error}
 * @returns an http.Server, not yet listening
 */
function createHttpServer({ route, limits, log }) {
  const server = http.createServer({
    // How often Node looks for requests past their timeouts: often enough that a slow client
    // is cut within a second of its limit.
    connectionsCheckingInterval: 1000,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
  }, guardedListener(route, log));
  server.maxConnections = limits.maxConnections;
  // Connections past the cap are closed as they come; said once a minute at most, so that a
  // flood cannot flood the log as well.
  let dropped = 0;
  let saidAt = 0;
  server.on('drop', () => {
    dropped += 1;
    if (Date.now() - saidAt < 60_000) return;
    log.warn(`http: ${dropped} connection(s) closed on arrival: ${limits.maxConnections} are open (PERFGATE_MAX_CONNECTIONS)`);
    dropped = 0;
    saidAt = Date.now();
  });
  return server;
}

module.exports = { createHttpServer, guardedListener, requestTarget, hostnameOf, sendText, sendJson, HttpRefusal };
