// A real HTTP proxy in front of the GitHub double that fails on purpose, as GitHub's edge and
// the network between do: it answers 502, resets the connection or never answers, either
// after forwarding the call (GitHub carried it out; the answer is lost) or before (GitHub
// never saw it). Rules pick calls by method and path; a seeded random mode fails a share of
// all calls (the soak benchmark); `down` fails every call until `up`.
import http from 'node:http';
import { createRequire } from 'node:module';
import { readBody } from './server.mjs';

const { seededUniform } = createRequire(import.meta.url)('../seeded-draws.js');

export const FAULTS = Object.freeze(['502-after', 'reset-after', 'hang-after', '502-before', 'reset-before', 'hang-before']);

export class ChaosProxy {
  constructor(target) {
    this.target = new URL(target);
    this.rules = [];
    this.random = null;
    this.outage = null;
    this.sockets = new Set();
    // Every call seen: {method, path, fault | null}.
    this.log = [];
    this.server = http.createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  /** Fails the next `times` calls of `method` whose path matches `path` (a RegExp) with `fault`. */
  failNext({ method, path, fault, times = 1 }) {
    if (!FAULTS.includes(fault)) throw new Error(`chaos proxy: fault ${fault} is not one of ${FAULTS.join(', ')}`);
    this.rules.push({ method, path, fault, left: times });
  }

  /** Fails a share `rate` of all calls, each with one of `faults`, drawn from `seed`. */
  failRandomly({ rate, seed = 1, faults = FAULTS, only = () => true }) {
    const draw = seededUniform(seed);
    this.random = { rate, draw, faults, only };
  }

  /** Every call fails with `fault` (before forwarding: GitHub is not there) until up(). */
  down(fault = '502-before') {
    this.outage = fault;
  }

  up() {
    this.outage = null;
  }

  calls(method, path) {
    return this.log.filter((c) => c.method === method && path.test(c.path));
  }

  faultFor(method, path) {
    if (this.outage) return this.outage;
    const rule = this.rules.find((r) => r.left > 0 && r.method === method && r.path.test(path));
    if (rule) {
      rule.left -= 1;
      return rule.fault;
    }
    if (this.random && this.random.only(method, path) && this.random.draw() < this.random.rate) {
      return this.random.faults[Math.floor(this.random.draw() * this.random.faults.length)];
    }
    return null;
  }

  forward(request, body) {
    return new Promise((resolve, reject) => {
      const headers = { ...request.headers, host: this.target.host };
      const upstream = http.request({
        host: this.target.hostname, port: this.target.port, method: request.method, path: request.url, headers,
      }, (answer) => {
        readBody(answer).then((data) => resolve({ status: answer.statusCode, headers: answer.headers, body: data }), reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  async handle(request, response) {
    const body = await readBody(request);
    const path = new URL(request.url, this.url).pathname;
    const fault = this.faultFor(request.method, path);
    this.log.push({ method: request.method, path, fault, at: Date.now() });
    const [kind, when] = fault ? fault.split('-') : [null, null];
    const answer = when === 'before' ? null : await this.forward(request, body);
    if (kind === '502') {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    } else if (kind === 'reset') {
      request.socket.resetAndDestroy();
    } else if (kind === 'hang') {
      // Never answered; the socket is closed with the proxy.
    } else {
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      headers['content-length'] = String(answer.body.length);
      response.writeHead(answer.status, headers);
      response.end(answer.body);
    }
  }

  async close() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A chaos proxy on 127.0.0.1 in front of `target` (the double's url). */
export function startChaosProxy(target) {
  return new ChaosProxy(target).listen();
}
