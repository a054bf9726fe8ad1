'use strict';
// `perfgate compare`: measure base against head on one suite and leave the run folder.
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { checkBasedir } = require('../basedir');
const { runComparison } = require('../compare-loop');
const { sidesFromSource } = require('../source-build/build-sides');
const { writeReports } = require('../own-files');
const { MEASURE_OPTIONS, MEASURE_HELP, measureOverrides, sideOptions, testList } = require('../measure-options');
const { EXIT_ON_SIGNAL, sandboxFor } = require('../processes');

const { UsageError, EXIT } = core;

const OPTIONS = {
  base: { type: 'string' },
  head: { type: 'string', multiple: true },
  out: { type: 'string' },
  ...MEASURE_OPTIONS,
  tests: { type: 'string' },
  source: { type: 'string' },
  flavor: { type: 'string' },
  'build-config': { type: 'string', multiple: true },
  'keep-data': { type: 'boolean' },
  explain: { type: 'string' },
  'untrusted-head': { type: 'boolean' },
  'base-option': { type: 'string', multiple: true },
  'head-option': { type: 'string', multiple: true },
  shard: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate compare --base <basedir> --head <basedir> [--head <basedir> …] --out <dir> [options]

Measures the head server against the base server on one suite of thresholds/suites/, measures
more rounds where the answer is open (budget in the suite file), confirms fails, and writes
plan.json, results.json, verdict.json, comment.md, summary.md, report.html, results.csv,
results.tsv and servers/<side>/error.log into <dir>.

  --base <basedir>        installed server prefix of the base (holds bin/ or sbin/ and share/)
  --head <basedir>        installed server prefix of the head. Repeat it for a chain of versions
                          against one base (at most ${core.MAX_HEADS}): every head is measured in the same
                          interleaved rounds (A B C / C B A), judged against the base on its own,
                          and the reports hold one column per version (chain.json, chain.csv,
                          chain.tsv; each head's own reports under <dir>/heads/<side>/). The exit
                          code is the worst head's. A chain measures time only (--metric time)
  --source <git checkout> build --base and --head from this checkout first: they are then git
                          refs (branch, tag or SHA); see perfgate build --help. Build logs go
                          to <dir>/build/; a failed build makes the run an error (exit 4)
  --flavor <name>         with --source: mariadb (default), mysql or percona
  --build-config <file>   with --source: build recipe overrides (repeatable)
  --out <dir>             run folder (created; earlier run files in it are replaced)
${MEASURE_HELP}
  --tests <a,b,…>         only these microbenchmarks of the suite (default: all of them)
  --base-option, --head-option NAME=VALUE
                          a [mysqld] option of that side only, after the profile's (repeatable),
                          e.g. --head-option innodb_flush_log_at_trx_commit=1 (in a chain: of
                          every head)
  --shard K/N             run only shard K of N of the suite (1 <= K <= N): a part that loads
                          its own tables and keeps the suite's order; each runner of a matrix
                          runs one, and perfgate merge joins their run folders into one report
  --explain auto|all|none|<row,…>
                          after judging, look again at rows on fresh servers of both sides
                          and write explain.json (counters, waits, memory, stacks, plans per
                          side; see docs/explain.md): auto (default) every row that is not a
                          plain pass, all, none, or the rows named; at most the suite's
                          explain.rows rows, explain.seconds_per_row each. Not for a chain
  --keep-data             keep both loaded datadirs under <dir>/servers/ (about 1 GB each);
                          by default they are removed when the comparison is over
  --untrusted-head        the head is code nobody with write access wrote (a fork's pull
                          request): refuse to build or run it unless it runs in the sandbox
                          (bubblewrap). Builds, servers and sysbench run in the sandbox
                          whenever this host has it; PERFGATE_SANDBOX=off in the runner's
                          settings runs everything outside it

Exit codes: 0 pass or warn, 1 fail, 2 bad input, 3 undecided, 4 error,
130/143 cancelled by SIGINT/SIGTERM (results.json says "cancelled").
`;

// The typed settings of one `perfgate compare` invocation, every value checked.
function readSettings(argv, env = {}) {
  const values = parseCommandLine('compare', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const required of ['base', 'head', 'out']) {
    const form = required === 'out' ? 'dir' : values.source ? 'git ref' : 'basedir';
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${form}>`);
  }
  if (!values.source && (values.flavor || values['build-config'])) {
    throw new UsageError(`--${values.flavor ? 'flavor' : 'build-config'} applies only with --source <git checkout>`);
  }
  const heads = values.head;
  if (heads.length > 1) {
    // Refs name versions as given; basedirs as the folders they are.
    const named = (x) => (values.source ? { ref: x } : { basedir: path.resolve(x) });
    core.chainSides(named(values.base), heads.map(named), values.source ? 'ref' : 'basedir');
    if (values.shard !== undefined) throw new UsageError(`--shard '${values.shard}': a chain of ${heads.length} heads runs whole; expected one --head with --shard`);
    if (values.explain !== undefined && values.explain.trim() !== 'none') throw new UsageError(`--explain '${values.explain}': the explanation step compares one head with the base; expected one --head, or --explain none`);
  }
  return {
    help: false,
    base: values.base,
    head: heads[0],
    heads,
    out: path.resolve(values.out),
    suite: values.suite,
    tests: values.tests !== undefined ? testList(values.tests) : null,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
    overrides: { ...measureOverrides(values, env), ...(values.shard !== undefined ? { shard: core.parseShard(values.shard) } : {}) },
    source: values.source ? path.resolve(values.source) : null,
    flavor: values.flavor || 'mariadb',
    buildConfigs: (values['build-config'] || []).map((f) => path.resolve(f)),
    keepData: Boolean(values['keep-data']),
    explain: heads.length > 1 ? null : core.parseExplainAsk(values.explain ?? 'auto', '--explain'),
    untrustedHead: Boolean(values['untrusted-head']),
    sideOptions: { base: sideOptions('base-option', values['base-option']), head: sideOptions('head-option', values['head-option']) },
  };
}

