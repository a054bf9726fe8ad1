'use strict';
// The DDL suites: their catalogue entries, the rules a DDL suite follows and the plan they give.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { resolvePlan } = require('../../../core/src/plan');
const { thresholdsWith, lineOf, configErrorOf: errorOf, expectConfigErrors } = require('../../support/thresholds-copy');

const SIDES = { base: { basedir: '/opt/base' }, head: { basedir: '/opt/head' } };
const STATEMENTS = ['add-index', 'drop-index', 'add-column-instant', 'add-column-rebuild', 'optimize', 'load-data', 'load-data-ahi'];
const replace = (from, to) => (text) => {
  assert.ok(text.includes(from) || from instanceof RegExp, `the shipped file holds ${from}`);
  return text.replace(from, to);
};

test('the shipped DDL suites time the same statements, the pull request\'s on a small table', () => {
  const config = loadThresholds();
  const quick = config.suites['ddl-quick'];
  const large = config.suites.ddl;
  assert.deepEqual([quick.ddl, large.ddl, config.suites.quick.ddl], [true, true, false]);
  assert.deepEqual(quick.benchmarks, STATEMENTS);
  assert.deepEqual(large.benchmarks, STATEMENTS);
  assert.equal(quick.scale.tables, 1);
  assert.ok(large.scale.rows >= 10 * quick.scale.rows, `${large.scale.rows} rows against ${quick.scale.rows}`);
  assert.deepEqual(config.catalogue['add-index-parallel'].ddl.session, { innodb_ddl_threads: 4, innodb_parallel_read_threads: 4 });
});

test('a DDL suite\'s plan carries each statement as sent, and its shape is that statement', () => {
  const plan = resolvePlan(loadThresholds(), 'ddl-quick', { rows: 500 }, SIDES);
  assert.equal(plan.scale.rows, 500);
  assert.deepEqual(plan.measure.signals, ['time', 'instructions']);
  assert.deepEqual(plan.profiles.mariadb.name, 'ddl-mariadb');
  const [addIndex] = plan.benchmarks;
  assert.deepEqual(addIndex, {
    id: 'add-index', name: 'add-index', group: 'ddl', kind: 'write', script: 'perfgate_ddl', options: {}, threads: 1,
    shape: 'ALTER TABLE employees ADD INDEX idx_name (last_name, first_name), ALGORITHM=INPLACE, LOCK=NONE',
    ddl: { statement: 'ALTER TABLE employees ADD INDEX idx_name (last_name, first_name), ALGORITHM=INPLACE, LOCK=NONE', session: {} },
    instructions_events: 1,
  });
  assert.deepEqual(plan.benchmarks.map((b) => b.id), STATEMENTS);
  assert.equal(plan.benchmarks.find((b) => b.id === 'optimize').ddl.statement, 'OPTIMIZE TABLE employees');
});

test('a bulk load names its rows\' order and no statement or file: the harness owns both (the plan checked against its schema)', () => {
  const plan = resolvePlan(loadThresholds(), 'ddl', { rows: 500 }, SIDES);
  const load = plan.benchmarks.find((b) => b.id === 'load-data');
  assert.deepEqual(load, {
    id: 'load-data', name: 'load-data', group: 'ddl', kind: 'write', script: 'perfgate_ddl', options: {}, threads: 1,
    shape: "LOAD DATA LOCAL INFILE <employees' rows sorted by emp_no> INTO TABLE employees_load",
    ddl: { load: { sorted: 'primary' }, session: {} },
  });
});

test('a row\'s server-wide settings go into its plan and its shape says them first', () => {
  const plan = resolvePlan(loadThresholds(), 'ddl-quick', { rows: 500 }, SIDES);
  const ahi = plan.benchmarks.find((b) => b.id === 'load-data-ahi');
  assert.deepEqual(ahi.ddl, { load: { sorted: 'primary' }, session: {}, global: { innodb_adaptive_hash_index: 'ON' } });
  assert.equal(ahi.shape, "SET GLOBAL innodb_adaptive_hash_index = ON; LOAD DATA LOCAL INFILE <employees' rows sorted by emp_no> INTO TABLE employees_load");
  // A row without them carries none.
  assert.equal('global' in plan.benchmarks.find((b) => b.id === 'load-data').ddl, false);
});

test('a DDL suite asked for instructions counts one statement a window', () => {
  const plan = resolvePlan(loadThresholds(), 'ddl-quick', { signals: ['time', 'instructions'] }, SIDES);
  assert.deepEqual(plan.benchmarks.map((b) => b.instructions_events), plan.benchmarks.map(() => 1));
});

