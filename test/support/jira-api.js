'use strict';
// A local double of the part of Jira's REST API (version 2) that perfgate's Jira tracker uses:
// create an issue, comment on it, list its transitions, transition it, and find an issue by
// project and label (the JQL search, Cloud's /search/jql; `searchPath: '/rest/api/2/search'`
// serves Data Center's instead, and /search/jql then answers 404 as Data Center does). Atlassian's OpenAPI
// description of the Jira REST API is not shipped in any npm or PyPI package reachable here,
// so requests are checked against the shapes the client library (jira.js, version2 models
// IssueUpdateDetails, Comment, IssueTransition) declares and Jira enforces, and answers have
// the shapes it declares for CreatedIssue, Comment and Transitions. Every call is kept;
// problems() lists those that broke a rule.
const http = require('node:http');

const TRANSITIONS = [
  { id: '11', name: 'To Do', to: { id: '10000', name: 'To Do', statusCategory: { id: 2, key: 'new', name: 'To Do' } } },
  { id: '21', name: 'In Progress', to: { id: '3', name: 'In Progress', statusCategory: { id: 4, key: 'indeterminate', name: 'In Progress' } } },
  { id: '31', name: 'Done', to: { id: '10001', name: 'Done', statusCategory: { id: 3, key: 'done', name: 'Done' } } },
];

function readJson(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve(undefined);
      try { resolve(JSON.parse(text)); } catch (err) { reject(err); }
      return undefined;
    });
    request.on('error', reject);
  });
}

// What Jira answers for a bad request: 400 {errorMessages, errors: {field: message}}.
const invalid = (errors) => ({ status: 400, body: { errorMessages: [], errors } });

function checkCreate(body, project, issueTypes) {
  const errors = {};
  const fields = body && body.fields;
  if (!fields || typeof fields !== 'object') return invalid({ fields: 'fields is required' });
  if (!fields.project || fields.project.key !== project) errors.project = `project is required and must be ${project}`;
  if (typeof fields.summary !== 'string' || !fields.summary.trim()) errors.summary = 'You must specify a summary of the issue.';
  else if (fields.summary.length > 255) errors.summary = 'Summary must be less than 255 characters.';
  if (!fields.issuetype || !issueTypes.includes(fields.issuetype.name)) errors.issuetype = `valid issue type is required (${issueTypes.join(', ')})`;
  if (fields.description !== undefined && typeof fields.description !== 'string') errors.description = 'description must be a string in API version 2';
  if (fields.labels !== undefined && (!Array.isArray(fields.labels) || fields.labels.some((l) => typeof l !== 'string' || /\s/.test(l)))) {
    errors.labels = 'labels must be strings without spaces';
  }
  const unknown = Object.keys(fields).filter((k) => !['project', 'summary', 'issuetype', 'description', 'labels'].includes(k));
  for (const k of unknown) errors[k] = `Field '${k}' cannot be set. It is not on the appropriate screen, or unknown.`;
  return Object.keys(errors).length ? invalid(errors) : null;
}

/**
 * startJiraDouble({project, issueTypes, user, token}) -> {url, issues: Map(key -> issue), calls, problems(), close()}
 */
// The one JQL shape the tracker sends; Jira parses much more, the double refuses anything else.
const JQL = /^project = "([A-Z][A-Z0-9_]*)" AND labels = "([^"\s]+)" ORDER BY created ASC$/;

function search(query, issues) {
  const jql = query.get('jql') || '';
  const m = JQL.exec(jql);
  if (!m) return { status: 400, body: { errorMessages: [`The double answers only project = "KEY" AND labels = "label" ORDER BY created ASC, not: ${jql}`], errors: {} } };
  const max = Number(query.get('maxResults') || 50);
  if (!Number.isInteger(max) || max < 1) return invalid({ maxResults: 'maxResults must be a positive integer' });
  const found = [...issues.values()].filter((i) => i.fields.project.key === m[1] && (i.fields.labels || []).includes(m[2]));
  const fields = (query.get('fields') || '').split(',').filter(Boolean);
  return { status: 200, body: { issues: found.slice(0, max).map((i) => ({ id: i.id, key: i.key, fields: Object.fromEntries(fields.filter((f) => f in i.fields).map((f) => [f, i.fields[f]])) })), isLast: found.length <= max } };
}