// --base-option to the base, --head-option to every head (of a chain too).
function withSideOptions(sides, options) {
  const out = { ...sides };
  for (const side of Object.keys(sides)) {
    const own = options[side === 'base' ? 'base' : 'head'];
    if (Object.keys(own).length) out[side] = { ...sides[side], options: own };
  }
  return out;
}

// The sides to measure from checked basedirs: base and head, or base and a chain of heads.
function basedirSides(settings) {
  const base = { basedir: checkBasedir('--base', settings.base), label: 'base' };
  const heads = settings.heads.map((h) => checkBasedir('--head', h));
  if (heads.length === 1) return { base, head: { basedir: heads[0], label: 'head' } };
  return core.chainSides(base, heads.map((basedir, k) => ({ basedir, label: core.headSide(k) })), 'basedir');
}

function describeSteps(steps) {
  const of = (action) => steps.filter((s) => s.action === action);
  const sum = (list, key) => list.reduce((n, s) => n + s[key], 0);
  const inSteps = (list) => `in ${list.length} step${list.length === 1 ? '' : 's'}`;
  const parts = [];
  if (of('count').length) parts.push(`${sum(of('count'), 'windows')} extra instruction windows per side ${inSteps(of('count'))}`);
  if (of('recount').length) parts.push(`instruction fails and warns counted again on fresh servers (${sum(of('recount'), 'windows')} windows per side)`);
  if (of('extend').length) parts.push(`${sum(of('extend'), 'rounds')} extra rounds per side ${inSteps(of('extend'))}`);
  if (of('confirm').length) parts.push(`time fails and warns re-measured on fresh servers (${sum(of('confirm'), 'rounds')} rounds per side)`);
  return parts.join('; ');
}