test('DDL entries and DDL suites with bad keys are refused naming file, line, key and the expected form', async (t) => {
  const entry = 'add-index:\n    group: ddl\n    kind: write\n    statement: "ALTER TABLE employees ADD INDEX idx_name (last_name, first_name), ALGORITHM=INPLACE, LOCK=NONE"';
  const statementForm = "one statement on employees without ';': ALTER TABLE employees …, OPTIMIZE TABLE employees, CREATE INDEX <name> ON employees … or DROP INDEX <name> ON employees";
  const cases = [
    {
      name: 'two statements in one',
      edits: { 'benchmarks.yml': replace('statement: "OPTIMIZE TABLE employees"', 'statement: "OPTIMIZE TABLE employees; DROP TABLE employees"') },
      file: 'benchmarks.yml', at: 'OPTIMIZE TABLE employees; DROP',
      expect: (f, l) => `${f}:${l}: benchmarks.optimize.statement: 'OPTIMIZE TABLE employees; DROP TABLE employees' is not valid; expected ${statementForm}`,
    },
    {
      name: 'a statement on another table',
      edits: { 'benchmarks.yml': replace('statement: "OPTIMIZE TABLE employees"', 'statement: "OPTIMIZE TABLE mysql.user"') },
      file: 'benchmarks.yml', at: 'OPTIMIZE TABLE mysql.user',
      expect: (f, l) => `${f}:${l}: benchmarks.optimize.statement: 'OPTIMIZE TABLE mysql.user' is not valid; expected ${statementForm}`,
    },
    {
      name: 'a session value that is not a word',
      edits: { 'benchmarks.yml': replace('innodb_ddl_threads: 4,', 'innodb_ddl_threads: "4; DROP TABLE x",') },
      file: 'benchmarks.yml', at: 'innodb_ddl_threads: "4',
      expect: (f, l) => `${f}:${l}: benchmarks.add-index-parallel.session.innodb_ddl_threads: '4; DROP TABLE x' is not valid; expected an integer >= 0 or a word of letters, digits and _`,
    },
    {
      name: 'a session variable name that is not one',
      edits: { 'benchmarks.yml': replace('innodb_ddl_threads: 4,', '"x = 1, y": 4,') },
      file: 'benchmarks.yml', at: '"x = 1, y": 4',
      expect: (f, l) => `${f}:${l}: benchmarks.add-index-parallel.session.x = 1, y: 'x = 1, y' is not a variable name; expected lower-case letters, digits and _`,
    },
    {
      name: 'a bulk load with a statement too',
      edits: { 'benchmarks.yml': replace('    load: {sorted: primary}', '    load: {sorted: primary}\n    statement: "OPTIMIZE TABLE employees"') },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  load-data:'),
      expect: (f, l) => `${f}:${l}: benchmarks.load-data: both 'statement' and 'load'; expected one of them (a statement to send, or load: {sorted: primary})`,
    },
    {
      name: 'a DDL entry with neither a statement nor a load',
      edits: { 'benchmarks.yml': replace('    load: {sorted: primary}\n', '') },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  load-data:'),
      expect: (f, l) => `${f}:${l}: benchmarks.load-data: neither 'statement' nor 'load'; expected one of them (a statement to send, or load: {sorted: primary})`,
    },
    {
      name: 'a server-wide value that is not a word',
      edits: { 'benchmarks.yml': replace("global: {innodb_adaptive_hash_index: 'ON'}", "global: {innodb_adaptive_hash_index: 'ON; SHUTDOWN'}") },
      file: 'benchmarks.yml', at: "global: {innodb_adaptive_hash_index: 'ON; SHUTDOWN'}",
      expect: (f, l) => `${f}:${l}: benchmarks.load-data-ahi.global.innodb_adaptive_hash_index: 'ON; SHUTDOWN' is not valid; expected an integer >= 0 or a word of letters, digits and _`,
    },
    {
      name: 'server-wide settings that are not a mapping',
      edits: { 'benchmarks.yml': replace("global: {innodb_adaptive_hash_index: 'ON'}", "global: 'innodb_adaptive_hash_index=ON'") },
      file: 'benchmarks.yml', at: "global: 'innodb_adaptive_hash_index=ON'",
      expect: (f, l) => `${f}:${l}: benchmarks.load-data-ahi.global: 'innodb_adaptive_hash_index=ON' is not a mapping; expected a mapping of global variables to values, e.g. {innodb_adaptive_hash_index: ON}`,
    },
    {
      name: 'a bulk load in another order',
      edits: { 'benchmarks.yml': replace('    load: {sorted: primary}', '    load: {sorted: salary}') },
      file: 'benchmarks.yml', at: 'load: {sorted: salary}',
      expect: (f, l) => `${f}:${l}: benchmarks.load-data.load.sorted: 'salary' is not valid; expected one of: primary`,
    },
    {
      name: 'a bulk load naming its own file',
      edits: { 'benchmarks.yml': replace('    load: {sorted: primary}', '    load: {sorted: primary, file: /etc/passwd}') },
      file: 'benchmarks.yml', at: 'load: {sorted: primary, file',
      expect: (f, l) => `${f}:${l}: benchmarks.load-data.load.file: unknown key; expected one of: sorted`,
    },
    {
      name: 'a bulk load that is not a mapping',
      edits: { 'benchmarks.yml': replace('    load: {sorted: primary}', '    load: "LOAD DATA INFILE \'/etc/passwd\' INTO TABLE employees"') },
      file: 'benchmarks.yml', at: '    load: "LOAD DATA',
      expect: (f, l) => `${f}:${l}: benchmarks.load-data.load: 'LOAD DATA INFILE '/etc/passwd' INTO TABLE employees' is not a mapping; expected a bulk load {sorted: primary}`,
    },
    {
      name: 'a sysbench key on a DDL entry',
      edits: { 'benchmarks.yml': replace(entry, `${entry}\n    script: oltp_insert`) },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  add-index:') + 4,
      expect: (f, l) => `${f}:${l}: benchmarks.add-index.script: unknown key; expected one of: group, kind, statement, load, session, global`,
    },
    {
      name: 'a DDL entry that says it reads',
      edits: { 'benchmarks.yml': replace(entry, entry.replace('kind: write', 'kind: read')) },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  add-index:') + 2,
      expect: (f, l) => `${f}:${l}: benchmarks.add-index.kind: 'read' is not valid; expected one of: write`,
    },
    {
      name: 'a suite mixing DDL statements and microbenchmarks',
      edits: { 'suites/ddl-quick.yml': replace('  - load-data\n', '  - load-data\n  - point-query\n') },
      file: 'suites/ddl-quick.yml', at: '  - point-query',
      expect: (f, l) => `${f}:${l}: benchmarks[6]: 'point-query' is a microbenchmark, 'add-index' a DDL statement; expected a suite of DDL statements only or of microbenchmarks only`,
    },
    {
      name: 'a DDL suite of two tables',
      edits: { 'suites/ddl-quick.yml': replace('  tables: 1 ', '  tables: 2 ') },
      file: 'suites/ddl-quick.yml', at: '  tables: 2',
      expect: (f, l) => `${f}:${l}: scale.tables: 2 is not valid; expected 1 (a DDL suite times its statements on one table, employees)`,
    },
    {
      name: 'a DDL suite counting instructions with no limits for them',
      edits: { 'suites/ddl-quick.yml': replace(', instructions: {warn: 1.015, fail: 1.03}}', '}') },
      file: 'suites/ddl-quick.yml', at: '  default:',
      expect: (f, l) => `${f}:${l}: limits.default: has no instructions limits; expected instructions: {warn, fail} when measure.signals include instructions, e.g. {warn: 0.97, fail: 0.93, instructions: {warn: 1.02, fail: 1.05}}`,
    },
    {
      name: 'a DDL suite with the sides together',
      edits: { 'suites/ddl-quick.yml': replace('  signals: [time, instructions]', '  signals: [time, instructions]\n  side_schedule: together') },
      file: 'suites/ddl-quick.yml', at: 'side_schedule: together',
      expect: (f, l) => `${f}:${l}: measure.side_schedule: 'together' is not valid; expected in-turn (each statement runs on a server restarted on a fresh copy, one side after the other)`,
    },
    {
      name: 'a DDL suite with client threads',
      edits: { 'suites/ddl-quick.yml': replace('  threads: 1', '  threads: [1, 4]') },
      file: 'suites/ddl-quick.yml', at: '  threads: [1, 4]',
      expect: (f, l) => `${f}:${l}: measure.threads: [1,4] is not valid; expected 1 (one statement at a time)`,
    },
  ];
  await expectConfigErrors(t, cases);
});

test('a sysbench entry cannot name the DDL runner as its script', () => {
  const dir = thresholdsWith({ 'benchmarks.yml': replace('    script: perfgate_scan', '    script: perfgate_ddl') });
  assert.match(errorOf(dir), /benchmarks\.scan_range=100\.script: "perfgate_ddl" is not valid; expected one of: oltp_delete, /);
});