async function startJiraDouble({ project = 'PERF', issueTypes = ['Bug', 'Task'], user = 'perfgate@example.com', token = 'jira-api-token-0123', searchPath = '/rest/api/2/search/jql' } = {}) {
  const issues = new Map();
  const calls = [];
  let nextId = 10000;
  let nextComment = 20000;
  const expectedAuth = `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
  let url = null;

  async function answer(request) {
    if (request.headers.authorization !== expectedAuth) return { status: 401, body: { errorMessages: ['You are not authenticated. Authentication required to perform this operation.'], errors: {} } };
    const parsed = new URL(request.url, 'http://x');
    const path = parsed.pathname;
    if (request.method === 'GET' && path === searchPath) return search(parsed.searchParams, issues);
    const body = ['POST', 'PUT'].includes(request.method) ? await readJson(request).catch(() => null) : undefined;
    if (body === null) return { status: 400, body: { errorMessages: ['Unexpected character: the body is not JSON'], errors: {} } };
    if (request.method === 'POST' && path === '/rest/api/2/issue') {
      const refused = checkCreate(body, project, issueTypes);
      if (refused) return refused;
      nextId += 1;
      const key = `${project}-${issues.size + 1}`;
      issues.set(key, { id: String(nextId), key, fields: body.fields, status: 'To Do', comments: [] });
      return { status: 201, body: { id: String(nextId), key, self: `${url}/rest/api/2/issue/${nextId}` } };
    }
    const m = /^\/rest\/api\/2\/issue\/([A-Z][A-Z0-9_]*-[0-9]+)\/(comment|transitions)$/.exec(path);
    const issue = m && issues.get(m[1]);
    if (!issue) return { status: 404, body: { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} } };
    if (m[2] === 'comment' && request.method === 'GET') {
      const comments = [...issue.comments].reverse(); // orderBy -created: the newest first
      return { status: 200, body: { startAt: 0, maxResults: comments.length, total: comments.length, comments } };
    }
    if (m[2] === 'comment' && request.method === 'POST') {
      if (!body || typeof body.body !== 'string' || !body.body.trim()) return invalid({ comment: 'Comment body can not be empty!' });
      nextComment += 1;
      const now = new Date().toISOString().replace('Z', '+0000');
      const comment = { id: String(nextComment), self: `${url}/rest/api/2/issue/${issue.id}/comment/${nextComment}`, body: body.body, created: now, updated: now };
      issue.comments.push(comment);
      return { status: 201, body: comment };
    }
    if (m[2] === 'transitions' && request.method === 'GET') return { status: 200, body: { expand: 'transitions', transitions: TRANSITIONS } };
    if (m[2] === 'transitions' && request.method === 'POST') {
      const chosen = body && body.transition && TRANSITIONS.find((t) => t.id === String(body.transition.id));
      if (!chosen) return { status: 400, body: { errorMessages: [`Transition id '${body && body.transition && body.transition.id}' is not valid for this issue.`], errors: {} } };
      issue.status = chosen.to.name;
      return { status: 204, body: null };
    }
    return { status: 405, body: { errorMessages: [`${request.method} is not supported here`], errors: {} } };
  }

  // faults: [{method, path: RegExp, after: 'reset' | 'hang' | <HTTP status>}], each taken by the
  // first call it matches: the call is carried out, then its answer is lost in that way.
  const faults = [];
  const server = http.createServer(async (request, response) => {
    const result = await answer(request).catch((err) => ({ status: 500, body: { errorMessages: [String(err)], errors: {} } }));
    const at = faults.findIndex((f) => f.method === request.method && f.path.test(new URL(request.url, 'http://x').pathname));
    if (at >= 0) {
      const [fault] = faults.splice(at, 1);
      calls.push({ method: request.method, path: request.url, status: result.status, body: result.body, lost: String(fault.after) });
      if (fault.after === 'reset') return request.socket.destroy();
      if (fault.after === 'hang') return undefined;
      response.writeHead(fault.after, { 'content-type': 'text/html' });
      return response.end('<html><body>Bad Gateway</body></html>');
    }
    calls.push({ method: request.method, path: request.url, status: result.status, body: result.body });
    response.writeHead(result.status, result.body === null ? {} : { 'content-type': 'application/json;charset=UTF-8' });
    response.end(result.body === null ? undefined : JSON.stringify(result.body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}`;
  return {
    url, user, token, project, issues, calls, faults,
    problems: () => calls.filter((c) => c.status >= 400),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

module.exports = { startJiraDouble };
