'use strict';
// Loads thresholds/ once, at the edge, into one typed config object:
//
//   { dir,
//     catalogue: { <name>: {name, group, kind, script, options, shape, instructions: {events}|null,
//                           ddl?: {statement or load, session}} },  group ddl: config/ddl-statements.js, tpcc: config/tpcc.js
//     profiles:  { <name>: {name, file, options} },                          profiles/*.cnf
//     suites:    { <name>: Suite } }                                          suites/<suite>.yml
//
// A thresholds folder holds its suites under suites/. The catalogue and the server profiles
// beside them are not suites: the shipped ones are always loaded, and a fork's folder may add
// or replace entries (its own benchmarks.yml, profiles/<name>.cnf). Script names, script
// options and server options are checked against the definitions of schema/plan.schema.json,
// the same rules the harness applies to plan.json, but here they name the file and line.
//
//   Suite = { name, file, description, scale: {tables, rows},
//             profiles: {mariadb, mysql, percona},   the profile name each server flavour runs with
//             measure: {threads: [int], seconds, warmup_seconds, rounds, signals: ['time'|'instructions'],
//                       side_schedule: 'in-turn'|'together'|'alternating' (how the rounds of one index share the machine),
//                       pin_cpus: 'split'|'none'},
//             instructions: {windows, seed},       how the instruction phase runs
//             benchmarks: [name] | null,          quick/full suites: catalogue names in order
//             ddl: bool, tpcc: bool,              its benchmarks are DDL statements or TPC-C (config/ddl-statements.js, tpcc.js)
//             ahi: {states, parts: [int] | null, workloads: [{name, update_percent, update}],
//                   variants: [{name, workload, update_percent, update, parts}]} | null,
//                                                 variants: the workloads, each once per AHI
//                                                 partition count (innodb_adaptive_hash_index_parts,
//                                                 name '<workload> parts=<n>') when `parts` is set
//             names: [name],                      what `limits` keys may name
//             limits: {default: Limit, ahi_gain: Limit|null, byName: {<name> | '<name> threads=<n>': Limit}},
//             budget: {extra_pairs, minutes},        config/budget.js
//             suite_wide: {rqps, instructions: {warn, fail}, min_rows},   config/suite-wide.js
//             explain: {rows, seconds_per_row},     config/explain-budget.js (defaults when absent)
//             learned: {file, runner, runs, byName} | null }   learned/<suite>.yml, config/learned-limits.js
//   Limit = { warn, fail, cpu_per_query: {warn, fail} | null, instructions: {warn, fail} | null,
//             device_reads_per_query?, read_kb_per_query?, write_kb_per_query?: {warn, fail},
//             memory_per_query?: {warn, fail} }   (config/limit-entry.js)
//           (already merged with default; the I/O and memory limits only when set)
//
// `limitsFor(suite, name)` gives the limits that apply to one microbenchmark.
const fs = require('node:fs');
const path = require('node:path');
const { YamlSource, show } = require('./yaml-source');
const { ConfigError } = require('../errors');
const check = require('./checks');
const { parseCnf } = require('./server-profile');
const { FLAVORS, DEFAULT_PROFILES } = require('./flavors');
const { fragmentProblems } = require('../schemas');
const { SIDE_SCHEDULES } = require('../side-schedules');
const { loadBudget } = require('./budget');
const { loadSuiteWide } = require('./suite-wide');
const { loadExplainBudget } = require('./explain-budget');
const { loadDdlEntry, checkDdlSuite } = require('./ddl-statements');
const { loadTpccEntry, checkTpccSuite } = require('./tpcc');
const { loadLearned } = require('./learned-limits');
const { loadLimit } = require('./limit-entry');

const SHIPPED_DIR = path.resolve(__dirname, '..', '..', '..', 'thresholds');
const CATALOGUE_FILE = 'benchmarks.yml';
const SUITES_DIR = 'suites';
const LEARNED_DIR = 'learned';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.%=+-]*$/;

