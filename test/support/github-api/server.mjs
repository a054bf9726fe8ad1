// The double itself: an HTTP server on 127.0.0.1 that routes and validates every request with
// openapi-backend against GitHub's description, answers from its state, checks every response
// against the same description, and records every call.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import Ajv from 'ajv';
import { ArtifactStore } from './artifacts.mjs';
import { Authority, AuthError, describeIdentity } from './auth.mjs';
import { loadDescription } from './description.mjs';
import { basicError } from './objects.mjs';
import { HttpError } from './operations/common.mjs';
import { operations as actionsOperations } from './operations/actions.mjs';
import { operations as appsOperations } from './operations/apps.mjs';
import { operations as gitOperations } from './operations/git.mjs';
import { operations as issuesOperations } from './operations/issues.mjs';
import { operations as reposOperations } from './operations/repos.mjs';
import { operations as commitsOperations } from './operations/commits.mjs';
import { GitHubState } from './state.mjs';

export const OPERATIONS = Object.freeze({ ...issuesOperations, ...reposOperations, ...commitsOperations, ...actionsOperations, ...appsOperations, ...gitOperations });

/** Outcomes that mean a test went wrong somewhere: the caller or the double broke the description. */
export const PROBLEM_OUTCOMES = Object.freeze(['invalid-request', 'invalid-response', 'not-implemented', 'not-found', 'internal-error']);

const RATE_LIMIT = 5000;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GitHub's answer to too many requests in a short time: 403, a message naming the secondary
 * rate limit, and retry-after. Pass it to failNext.
 */
export function secondaryRateLimit({ retryAfterSeconds = 1 } = {}) {
  return {
    status: 403,
    headers: { 'retry-after': String(retryAfterSeconds), 'x-ratelimit-remaining': '4999' },
    body: {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
      documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      status: '403',
    },
  };
}

class Reply extends Error {
  constructor(response, outcome, problems = []) {
    super(outcome);
    this.response = response;
    this.outcome = outcome;
    this.problems = problems;
  }
}

function problemText(error) {
  const where = error.instancePath || '(root)';
  const value = error.params?.allowedValues ? ` (${error.params.allowedValues.join(', ')})` : '';
  return `${where} ${error.message}${value}`;
}

/** GitHub's wording for a request that breaks the description, naming each field. */
function requestValidationReply(errors) {
  const bodyErrors = errors.filter((error) => error.instancePath.startsWith('/requestBody') || error.schemaPath.startsWith('#/properties/requestBody'));
  const pathErrors = errors.filter((error) => error.instancePath.startsWith('/path/'));
  const lines = errors.map((error) => {
    if (error.keyword === 'required') return `"${error.params.missingProperty}" wasn't supplied.`;
    const field = error.instancePath.replace(/^\/(requestBody|query|path|headers)\/?/, '').replace(/\//g, '.') || 'body';
    const prefix = error.instancePath.startsWith('/requestBody') ? `properties/${field}` : field;
    const allowed = error.params?.allowedValues ? ` (${error.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})` : '';
    const value = error.data === undefined ? '' : `${JSON.stringify(error.data)} `;
    return `For '${prefix}', ${value}${error.message}${allowed}.`;
  });
  const message = `Invalid request.\n\n${[...new Set(lines)].join('\n')}`;
  // A path parameter of the wrong type names no resource: GitHub answers 404 there.
  if (pathErrors.length && !bodyErrors.length) return { status: 404, body: basicError('Not Found', 404) };
  const status = bodyErrors.length ? 422 : 400;
  return { status, body: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) } };
}

function compileErrorValidator(schemas) {
  const ajv = new Ajv({ allErrors: true, strict: false });
  return { basic: ajv.compile(schemas.basic), validation: ajv.compile(schemas.validation) };
}

let sharedBackend;

/**
 * openapi-backend's handlers are registered once per process; each request carries its double
 * (its state, faults, log) as the handler argument, so many doubles can share one backend.
 */
