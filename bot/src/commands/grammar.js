'use strict';
// The one table of /perf commands. The parser reads it and the help text is generated from it,
// so a command, an argument or a limit is added here and nowhere else.

const PREFIX = '/perf';

const LIMITS = Object.freeze({
  maxThreads: 1024,
  // judge() needs two paired rounds for an interval; past 50 a run of the full suite would
  // hold a runner for days.
  minRounds: 2,
  maxRounds: 50,
  maxReason: 500,
  // A comment longer than this, or opening more quotes and lists than this on one line, is not
  // read for a command (commands/markdown.js): its markdown could take the bot seconds to lex,
  // or overflow the lexer's stack. A command and a few paragraphs fit.
  maxCommentLength: 4000,
  maxNesting: 32,
});

// Positional value types: what the help text calls them and what a bad one is told to be.
const TYPES = Object.freeze({
  ref: {
    describe: 'a git revision: a branch, a tag or a commit SHA, optionally followed by ~N or ^N; '
      + 'no ranges (a..b), options (-x), spaces or shell characters',
  },
  microbenchmark: {
    describe: 'the name of one microbenchmark, as in the report',
  },
  sha: {
    describe: "the pull request's head commit you reviewed, by its SHA: 40 hex digits, or the first 7 or more; "
      + 'the run measures exactly that commit, and only while it is the head',
  },
});

// key=value arguments; `form` is how usage lines show the value.
const OPTIONS = Object.freeze({
  threads: {
    form: 'N,…',
    describe: `client thread counts, positive integers up to ${LIMITS.maxThreads} separated by commas, e.g. threads=1,4`,
  },
  tests: {
    form: 'NAME,…',
    describe: 'microbenchmarks to run, by name, separated by commas, e.g. tests=point-query,update-index_range=100',
  },
  rounds: {
    form: 'N',
    describe: `rounds per side, an integer from ${LIMITS.minRounds} to ${LIMITS.maxRounds}`,
  },
  metric: {
    form: 'time|instructions|both',
    values: ['time', 'instructions', 'both'],
    describe: 'what decides: time (QPS), instructions per query (counted under callgrind) or both',
  },
});

const MEASURE_OPTIONS = ['threads', 'tests', 'rounds', 'metric'];
// The head a measuring command approves: the one the maintainer names, else the one the bot can
// prove was the head when the comment was written (bot/src/app/approval.js).
const MEASURE_POSITIONALS = [{ name: 'sha', type: 'sha', optional: true }];

// positionals: in order; `keyword` marks an optional positional introduced by a word
// (`vs <previous>`), null when not given; `optional` one that may be left out, absent from
// the arguments when it is. rest: free text after a separator token, kept as written.
// needsWrite: the author must have write access to the repository for the bot to act.
// benchmarks: the command names microbenchmarks (tests= or a positional), so the caller must
// say which names exist.
const COMMANDS = Object.freeze([
  {
    name: 'quick',
    summary: "measure the quick suite on this pull request's base and head",
    positionals: MEASURE_POSITIONALS, options: MEASURE_OPTIONS, needsWrite: true,
  },
  {
    name: 'full',
    summary: 'measure the full suite (every microbenchmark of the catalogue)',
    positionals: MEASURE_POSITIONALS, options: MEASURE_OPTIONS, needsWrite: true,
  },
  {
    name: 'ahi',
    summary: 'measure the adaptive hash index suite: point selects with N% updates, AHI off and on',
    positionals: MEASURE_POSITIONALS, options: MEASURE_OPTIONS, needsWrite: true,
  },
  {
    name: 'why',
    summary: 'measure <microbenchmark> with the quick suite and say why it got slower (counters, waits, stacks, plans, memory)',
    positionals: [{ name: 'microbenchmark', type: 'microbenchmark' }], options: [], needsWrite: true,
  },
  {
    name: 'ddl',
    summary: 'measure the DDL suite: ADD INDEX, DROP INDEX, ADD COLUMN and OPTIMIZE TABLE timed on a large table',
    positionals: MEASURE_POSITIONALS, options: ['tests', 'rounds'], needsWrite: true,
  },
  {
    name: 'contention',
    summary: 'measure the contention slice: a hot row and point selects at more client threads than the runner has CPUs',
    positionals: MEASURE_POSITIONALS, options: ['threads', 'tests', 'rounds'], needsWrite: true,
  },
  {
    name: 'tpcc',
    summary: 'measure TPC-C (go-tpc): tpmC and NewOrder p95 on one warehouse restored for every round',
    positionals: MEASURE_POSITIONALS, options: ['threads', 'rounds'], needsWrite: true,
  },
  {
    name: 'compare',
    summary: "measure this pull request's head against <ref> instead of its base",
    positionals: [{ name: 'ref', type: 'ref' }], options: [], needsWrite: true,
  },
  {
    name: 'rerun',
    summary: 'run the last measurement of this pull request again',
    positionals: [], options: [], needsWrite: true,
  },
  {
    name: 'cancel',
    summary: "cancel this pull request's queued and running measurements",
    positionals: [], options: [], needsWrite: true,
  },
  {
    name: 'help',
    summary: 'show this help',
    positionals: [], options: [], needsWrite: false,
  },
  {
    name: 'bisect',
    summary: 'find the first commit between <good> and <bad> that made the microbenchmarks slower',
    positionals: [{ name: 'good', type: 'ref' }, { name: 'bad', type: 'ref' }], options: ['tests'], needsWrite: true,
  },
  {
    name: 'signoff',
    summary: 'measure release <candidate> against <previous> (default: the release before it) with the sign-off suites (full, ddl, tpcc unless the bot is set otherwise)',
    positionals: [{ name: 'candidate', type: 'ref' }, { name: 'previous', type: 'ref', keyword: 'vs' }],
    options: [], needsWrite: true,
  },
  {
    name: 'waive',
    summary: 'accept a slower <microbenchmark> in this pull request (in a sign-off also <suite>-suite, a suite as a whole), giving the reason',
    positionals: [{ name: 'microbenchmark', type: 'microbenchmark' }],
    rest: { name: 'reason', separator: '--', describe: `why it is accepted, free text up to ${LIMITS.maxReason} characters` },
    options: [], needsWrite: true,
  },
].map((c) => Object.freeze({
  ...c,
  benchmarks: c.options.includes('tests') || c.positionals.some((p) => p.type === 'microbenchmark'),
})));

const COMMAND_NAMES = COMMANDS.map((c) => c.name);
const findCommand = (name) => COMMANDS.find((c) => c.name === name) || null;

function usage(command) {
  const parts = [`${PREFIX} ${command.name}`];
  for (const p of command.positionals) parts.push(p.keyword ? `[${p.keyword} <${p.name}>]` : p.optional ? `[<${p.name}>]` : `<${p.name}>`);
  if (command.rest) parts.push(`${command.rest.separator} <${command.rest.name}>`);
  for (const o of command.options) parts.push(`[${o}=${OPTIONS[o].form}]`);
  return parts.join(' ');
}

module.exports = { PREFIX, LIMITS, TYPES, OPTIONS, COMMANDS, COMMAND_NAMES, findCommand, usage };