async function execute(settings, io) {
  const env = io.env || process.env;
  // Before anything is read or built: a runner that cannot isolate an untrusted head refuses it.
  const sandbox = sandboxFor({ untrusted: settings.untrustedHead, env });
  if (sandbox.note) io.stderr.write(`perfgate compare: ${sandbox.note}\n`);
  const config = core.narrowSuite(core.loadThresholds(settings.thresholds), settings.suite, settings.tests, '--tests');
  core.findSuite(config, settings.suite);
  // A shard count the suite cannot be split into is bad input: say so before building anything.
  if (settings.overrides.shard) core.resolvePlan(config, settings.suite, settings.overrides, { base: { basedir: settings.base }, head: { basedir: settings.head } });
  let sides;
  if (settings.source) {
    // --base/--head are refs: build what is missing first; a failed build is an error run.
    const refs = settings.heads.length > 1
      ? Object.fromEntries(Object.entries(core.chainSides({ ref: settings.base }, settings.heads.map((ref) => ({ ref })), 'ref')).map(([side, s]) => [side, s.ref]))
      : null;
    const built = await sidesFromSource({ settings: refs ? { ...settings, refs } : settings, config, io, env, sandbox });
    if (built.cancelled) {
      io.stderr.write(`perfgate compare: cancelled by ${built.cancelled} while building; run folder ${settings.out}\n`);
      return EXIT_ON_SIGNAL[built.cancelled];
    }
    if (built.exitCode !== undefined) {
      io.stderr.write(`perfgate compare: error: ${built.results.errors[0].message}\n`);
      io.stderr.write(`perfgate compare: run folder ${settings.out}\n`);
      return built.exitCode;
    }
    sides = withSideOptions(built.sides, settings.sideOptions);
  } else {
    sides = withSideOptions(basedirSides(settings), settings.sideOptions);
  }
  const chain = core.isChain(sides);
  const outcome = await runComparison({
    config,
    suiteName: settings.suite,
    overrides: settings.overrides,
    sides,
    outDir: settings.out,
    keepData: settings.keepData,
    explain: settings.explain,
    // A chain is judged head by head, and its next step joined from each head's (core/src/chain.js).
    judge: chain ? core.judgeChain : core.judge,
    nextStep: chain ? core.chainStep : core.nextStep,
    io,
    env,
    sandbox,
  });
  if (outcome.cancelled) {
    io.stderr.write(`perfgate compare: ${outcome.message}: servers stopped, datadirs removed; run folder ${settings.out}\n`);
    return EXIT_ON_SIGNAL[outcome.cancelled];
  }
  if (outcome.verdict) writeReports(settings.out, outcome.verdict, { flamegraphs: outcome.flamegraphs || {} });
  if (outcome.steps.length) io.stderr.write(`perfgate compare: ${describeSteps(outcome.steps)}\n`);
  if (outcome.phases && outcome.phases.length) io.stderr.write(`perfgate compare: ${core.formatPhaseProfile(outcome.phases)}\n`);
  if (outcome.message) io.stderr.write(`perfgate compare: ${outcome.message}\n`);
  io.stderr.write(`perfgate compare: run folder ${settings.out}\n`);
  // The table comes last: it is what people read when the run is over.
  if (outcome.verdict && chain) {
    outcome.verdict.heads.forEach(({ verdict }, k) => io.stdout.write(`\ncol-${k + 1}: ${core.renderVerdictTable(verdict)}`));
  } else if (outcome.verdict) {
    io.stdout.write(`\n${core.renderVerdictTable(outcome.verdict)}`);
  } else if (outcome.results) {
    // Measured but not judged (the run broke off): still show what was measured.
    io.stdout.write(`\n${core.renderTerminal(outcome.results)}`);
  }
  return outcome.exitCode;
}

module.exports = { readSettings, execute, HELP };
