// What every operation handler shares: errors as GitHub words them, access checks and pagination.
import { basicError } from '../objects.mjs';

export class HttpError extends Error {
  constructor(status, message, { headers = {}, body } = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.body = body ?? basicError(message, status);
  }
}

export const notFound = () => new HttpError(404, 'Not Found');

export function ok(body, headers = {}) {
  return { status: 200, body, headers };
}

export function created(body, location) {
  return { status: 201, body, headers: location ? { location } : {} };
}

export function noContent() {
  return { status: 204 };
}

/** 422 in GitHub's form for a field the description allows but GitHub refuses. */
export function unprocessable(message, field, code = 'invalid') {
  return new HttpError(422, message, {
    body: {
      message: 'Validation Failed',
      errors: [{ resource: field.resource, field: field.name, code, message }],
      documentation_url: 'https://docs.github.com/rest',
      status: '422',
    },
  });
}

export function requireIdentity(call) {
  if (!call.identity) throw new HttpError(401, 'Requires authentication');
  if (call.identity.kind === 'app') throw new HttpError(403, 'Resource not accessible by integration');
  return call.identity;
}

/** The repository named by {owner}/{repo}, if the caller may see it. */
export function findRepo(call, { write = false } = {}) {
  const repo = call.state.repo(call.params.owner, call.params.repo);
  if (!repo) throw notFound();
  const identity = write ? requireIdentity(call) : call.identity;
  if (!identity) {
    if (repo.private) throw notFound();
    return repo;
  }
  if (identity.kind === 'app') throw new HttpError(403, 'Resource not accessible by integration');
  if (identity.kind === 'installation' && !identity.repositories.includes(repo)) {
    throw new HttpError(403, 'Resource not accessible by integration');
  }
  return repo;
}

/**
 * One page of `items` by per_page (at most 100, default 30) and page, with the Link header
 * GitHub sends (first/prev/next/last, only those that apply).
 */
export function paginate(call, items) {
  const perPage = Math.min(Math.max(Number(call.query.per_page ?? 30), 1), 100);
  const page = Math.max(Number(call.query.page ?? 1), 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (number) => {
    const url = new URL(call.url);
    url.searchParams.set('per_page', String(perPage));
    url.searchParams.set('page', String(number));
    return `<${url.href}>`;
  };
  const parts = [];
  if (page > 1) parts.push(`${link(1)}; rel="first"`, `${link(Math.min(page - 1, last))}; rel="prev"`);
  if (page < last) parts.push(`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`);
  return { items: slice, headers: parts.length ? { link: parts.join(', ') } : {} };
}

export function requireInteger(value, name) {
  const number = Number(value);
  if (!Number.isInteger(number)) throw notFound();
  return number;
}

export { basicError };