async function backend() {
  if (sharedBackend) return sharedBackend;
  sharedBackend = (async () => {
    const description = await loadDescription(Object.keys(OPERATIONS));
    const { api, operations } = description;
    const routes = [...operations.entries()]
      .filter(([, entry]) => !entry.implemented)
      .map(([operationId, entry]) => ({
        operationId,
        method: entry.method,
        pattern: new RegExp(`^${entry.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
        literalLength: entry.path.replace(/\{[^}]+\}/g, '').length,
      }))
      .sort((a, b) => b.literalLength - a.literalLength);
    const errorValidators = compileErrorValidator(description.errorSchemas);

    const unrouted = async (context, call) => {
      call.identity = await call.double.authority.identify(call.headers.authorization).catch(() => null);
      const method = call.method.toLowerCase();
      const described = routes.find((route) => route.method === method && route.pattern.test(call.path));
      if (described) {
        call.operationId = described.operationId;
        throw new Reply(
          { status: 501, body: basicError(`${described.operationId} is in GitHub's description but the double does not implement it`, 501) },
          'not-implemented',
        );
      }
      throw new Reply({ status: 404, body: basicError('Not Found', 404) }, 'not-found', [`${call.method} ${call.path} is not in GitHub's description`]);
    };

    api.register({
      notFound: unrouted,
      methodNotAllowed: unrouted,
      notImplemented: (context, call) => {
        throw new Reply({ status: 501, body: basicError(`${context.operation.operationId} has no handler`, 501) }, 'not-implemented');
      },
      postRoutingHandler: async (context, call) => {
        if (!context.operation) return;
        call.operationId = context.operation.operationId;
        try {
          call.identity = await call.double.authority.identify(call.headers.authorization);
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
          throw new Reply({ status: error.status, body: basicError(error.message, error.status) }, 'unauthorized');
        }
        const fault = call.double.takeFault(call.operationId);
        if (fault) throw new Reply(fault, 'fault');
        await call.double.waitIfHeld(call.operationId);
      },
      validationFail: (context) => {
        throw new Reply(requestValidationReply(context.validation.errors), 'invalid-request', context.validation.errors.map(problemText));
      },
    });
    for (const [operationId, handler] of Object.entries(OPERATIONS)) {
      api.register(operationId, (context, call) =>
        handler({
          ...call.double.context(),
          url: call.url,
          identity: call.identity,
          params: context.request.params,
          query: context.request.query,
          body: context.request.requestBody ?? {},
        }),
      );
    }

    /** Problems with a response: the description's verdict, or the error shape for statuses it leaves out. */
    const responseProblems = (operationId, response) => {
      const operation = api.router.getOperation(operationId);
      const described = operation.responses[String(response.status)] || operation.responses[`${String(response.status)[0]}XX`];
      if (!described) {
        if (response.status < 400) return [`status ${response.status} is not in the description of ${operationId}`];
        const validate = response.status === 422 ? errorValidators.validation : errorValidators.basic;
        return validate(response.body) ? [] : validate.errors.map(problemText);
      }
      const problems = [];
      const hasContent = described.content && Object.keys(described.content).length;
      if (hasContent) {
        const result = api.validator.validateResponse(response.body, operation, response.status);
        if (result.errors) problems.push(...result.errors.map(problemText));
      } else if (response.body !== undefined) {
        problems.push(`status ${response.status} of ${operationId} has no body in the description`);
      }
      const headers = api.validator.validateResponseHeaders(response.headers || {}, operation, { statusCode: response.status, setMatchType: 'any' });
      if (headers.errors) problems.push(...headers.errors.map((error) => `header ${problemText(error)}`));
      return problems;
    };

    /** True when the description gives this status of the operation no body (GitHub's 404s sometimes). */
    const bodyless = (operationId, status) => {
      const described = operationId && api.router.getOperation(operationId)?.responses[String(status)];
      return Boolean(described && !(described.content && Object.keys(described.content).length));
    };

    return { api, responseProblems, bodyless, timings: description.timings, version: description.version };
  })();
  return sharedBackend;
}

/** A request's body, whole. */
export function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export class GitHubDouble {
  constructor(options, shared) {
    this.shared = shared;
    this.state = new GitHubState(options);
    this.authority = new Authority(this.state, options);
    this.artifacts = new ArtifactStore(this.state, options.artifactsDir, { downloadLifetimeMs: options.artifactUrlLifetimeMs });
    this.calls = [];
    this.faults = new Map();
    this.holds = new Map();
    this.heldNow = new Set();
    this.htmlUrl = options.htmlUrl || 'https://github.com';
    this.rateLimitReset = Math.floor(Date.now() / 1000) + 3600;
    this.rateLimitUsed = 0;
    this.server = http.createServer((request, response) => {
      this.handle(request, response).catch((error) => {
        // Reaching here is a defect of the double; answer so the client does not hang.
        response.writeHead(500, { 'content-type': JSON_TYPE });
        response.end(JSON.stringify(basicError(`GitHub double failed: ${error.stack}`, 500)));
      });
    });
  }

  async listen(port = 0) {
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  context() {
    return {
      state: this.state,
      authority: this.authority,
      artifacts: this.artifacts,
      urls: { api: this.url, html: this.htmlUrl },
      rateLimit: () => this.rateLimit(),
    };
  }

  rateLimit() {
    return { limit: RATE_LIMIT, used: this.rateLimitUsed, remaining: RATE_LIMIT - this.rateLimitUsed, reset: this.rateLimitReset };
  }

  /** The rate-limit headers GitHub sends on every answer, under the answer's own headers. */
  responseHeaders(headers = {}) {
    const rate = this.rateLimit();
    return {
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      'x-ratelimit-used': String(rate.used),
      'x-ratelimit-reset': String(rate.reset),
      'x-ratelimit-resource': 'core',
      ...headers,
    };
  }

  /**
   * Answers the next `times` calls of operationId with `status` (and headers, body), then
   * lets calls through again. Faults hit after authentication, before validation.
   */
  failNext(operationId, { status, times = 1, headers = {}, body } = {}) {
    if (!Number.isInteger(status) || status < 400) throw new Error(`failNext(${operationId}): status ${status} is not valid; expected an HTTP error status such as 502`);
    if (!Number.isInteger(times) || times < 1) throw new Error(`failNext(${operationId}): times ${times} is not valid; expected a positive integer`);
    const queue = this.faults.get(operationId) || [];
    for (let i = 0; i < times; i += 1) queue.push({ status, headers, body: body ?? basicError(http.STATUS_CODES[status] || 'Error', status) });
    this.faults.set(operationId, queue);
  }

  /**
   * Holds the next call of operationId after it is authenticated, before it is answered or has
   * any effect, until release() (or close()). `arrived` resolves when the call is being held.
   * Lets a test act between a client's request and GitHub's answer: push a commit, kill the
   * client, then release the call and see what the client does about it.
   */
  holdNext(operationId) {
    let arrive;
    let release;
    const hold = {
      arrived: new Promise((resolve) => { arrive = resolve; }),
      released: new Promise((resolve) => { release = resolve; }),
    };
    hold.arrive = arrive;
    hold.release = () => release();
    const queue = this.holds.get(operationId) || [];
    queue.push(hold);
    this.holds.set(operationId, queue);
    return { arrived: hold.arrived, release: hold.release };
  }

  async waitIfHeld(operationId) {
    const hold = this.holds.get(operationId)?.shift();
    if (!hold) return;
    this.heldNow.add(hold);
    hold.arrive();
    await hold.released;
    this.heldNow.delete(hold);
  }

  takeFault(operationId) {
    const queue = this.faults.get(operationId);
    return queue?.length ? queue.shift() : undefined;
  }

  callsTo(operationId) {
    return this.calls.filter((call) => call.operationId === operationId);
  }

  /** Calls that broke the description (either side), were not implemented, or hit no route. */
  problems() {
    return this.calls.filter((call) => PROBLEM_OUTCOMES.includes(call.outcome));
  }

  invalidCalls() {
    return this.calls.filter((call) => call.outcome === 'invalid-request' || call.outcome === 'invalid-response');
  }

  unimplementedCalls() {
    return this.calls.filter((call) => call.outcome === 'not-implemented');
  }

  writeCallLog(file) {
    writeFileSync(file, `${JSON.stringify(this.calls, null, 2)}\n`);
  }

  async close() {
    for (const hold of this.heldNow) hold.release();
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async handle(request, response) {
    const started = performance.now();
    const url = new URL(request.url, this.url);
    const raw = await readBody(request);
    if (url.pathname.startsWith('/_double/')) return this.handleInternal(request, response, url);

    const call = {
      double: this,
      method: request.method,
      path: url.pathname,
      url: url.href,
      headers: request.headers,
      operationId: null,
      identity: null,
    };
    const record = {
      seq: this.calls.length + 1,
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      operationId: null,
      requestBody: undefined,
      status: 0,
      responseBody: undefined,
      responseHeaders: {},
      identity: describeIdentity(null),
      outcome: 'ok',
      problems: [],
      durationMs: 0,
    };
    this.calls.push(record);

    let reply;
    try {
      let body;
      if (raw.length) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          record.requestBody = raw.toString('utf8');
          throw new Reply({ status: 400, body: basicError('Problems parsing JSON', 400) }, 'invalid-request', ['request body is not JSON']);
        }
      }
      record.requestBody = body;
      const { api } = this.shared;
      const handled = await api.handleRequest({ method: request.method, path: url.pathname + url.search, headers: request.headers, body }, call);
      // GET /rate_limit does not count against the limit on GitHub either.
      if (call.identity && call.operationId !== 'rate-limit/get') this.rateLimitUsed += 1;
      const answer = { ...handled, headers: this.responseHeaders(handled.headers) };
      reply = { response: answer, outcome: answer.status >= 400 ? 'client-error' : 'ok', problems: [] };
      const problems = this.shared.responseProblems(call.operationId, answer);
      if (problems.length) {
        reply = {
          response: { status: 500, body: basicError(`GitHub double: its answer to ${call.operationId} breaks GitHub's description: ${problems.join('; ')}`, 500) },
          outcome: 'invalid-response',
          problems,
        };
        record.invalidResponse = { status: answer.status, body: answer.body, headers: answer.headers };
      }
    } catch (error) {
      if (error instanceof Reply) {
        reply = error;
      } else if (error instanceof HttpError) {
        if (call.identity) this.rateLimitUsed += 1;
        const body = this.shared.bodyless(call.operationId, error.status) ? undefined : error.body;
        const answer = { status: error.status, headers: this.responseHeaders(error.headers), body };
        const problems = this.shared.responseProblems(call.operationId, answer);
        reply = problems.length
          ? { response: { status: 500, body: basicError(`GitHub double: its error for ${call.operationId} breaks GitHub's description: ${problems.join('; ')}`, 500) }, outcome: 'invalid-response', problems }
          : { response: answer, outcome: 'client-error', problems: [] };
      } else {
        reply = { response: { status: 500, body: basicError(`GitHub double failed: ${error.stack}`, 500) }, outcome: 'internal-error', problems: [String(error.stack)] };
      }
    }

    const { status, body } = reply.response;
    const responseHeaders = this.responseHeaders(reply.response.headers);
    if (body !== undefined) responseHeaders['content-type'] = JSON_TYPE;
    Object.assign(record, {
      operationId: call.operationId,
      identity: describeIdentity(call.identity),
      status,
      responseBody: body,
      responseHeaders,
      outcome: reply.outcome,
      problems: reply.problems,
      durationMs: Math.round(performance.now() - started),
    });
    response.writeHead(status, responseHeaders);
    response.end(body === undefined ? undefined : JSON.stringify(body));
  }

  /** The double's own routes, outside GitHub's API: artifact blobs and the call log. */
  handleInternal(request, response, url) {
    const blob = /^\/_double\/artifact-blobs\/([0-9a-f]+)\/[^/]+$/.exec(url.pathname);
    if (request.method === 'GET' && blob) {
      const download = this.artifacts.resolveDownload(blob[1]);
      this.calls.push({
        seq: this.calls.length + 1,
        method: 'GET',
        path: url.pathname,
        query: {},
        operationId: null,
        status: download.error ? 403 : 200,
        identity: describeIdentity(null),
        outcome: download.error ? 'client-error' : 'ok',
        problems: download.error ? [download.error] : [],
      });
      if (download.error) {
        // What Azure blob storage says for an expired or forged signature.
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end(`<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>${download.error}</Message></Error>`);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/zip', 'content-length': download.body.length });
      response.end(download.body);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/_double/calls') {
      response.writeHead(200, { 'content-type': JSON_TYPE });
      response.end(JSON.stringify(this.calls));
      return;
    }
    response.writeHead(404, { 'content-type': JSON_TYPE });
    response.end(JSON.stringify(basicError('Not Found', 404)));
  }
}

/**
 * Starts a double on 127.0.0.1 (an ephemeral port unless options.port is given).
 * Options: repositories, users, tokens, githubToken, app, permissions, teams, workflows,
 * pullRequests, refs, dispatchStartsRun, artifactsDir, artifactUrlLifetimeMs, htmlUrl; see README.md
 * beside this file.
 */
export async function startGitHubDouble(options = {}) {
  const started = performance.now();
  const shared = await backend();
  const double = new GitHubDouble(options, shared);
  await double.listen(options.port ?? 0);
  double.startupMs = performance.now() - started;
  double.descriptionTimings = shared.timings;
  double.descriptionVersion = shared.version;
  return double;
}
