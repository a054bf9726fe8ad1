// GitHub's published OpenAPI description, cut down to what the double serves.
//
// The full api.github.com description is about 13 MB with over a thousand operations; building
// validators for all of them would take many seconds. Every path and method stays in the cut
// document so that routing still tells "not implemented" (501) from "no such path" (404), but
// only the operations the double implements keep their parameters, bodies and responses, and
// only the components those reach through $ref are copied. The result is built once per process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import addFormats from 'ajv-formats';
import OpenAPIBackendModule from 'openapi-backend';

const { OpenAPIBackend } = OpenAPIBackendModule;
const require = createRequire(import.meta.url);

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Where @octokit/openapi keeps the api.github.com description (not its index, which loads 16). */
export function descriptionPath() {
  const packageJson = require.resolve('@octokit/openapi/package.json');
  return path.join(path.dirname(packageJson), 'generated', 'api.github.com.json');
}

function collectRefs(value, found) {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.add(item);
      else collectRefs(item, found);
    }
  }
}

function lookupRef(document, ref) {
  if (!ref.startsWith('#/')) throw new Error(`GitHub description: external $ref ${ref} is not supported`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node, key) => {
      if (node == null || !(key in node)) throw new Error(`GitHub description: $ref ${ref} does not resolve`);
      return node[key];
    }, document);
}

/**
 * Cuts the operations named in `implemented` (operationIds) out of the full description.
 * Returns { document, operations } where operations maps every operationId of the full
 * description to { method, path, implemented }.
 */
export function cutDescription(full, implemented) {
  const wanted = new Set(implemented);
  const operations = new Map();
  const paths = {};
  for (const [route, item] of Object.entries(full.paths)) {
    const cutItem = {};
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const keep = wanted.has(operation.operationId);
      operations.set(operation.operationId, { method, path: route, implemented: keep });
      if (keep) cutItem[method] = { ...operation, parameters: [...(operation.parameters || []), ...(item.parameters || [])] };
    }
    if (Object.keys(cutItem).length) paths[route] = cutItem;
  }
  const missing = [...wanted].filter((id) => !operations.has(id));
  if (missing.length) {
    throw new Error(`GitHub description has no operation ${missing.join(', ')}; expected operationIds such as "issues/create-comment"`);
  }

  // Copy every component reachable from the kept operations, following $refs transitively.
  const components = {};
  const seen = new Set();
  const pending = new Set();
  collectRefs(paths, pending);
  while (pending.size) {
    const [ref] = pending;
    pending.delete(ref);
    if (seen.has(ref)) continue;
    seen.add(ref);
    // A $ref may point inside a component (#/components/schemas/x/properties/y): copy all of x.
    const [hash, root, section, name] = ref.split('/');
    if (hash !== '#' || root !== 'components' || !section || !name) {
      throw new Error(`GitHub description: $ref ${ref} is not under #/components`);
    }
    const componentRef = `#/components/${section}/${name}`;
    const target = lookupRef(full, componentRef);
    components[section] ??= {};
    components[section][name.replace(/~1/g, '/').replace(/~0/g, '~')] = target;
    collectRefs(target, pending);
  }
  // Error bodies for statuses an operation does not describe are checked against these.
  for (const name of ['basic-error', 'validation-error']) {
    components.schemas ??= {};
    components.schemas[name] ??= full.components.schemas[name];
  }

  const document = rewriteNullable({
    openapi: full.openapi,
    info: full.info,
    servers: full.servers,
    paths,
    components,
  });
  return { document, operations };
}

/**
 * Two readings of OpenAPI 3.0's `nullable` that Ajv does not share with GitHub's description,
 * which GitHub's own answers rely on (`"conclusion": null`, `"state_reason": null`):
 * - `nullable: true` without a `type` (e.g. `{ nullable: true, allOf: [{ $ref: simple-user }] }`)
 *   means "this or null"; Ajv refuses `nullable` without `type`, so it becomes
 *   `{ anyOf: [schema, { enum: [null] }] }`;
 * - `nullable: true` with an `enum` that lacks null: Ajv checks the enum first and refuses null,
 *   so null is added to the enum.
 * Rewritten in place; nothing else in the description changes.
 */
function rewriteNullable(node) {
  if (Array.isArray(node)) {
    node.forEach((item, index) => {
      node[index] = rewriteNullable(item);
    });
    return node;
  }
  if (!node || typeof node !== 'object') return node;
  for (const [key, value] of Object.entries(node)) node[key] = rewriteNullable(value);
  if (node.nullable !== true) return node;
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...node.enum, null];
  if (node.type === undefined) {
    const { nullable, description, ...schema } = node;
    return { ...(description === undefined ? {} : { description }), anyOf: [schema, { enum: [null] }] };
  }
  return node;
}

let loaded;

/**
 * The OpenAPIBackend for the double's operations, built once per process:
 * { api, operations, schemas, timings }.
 */
export function loadDescription(implemented) {
  const key = [...implemented].sort().join(' ');
  if (loaded && loaded.key === key) return loaded.promise;
  const promise = (async () => {
    const started = performance.now();
    const full = JSON.parse(readFileSync(descriptionPath(), 'utf8'));
    const parsed = performance.now();
    const { document, operations } = cutDescription(full, implemented);
    const cut = performance.now();
    // quick: validators are compiled per operation on first use (20–350 ms each here) instead
    // of all at start-up (about 8 s for the 29 operations, since every dereferenced schema is
    // compiled on its own); the cut document is not re-checked against the OpenAPI meta-schema.
    const api = new OpenAPIBackend({
      definition: document,
      strict: true,
      quick: true,
      validate: true,
      ignoreTrailingSlashes: false,
      coerceTypes: true,
      // verbose: errors carry the offending value, so a refusal can quote it.
      ajvOpts: { allErrors: true, strict: false, verbose: true },
      customizeAjv: (ajv) => {
        addFormats(ajv);
        // GitHub's own format for X-RateLimit-Reset: seconds since the epoch.
        ajv.addFormat('timestamp', { type: 'number', validate: (value) => Number.isInteger(value) && value >= 0 });
        return ajv;
      },
    });
    await api.init();
    const ready = performance.now();
    return {
      api,
      operations,
      errorSchemas: {
        basic: document.components.schemas['basic-error'],
        validation: document.components.schemas['validation-error'],
      },
      version: full.info.version,
      timings: { parseMs: parsed - started, cutMs: cut - parsed, initMs: ready - cut, totalMs: ready - started },
    };
  })();
  loaded = { key, promise };
  return promise;
}
