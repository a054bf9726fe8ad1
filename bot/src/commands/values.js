'use strict';
// Typed values of command arguments. Each parser returns {value} or {problem}: the problem is
// the part of an error message after "<command>: ", quoting what was wrong and saying what is
// allowed.
const { LIMITS, TYPES, OPTIONS } = require('./grammar');

const MAX_QUOTE = 80;
// Quotes user text in a message; long input is cut so that a reply stays readable.
function quote(text) {
  const s = String(text);
  return `'${s.length > MAX_QUOTE ? `${s.slice(0, MAX_QUOTE - 1)}…` : s}'`;
}

function listed(items, last = 'or') {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

// A revision is one name git resolves: [A-Za-z0-9._/-] following git's ref-name rules (no
// leading '-' that git would read as an option, no '..' range, no '//', no component starting
// with '.', no trailing '/', '.' or '.lock'), then any ~N / ^N suffixes. Anything a shell
// would interpret (spaces, ';', '$', quotes, backticks) is outside the character set.
const REF = /^([A-Za-z0-9._/-]{1,200})((?:[~^][0-9]{0,4})*)$/;

// A pull request's refs (pull/7/head, refs/pull/7/merge) are moved by its author's pushes, and
// the bot resolves a ref when it takes the command, not when the comment was written: a push in
// between would have code built that the maintainer never saw. Its commits are named by SHA.
// Without regard to case: git on a case-insensitive file system resolves PULL/7/head as pull/7/head.
const PULL_REF = /^(refs\/)?pull\//i;

function parseRef(text, name) {
  const m = REF.exec(text);
  const base = m && m[1];
  const ok = base && !/^[-/]/.test(base) && !base.includes('..') && !base.includes('//')
    && !/(^|\/)\./.test(base) && !/(\/|\.|\.lock)$/.test(base);
  if (ok && PULL_REF.test(base)) {
    return { problem: `bad <${name}> ${quote(text)}: a pull request's ref moves with every push to it; name the commit you mean by its SHA` };
  }
  if (ok) return { value: text };
  return { problem: `bad <${name}> ${quote(text)}: expected ${TYPES.ref.describe}` };
}

// A commit by its SHA or an abbreviation git would print (7 digits at least); GitHub says
// which commit it names.
const SHA_OR_PREFIX = /^[0-9a-f]{7,40}$/i;

function parseSha(text, name) {
  if (SHA_OR_PREFIX.test(text)) return { value: text.toLowerCase() };
  return { problem: `bad <${name}> ${quote(text)}: expected ${TYPES.sha.describe}` };
}

function parseMicrobenchmark(text, name, known) {
  if (known.includes(text)) return { value: text };
  return { problem: `unknown microbenchmark ${quote(text)} for <${name}>: expected one of ${known.join(', ')}` };
}

const POSITIVE_INTEGER = /^[1-9][0-9]{0,8}$/;

function repeatedItem(items) {
  const seen = new Set();
  for (const item of items) {
    if (seen.has(item)) return item;
    seen.add(item);
  }
  return null;
}

function parseThreads(text, token) {
  const items = text.split(',');
  const bad = items.find((x) => !POSITIVE_INTEGER.test(x) || Number(x) > LIMITS.maxThreads);
  if (bad !== undefined) {
    return { problem: `bad value ${quote(bad)} in ${quote(token)}: expected ${OPTIONS.threads.describe}` };
  }
  const twice = repeatedItem(items);
  if (twice !== null) return { problem: `${quote(token)} lists ${twice} twice: give each thread count once` };
  return { value: items.map(Number) };
}

function parseTests(text, token, known) {
  const items = text.split(',');
  if (items.some((x) => x === '')) {
    return { problem: `empty name in ${quote(token)}: expected ${OPTIONS.tests.describe}` };
  }
  const unknown = items.find((x) => !known.includes(x));
  if (unknown !== undefined) {
    return { problem: `unknown microbenchmark ${quote(unknown)} in ${quote(token)}: expected names from ${known.join(', ')}` };
  }
  const twice = repeatedItem(items);
  if (twice !== null) return { problem: `${quote(token)} lists ${quote(twice)} twice: give each microbenchmark once` };
  return { value: items };
}

function parseRounds(text, token) {
  const n = POSITIVE_INTEGER.test(text) ? Number(text) : NaN;
  if (n >= LIMITS.minRounds && n <= LIMITS.maxRounds) return { value: n };
  return { problem: `bad value ${quote(text)} in ${quote(token)}: expected ${OPTIONS.rounds.describe}` };
}

function parseMetric(text, token) {
  if (OPTIONS.metric.values.includes(text)) return { value: text };
  return { problem: `bad value ${quote(text)} in ${quote(token)}: expected ${listed(OPTIONS.metric.values)}` };
}

const OPTION_PARSERS = { threads: parseThreads, tests: parseTests, rounds: parseRounds, metric: parseMetric };
const POSITIONAL_PARSERS = { ref: parseRef, microbenchmark: parseMicrobenchmark, sha: parseSha };

module.exports = { quote, listed, OPTION_PARSERS, POSITIONAL_PARSERS };