function displayPath(file) {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

function readSource(file) {
  let text;
  try {
    // A FIFO or device in its place would block the read for ever: regular files only.
    if (!fs.statSync(file).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${displayPath(file)}: cannot be read (${err.code || err.message}); expected a YAML file`);
  }
  return new YamlSource(displayPath(file), text);
}

// Fails through `src` at the first problem of `value` against a plan schema definition.
function checkAgainstPlanSchema(src, at, def, value) {
  const [first] = fragmentProblems('plan', def, value);
  if (first) src.fail([...at, ...first.path], first.message);
  return value;
}

function loadCatalogue(file) {
  const src = readSource(file);
  check.mapping(src, [], { required: ['benchmarks'], what: 'a mapping with key benchmarks' });
  const entries = check.mapping(src, ['benchmarks'], { what: 'a mapping of microbenchmark names', anyKeys: true });
  const catalogue = {};
  for (const name of Object.keys(entries)) {
    const at = ['benchmarks', name];
    if (!NAME.test(name)) src.fail(at, `${show(name)} is not a valid name; expected letters, digits and _ . % = + -`);
    const own = { ddl: loadDdlEntry, tpcc: loadTpccEntry }[check.get(src.data, [...at, 'group'])];
    if (own) {
      catalogue[name] = own(src, at, name);
      continue;
    }
    check.mapping(src, at, { required: ['group', 'kind', 'script'], optional: ['options', 'shape', 'instructions'], what: 'a microbenchmark' });
    const options = entries[name].options === undefined ? {} : check.mapping(src, [...at, 'options'], { what: 'a mapping of option names to values', anyKeys: true });
    catalogue[name] = {
      name,
      group: check.oneOf(src, [...at, 'group'], ['point', 'range', 'write', 'ddl']),
      kind: check.oneOf(src, [...at, 'kind'], ['read', 'write']),
      script: checkAgainstPlanSchema(src, [...at, 'script'], 'script', entries[name].script),
      options: { ...checkAgainstPlanSchema(src, [...at, 'options'], 'scriptOptions', options) },
      shape: entries[name].shape === undefined ? null : check.string(src, [...at, 'shape']),
      instructions: entries[name].instructions === undefined ? null : loadCatalogueInstructions(src, [...at, 'instructions']),
    };
  }
  if (Object.keys(catalogue).length === 0) src.fail(['benchmarks'], 'is empty; expected at least one microbenchmark');
  return catalogue;
}

// Events of one instruction window: sized so the connection threads run a few hundred million
// instructions (long enough to be steady, short enough under callgrind).
function loadCatalogueInstructions(src, at) {
  check.mapping(src, at, { required: ['events'], what: 'instruction window settings {events}' });
  return { events: check.number(src, [...at, 'events'], { integer: true, min: 1, what: 'events per instruction window, an integer >= 1' }) };
}

function loadProfiles(dir) {
  const profilesDir = path.join(dir, 'profiles');
  const profiles = {};
  if (!fs.existsSync(profilesDir)) return profiles;
  for (const entry of fs.readdirSync(profilesDir).sort()) {
    if (!entry.endsWith('.cnf')) continue;
    const file = displayPath(path.join(profilesDir, entry));
    const name = entry.slice(0, -'.cnf'.length);
    const { options, lines } = parseCnf(fs.readFileSync(path.join(profilesDir, entry), 'utf8'), file);
    const [first] = fragmentProblems('plan', 'serverOptions', options);
    if (first) throw new ConfigError(`${file}:${lines[first.path[0]] || 1}: ${first.path.join('.')}: ${first.message}`);
    profiles[name] = { name, file, options };
  }
  return profiles;
}

function threadsList(src, at) {
  const v = check.get(src.data, at);
  if (Array.isArray(v)) {
    check.list(src, at);
    v.forEach((_, i) => check.number(src, [...at, i], { integer: true, min: 1 }));
    if (new Set(v).size !== v.length) src.fail(at, `${show(v)} repeats a thread count; expected distinct thread counts`);
    return [...v];
  }
  return [check.number(src, at, { integer: true, min: 1, what: 'a positive integer or a list of them' })];
}

const SIGNALS = ['time', 'instructions'];
const INSTRUCTIONS_DEFAULT = { windows: 3, seed: 1 };

function loadSignals(src, at) {
  if (check.get(src.data, at) === undefined) return ['time'];
  const signals = check.list(src, at);
  signals.forEach((_, i) => check.oneOf(src, [...at, i], SIGNALS));
  if (new Set(signals).size !== signals.length) src.fail(at, `${show(signals)} repeats a signal; expected time, instructions or both`);
  return [...signals];
}

// How the instruction phase runs: windows per side (window i of base pairs with window i of
// head) and the sysbench seed of every window.
function loadInstructions(src) {
  const at = ['instructions'];
  if (check.get(src.data, at) === undefined) return { ...INSTRUCTIONS_DEFAULT };
  const raw = check.mapping(src, at, { optional: ['windows', 'seed'], what: 'instruction settings {windows, seed}' });
  return {
    windows: raw.windows === undefined ? INSTRUCTIONS_DEFAULT.windows : check.number(src, [...at, 'windows'], { integer: true, min: 2 }),
    seed: raw.seed === undefined ? INSTRUCTIONS_DEFAULT.seed : check.number(src, [...at, 'seed'], { integer: true, min: 0 }),
  };
}

function loadMeasure(src) {
  const at = ['measure'];
  check.mapping(src, at, { required: ['threads', 'seconds', 'warmup_seconds', 'rounds'], optional: ['signals', 'side_schedule', 'pin_cpus'], what: 'a mapping with threads, seconds, warmup_seconds, rounds' });
  const raw = check.get(src.data, at);
  const timing = checkAgainstPlanSchema(src, at, 'measure', { seconds: raw.seconds, warmup_seconds: raw.warmup_seconds, rounds: raw.rounds });
  // Two rounds per side is the least that yields a spread of paired ratios (an extension plan
  // of the compare loop may add a single round; a suite may not plan one).
  check.number(src, [...at, 'rounds'], { integer: true, min: 2 });
  const sideSchedule = raw.side_schedule === undefined ? 'in-turn' : check.oneOf(src, [...at, 'side_schedule'], Object.keys(SIDE_SCHEDULES));
  const pinCpus = raw.pin_cpus === undefined ? 'none' : check.oneOf(src, [...at, 'pin_cpus'], PIN_CPUS);
  return { threads: threadsList(src, [...at, 'threads']), ...timing, signals: loadSignals(src, [...at, 'signals']), side_schedule: sideSchedule,
    pin_cpus: pinCpus };
}

// measure.pin_cpus: `split` runs sysbench on the last CPU of the run and mysqld on the others
// (pin-cpus.js); `none` (the default) lets both run anywhere.
const PIN_CPUS = ['split', 'none'];

// innodb_adaptive_hash_index_parts accepts 1 to 512 on every server that has it (MariaDB 10.2+,
// MySQL 5.7+).
const AHI_PARTS = { min: 1, max: 512 };

function ahiVariantName(workloadName, parts) {
  return parts === null ? workloadName : `${workloadName} parts=${parts}`;
}

function loadAhiParts(src, at) {
  const raw = check.get(src.data, at);
  if (raw === undefined) return null;
  const parts = check.list(src, at, { what: 'a non-empty list of partition counts such as [1, 8]' });
  parts.forEach((_, i) => check.number(src, [...at, i], { integer: true, ...AHI_PARTS }));
  if (new Set(parts).size !== parts.length) src.fail(at, `${show(parts)} repeats a count; expected each partition count once`);
  return [...parts];
}

function loadAhi(src) {
  const at = ['ahi'];
  check.mapping(src, at, { required: ['states', 'workloads'], optional: ['parts'], what: 'a mapping with states, workloads and optionally parts' });
  const states = check.list(src, [...at, 'states']);
  states.forEach((_, i) => check.oneOf(src, [...at, 'states', i], ['off', 'on']));
  if (new Set(states).size !== states.length) src.fail([...at, 'states'], `${show(states)} repeats a state; expected off, on or both`);
  const workloads = check.list(src, [...at, 'workloads']).map((_, i) => {
    const w = [...at, 'workloads', i];
    const raw = check.mapping(src, w, { required: ['name', 'update_percent'], optional: ['update'], what: 'a workload {name, update_percent, update}' });
    const workload = {
      name: check.string(src, [...w, 'name'], { pattern: NAME, what: 'a name of letters, digits and _ . % = + -' }),
      update_percent: check.number(src, [...w, 'update_percent'], { min: 0, max: 100 }),
      update: raw.update === undefined ? null : check.oneOf(src, [...w, 'update'], ['index', 'nonindex']),
    };
    if (workload.update_percent > 0 && workload.update === null) {
      src.fail(w, `update_percent ${workload.update_percent} needs 'update'; expected update: index or update: nonindex`);
    }
    return workload;
  });
  const seen = new Set();
  workloads.forEach((wl, i) => {
    if (seen.has(wl.name)) src.fail([...at, 'workloads', i, 'name'], `${show(wl.name)} is listed twice; expected unique workload names`);
    seen.add(wl.name);
  });
  const parts = loadAhiParts(src, [...at, 'parts']);
  // Partition count outermost: the servers restart when it changes (it is read at startup).
  const variants = (parts || [null]).flatMap((p) => workloads.map((wl) => ({ ...wl, name: ahiVariantName(wl.name, p), workload: wl.name, parts: p })));
  return { states: [...states], parts, workloads, variants };
}

function loadBenchmarkList(src, catalogue, catalogueName) {
  const names = check.list(src, ['benchmarks']);
  const seen = new Set();
  names.forEach((name, i) => {
    const at = ['benchmarks', i];
    check.string(src, at, { what: 'a microbenchmark name' });
    if (!catalogue[name]) src.fail(at, `${show(name)} is not in ${catalogueName}; expected a microbenchmark defined there`);
    if (seen.has(name)) src.fail(at, `${show(name)} is listed twice; expected each microbenchmark once`);
    seen.add(name);
  });
  return [...names];
}

// A limit of one microbenchmark at one client thread count is keyed as that row's id,
// `<name> threads=<n>` (what `perfgate calibrate` writes for a suite of several thread counts):
// A/A noise differs between 1 thread and 4 on a 2-core runner. It inherits what it leaves out
// from `<name>`, then `default`. Any thread count is accepted, so that limits calibrated with
// --threads still load.
const THREAD_KEY = /^(.+) threads=([1-9][0-9]*)$/;

function loadLimits(src, names, ahi) {
  const isAhi = ahi !== null;
  const at = ['limits'];
  const reserved = ['default', ...(isAhi ? ['ahi_gain'] : [])];
  const raw = check.mapping(src, at, {
    optional: [...reserved, ...names],
    what: 'limits per microbenchmark',
    unknown: (key) => `${show(key)} is not a microbenchmark of suite ${src.data.suite}; expected ${reserved.join(', ')}, one of: ${names.join(', ')}, or one of those followed by ' threads=<n>' (e.g. '${names[0]} threads=4')`,
    known: (key) => names.includes((THREAD_KEY.exec(key) || [])[1]),
  });
  if (!('default' in raw)) src.fail(at, `missing key 'default'; expected limits with default: {warn, fail}`);
  const def = loadLimit(src, [...at, 'default'], null);
  const byName = {};
  for (const name of names) if (name in raw) byName[name] = loadLimit(src, [...at, name], def);
  for (const key of Object.keys(raw)) {
    const perThreads = THREAD_KEY.exec(key);
    if (perThreads && names.includes(perThreads[1])) byName[key] = loadLimit(src, [...at, key], byName[perThreads[1]] || def);
  }
  // A workload's limits, and its limits at a thread count, hold for it at every partition count.
  if (ahi && ahi.parts) {
    for (const variant of ahi.variants) {
      for (const key of Object.keys(byName)) {
        const perThreads = THREAD_KEY.exec(key);
        if (key === variant.workload) byName[variant.name] = byName[key];
        else if (perThreads && perThreads[1] === variant.workload) byName[`${variant.name} threads=${perThreads[2]}`] = byName[key];
      }
    }
  }
  // AHI gain (ON/OFF QPS of one side) compared head against base: a ratio like rQPS.
  const ahiGain = 'ahi_gain' in raw ? loadLimit(src, [...at, 'ahi_gain'], null, { perQuery: false }) : null;
  return { default: def, ahi_gain: ahiGain, byName };
}

// The profile each server flavour runs with: its own (DEFAULT_PROFILES) unless the suite says
// otherwise, either for every flavour (`profile: <name>`) or flavour by flavour
// (`profile: {mysql: mysql-binlog}`; flavours left out keep their own).
function loadProfileChoice(src, profiles) {
  const choice = { ...DEFAULT_PROFILES };
  const raw = src.data.profile;
  if (raw === undefined) return choice;
  const named = (at) => {
    const name = check.string(src, at, { what: `a profile name or a mapping of ${FLAVORS.join('/')} to profile names` });
    if (!profiles[name]) src.fail(at, `${show(name)} has no profiles/${name}.cnf; expected one of: ${Object.keys(profiles).join(', ') || '(none)'}`);
    return name;
  };
  if (!check.isPlainObject(raw)) {
    const name = named(['profile']);
    for (const flavor of FLAVORS) choice[flavor] = name;
    return choice;
  }
  check.mapping(src, ['profile'], {
    optional: FLAVORS,
    what: `a mapping of ${FLAVORS.join('/')} to profile names`,
    unknown: () => `unknown server flavour; expected one of ${FLAVORS.join(', ')}`,
  });
  for (const flavor of Object.keys(raw)) choice[flavor] = named(['profile', flavor]);
  return choice;
}

function loadSuite(file, stem, catalogue, profiles, catalogueName) {
  const src = readSource(file);
  const isAhi = check.isPlainObject(src.data) && 'ahi' in src.data;
  check.mapping(src, [], {
    required: ['suite', 'scale', 'measure', 'limits', 'budget', isAhi ? 'ahi' : 'benchmarks'],
    optional: ['description', 'profile', 'instructions', 'suite_wide', 'explain'],
    what: `a suite with suite, scale, measure, ${isAhi ? 'ahi' : 'benchmarks'}, limits, budget`,
  });
  const name = check.string(src, ['suite'], { what: `the file's name, '${stem}'` });
  if (name !== stem) src.fail(['suite'], `${show(name)} differs from the file name; expected '${stem}'`);
  const profileNames = loadProfileChoice(src, profiles);
  check.mapping(src, ['scale'], { required: ['tables', 'rows'], what: 'a scale {tables, rows}' });
  const scale = { ...checkAgainstPlanSchema(src, ['scale'], 'scale', src.data.scale) };
  const measure = loadMeasure(src);
  const benchmarks = isAhi ? null : loadBenchmarkList(src, catalogue, catalogueName);
  const ahi = isAhi ? loadAhi(src) : null;
  const names = isAhi ? ahi.workloads.map((w) => w.name) : benchmarks;
  const limits = loadLimits(src, names, ahi);
  const ddl = checkDdlSuite(src, benchmarks, catalogue, measure, scale);
  const tpcc = checkTpccSuite(src, benchmarks, catalogue, measure, scale);
  if (measure.signals.includes('instructions')) {
    if (isAhi) src.fail(['measure', 'signals'], 'instructions are not counted for AHI cells; expected [time]');
    benchmarks.forEach((b, i) => {
      if (!catalogue[b].instructions) src.fail(['benchmarks', i], `${show(b)} has no instructions.events in ${catalogueName}; expected one for every microbenchmark of a suite that counts instructions`);
    });
    if (!limits.default.instructions) src.fail(['limits', 'default'], 'has no instructions limits; expected instructions: {warn, fail} when measure.signals include instructions, e.g. {warn: 0.97, fail: 0.93, instructions: {warn: 1.02, fail: 1.05}}');
  }
  return {
    name,
    file: src.file,
    description: src.data.description === undefined ? '' : check.string(src, ['description']),
    profiles: profileNames,
    scale,
    measure,
    benchmarks,
    ahi,
    ddl,
    tpcc,
    names,
    limits,
    instructions: loadInstructions(src),
    budget: loadBudget(src),
    suite_wide: loadSuiteWide(src, limits.default, names.length),
    explain: loadExplainBudget(src),
  };
}

// learned/<suite>.yml beside suites/: limits learned from main's history (config/learned-limits.js),
// kept on the suite as `learned` ({file, runner, runs, byName}); a suite without one has null.
function loadLearnedFiles(root, suites) {
  for (const suite of Object.values(suites)) suite.learned = null;
  const dir = path.join(root, LEARNED_DIR);
  if (!isDirectory(dir)) return;
  for (const entry of fs.readdirSync(dir).sort()) {
    if (!entry.endsWith('.yml')) continue;
    const stem = entry.slice(0, -'.yml'.length);
    const file = path.join(dir, entry);
    if (!suites[stem]) {
      throw new ConfigError(`${displayPath(file)}: no ${SUITES_DIR}/${stem}.yml beside it; expected learned limits of one of: ${Object.keys(suites).join(', ') || '(none)'}`);
    }
    suites[stem].learned = loadLearned(readSource(file), suites[stem], THREAD_KEY);
  }
}

// A learned file's text as `perfgate limits learn` is about to write it, checked as the loader will read it.
function checkLearnedText(text, file, suite) {
  return loadLearned(new YamlSource(displayPath(file), text), suite, THREAD_KEY);
}

function isDirectory(dir) {
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory();
}

/**
 * @param dir  a thresholds folder: suites/<name>.yml, and optionally its own benchmarks.yml
 *             and profiles/ on top of the shipped ones
 */
function loadThresholds(dir = SHIPPED_DIR) {
  const root = path.resolve(dir);
  if (!isDirectory(root)) {
    throw new ConfigError(`${displayPath(root)}: not a directory; expected a thresholds folder holding ${SUITES_DIR}/<suite>.yml`);
  }
  const suitesDir = path.join(root, SUITES_DIR);
  if (!isDirectory(suitesDir)) {
    throw new ConfigError(`${displayPath(root)}: no ${SUITES_DIR}/ folder; expected a thresholds folder holding ${SUITES_DIR}/<suite>.yml`);
  }
  const catalogue = loadCatalogue(path.join(SHIPPED_DIR, CATALOGUE_FILE));
  const forkCatalogue = path.join(root, CATALOGUE_FILE);
  if (root !== SHIPPED_DIR && fs.existsSync(forkCatalogue)) Object.assign(catalogue, loadCatalogue(forkCatalogue));
  const profiles = loadProfiles(SHIPPED_DIR);
  if (root !== SHIPPED_DIR) Object.assign(profiles, loadProfiles(root));
  const catalogueName = root !== SHIPPED_DIR && fs.existsSync(forkCatalogue) ? `${displayPath(forkCatalogue)} or the shipped ${CATALOGUE_FILE}` : displayPath(path.join(SHIPPED_DIR, CATALOGUE_FILE));
  const suites = {};
  for (const entry of fs.readdirSync(suitesDir).sort()) {
    if (!entry.endsWith('.yml')) continue;
    const stem = entry.slice(0, -'.yml'.length);
    suites[stem] = loadSuite(path.join(suitesDir, entry), stem, catalogue, profiles, catalogueName);
  }
  loadLearnedFiles(root, suites);
  return { dir: root, catalogue, profiles, suites };
}

// The suite a command asked for, or a usage error listing the suites of that folder.
function findSuite(config, suiteName) {
  const suite = config.suites[suiteName];
  if (!suite) {
    const known = Object.keys(config.suites);
    throw new ConfigError(`--suite '${suiteName}': no ${SUITES_DIR}/${suiteName}.yml in ${config.dir}; expected one of: ${known.join(', ') || '(none)'}`);
  }
  return suite;
}

/**
 * A copy of `config` whose suite `suiteName` lists only `names` (in the suite's order), or
 * `config` itself when `names` is null; `option` names where the list came from in errors.
 */
function narrowSuite(config, suiteName, names, option = '--benchmarks') {
  const suite = findSuite(config, suiteName);
  if (!names) return config;
  if (!suite.benchmarks) throw new ConfigError(`${option}: suite ${suiteName} has no benchmark list; expected a suite that lists microbenchmarks`);
  const unknown = names.filter((n) => !suite.benchmarks.includes(n));
  if (unknown.length) throw new ConfigError(`${option}: ${unknown.map((n) => `'${n}'`).join(', ')} not in suite ${suiteName}; expected some of: ${suite.benchmarks.join(', ')}`);
  return { ...config, suites: { ...config.suites, [suiteName]: { ...suite, benchmarks: suite.benchmarks.filter((b) => names.includes(b)) } } };
}

function limitsFor(suite, name) {
  return suite.limits.byName[name] || suite.limits.default;
}

module.exports = { loadThresholds, findSuite, narrowSuite, limitsFor, checkLearnedText, SHIPPED_DIR, LEARNED_DIR };
