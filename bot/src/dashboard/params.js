'use strict';
// The dashboard's query parameters, checked once per request into one settings object. A bad
// parameter is one line naming it, the value given and the form expected (answered with 400).
// Pure.

class ParameterError extends Error {}

const shown = (value) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

function pattern(regex, expected) {
  return { expected, read: (value) => (regex.test(value) ? value : undefined) };
}

function integer(min, max) {
  return {
    expected: `an integer from ${min} to ${max}`,
    read: (value) => {
      if (!/^\d{1,10}$/.test(value)) return undefined;
      const n = Number(value);
      return n >= min && n <= max ? n : undefined;
    },
  };
}

function oneOf(...words) {
  return { expected: `one of ${words.join(', ')}`, read: (value) => (words.includes(value) ? value : undefined) };
}

const REPO = pattern(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'a repository as owner/name');
// Microbenchmark names as the catalogue spells them: update-index_range=100, point-select+5%-update.
const BENCHMARK = pattern(/^[A-Za-z0-9][A-Za-z0-9_.=+%,:-]{0,199}$/, 'a microbenchmark name such as update-index_range=100');
const MACHINE = pattern(/^[0-9a-f]{8,64}$/, "a runner fingerprint (machine id: 8 to 64 lowercase hexadecimal digits)");
const SUITE = pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a suite name such as quick');

// Per page: its parameters (required ones marked), each with its reader and default.
const PAGES = {
  overview: { repo: { ...REPO } },
  history: {
    repo: { ...REPO, required: true },
    benchmark: { ...BENCHMARK, required: true },
    machine: { ...MACHINE },
    threads: integer(1, 100000),
    ahi: oneOf('ON', 'OFF'),
    last: { ...integer(2, 5000), default: 100 },
  },
  runs: { repo: { ...REPO }, suite: { ...SUITE }, before: integer(1, Number.MAX_SAFE_INTEGER), limit: { ...integer(1, 500), default: 50 } },
  regressions: { repo: { ...REPO }, status: { ...oneOf('open', 'all'), default: 'open' } },
  signoffs: { repo: { ...REPO }, limit: { ...integer(1, 500), default: 50 } },
  learned: { repo: { ...REPO, required: true }, suite: { ...SUITE, required: true } },
};

/**
 * @param page    a key of PAGES
 * @param search  URLSearchParams of the request
 * @returns {name: value}: every parameter of the page, null when absent without default
 * @throws ParameterError on an unknown, repeated, empty, malformed or missing parameter
 */
function readParameters(page, search) {
  const specs = PAGES[page];
  const names = Object.keys(specs);
  for (const name of new Set(search.keys())) {
    if (!Object.hasOwn(specs, name)) {
      throw new ParameterError(names.length
        ? `unknown query parameter '${name}'; expected only ${names.join(', ')}`
        : `unknown query parameter '${name}'; this page takes none`);
    }
    const count = search.getAll(name).length;
    if (count > 1) throw new ParameterError(`query parameter '${name}' is given ${count} times; expected it once`);
  }
  const out = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = search.get(name);
    if (raw === null) {
      if (spec.required) throw new ParameterError(`query parameter '${name}' is missing; expected ${spec.expected}`);
      out[name] = spec.default ?? null;
      continue;
    }
    const value = spec.read(raw);
    if (value === undefined) throw new ParameterError(`query parameter '${name}' is ${shown(raw)}; expected ${spec.expected}`);
    out[name] = value;
  }
  return out;
}

module.exports = { readParameters, ParameterError, PAGES };
