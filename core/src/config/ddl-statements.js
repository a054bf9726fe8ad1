'use strict';
// DDL statements: catalogue entries of `group: ddl` and the suites that time them
// (docs/suites.md, "The DDL suites"). Each runs on `employees`, the table of MySQL bug 116738,
// loaded with generated rows (harness/perfgate_harness/ddl_workload.py); one statement is one
// timed round, on a server restarted on a fresh copy of the prepared datadir. What is sent is
// exactly `statement`, after `SET SESSION` of each `session` variable, so it is its own shape.
// A bulk load (`load: {sorted: primary}`) names no statement and no file: the harness writes
// the table's rows to a file of its own and sends LOAD DATA LOCAL INFILE of it into an empty
// copy of the table made untimed (docs/suites.md, "Bulk load").
const check = require('./checks');
const { show } = require('./yaml-source');

const DDL_SCRIPT = 'perfgate_ddl';
const TABLE = 'employees';
// One statement on the prepared table, nothing after it: the harness times it alone.
const STATEMENT = new RegExp(`^(ALTER TABLE ${TABLE}|OPTIMIZE TABLE ${TABLE}|CREATE (UNIQUE )?INDEX \\w+ ON ${TABLE}|DROP INDEX \\w+ ON ${TABLE})\\b[^;\\n\\u0000]*$`, 'i');
const STATEMENT_FORM = `one statement on ${TABLE} without ';': ALTER TABLE ${TABLE} …, OPTIMIZE TABLE ${TABLE}, CREATE INDEX <name> ON ${TABLE} … or DROP INDEX <name> ON ${TABLE}`;
const VARIABLE = /^[a-z][a-z0-9_]*$/;
// The one order a bulk load's rows come in: by the primary key, emp_no, as the table holds them.
const LOAD_ORDERS = ['primary'];
const LOAD_SHAPE = `LOAD DATA LOCAL INFILE <${TABLE}' rows sorted by emp_no> INTO TABLE ${TABLE}_load`;
// Session values are written into `SET SESSION name = value`: integers and bare words only.
const WORD = /^[A-Za-z0-9_]+$/;

function loadDdlEntry(src, at, name) {
  const raw = check.mapping(src, at, { required: ['group', 'kind'], optional: ['statement', 'load', 'session', 'global'], what: 'a DDL statement {group: ddl, kind: write, statement, session, global} or a bulk load {group: ddl, kind: write, load: {sorted: primary}, global}' });
  check.oneOf(src, [...at, 'kind'], ['write']);
  if ((raw.statement === undefined) === (raw.load === undefined)) {
    src.fail(at, `${raw.statement === undefined ? "neither 'statement' nor" : "both 'statement' and"} 'load'; expected one of them (a statement to send, or load: {sorted: primary})`);
  }
  const session = loadVariables(src, at, raw, 'session', '{innodb_ddl_threads: 4}');
  // Server-wide settings for this row alone (each timing starts a server of its own): e.g. the
  // adaptive hash index on while a bulk load fills the table.
  const global = loadVariables(src, at, raw, 'global', '{innodb_adaptive_hash_index: ON}');
  const globalPart = Object.keys(global).length ? { global } : {};
  // The shape says what is sent: the row's server-wide settings first.
  const withGlobals = (shape) => [...Object.entries(global).map(([k, v]) => `SET GLOBAL ${k} = ${v}`), shape].join('; ');
  if (raw.load !== undefined) {
    check.mapping(src, [...at, 'load'], { required: ['sorted'], what: 'a bulk load {sorted: primary}' });
    check.oneOf(src, [...at, 'load', 'sorted'], LOAD_ORDERS);
    return ddlEntry(name, withGlobals(LOAD_SHAPE), { load: { sorted: raw.load.sorted }, session, ...globalPart });
  }
  const statement = check.string(src, [...at, 'statement'], { pattern: STATEMENT, what: STATEMENT_FORM });
  return ddlEntry(name, withGlobals(statement), { statement, session, ...globalPart });
}

// `session` (SET SESSION before the statement) or `global` (SET GLOBAL once the row's server is up).
function loadVariables(src, at, raw, key, example) {
  const out = {};
  if (raw[key] === undefined) return out;
  const vars = check.mapping(src, [...at, key], { anyKeys: true, what: `a mapping of ${key} variables to values, e.g. ${example}` });
  for (const [name, value] of Object.entries(vars)) {
    if (!VARIABLE.test(name)) src.fail([...at, key, name], `${show(name)} is not a variable name; expected lower-case letters, digits and _`);
    const ok = (Number.isInteger(value) && value >= 0) || (typeof value === 'string' && WORD.test(value));
    if (!ok) src.fail([...at, key, name], `${show(value)} is not valid; expected an integer >= 0 or a word of letters, digits and _`);
    out[name] = value;
  }
  return out;
}

// An instruction window is one statement on a fresh copy of the table, made uncounted before it.
function ddlEntry(name, shape, ddl) {
  return { name, group: 'ddl', kind: 'write', script: DDL_SCRIPT, options: {}, shape, instructions: { events: 1 }, ddl };
}

// A suite lists DDL statements only or microbenchmarks only: the two load different tables.
// Returns whether it is a DDL suite; fails at the first rule a DDL suite breaks.
function checkDdlSuite(src, benchmarks, catalogue, measure, scale) {
  if (!check.groupOnly(src, benchmarks, catalogue, 'ddl', (other, first) => `${other} is a microbenchmark, ${first} a DDL statement; expected a suite of DDL statements only or of microbenchmarks only`)) return false;
  if (scale.tables !== 1) src.fail(['scale', 'tables'], `${show(scale.tables)} is not valid; expected 1 (a DDL suite times its statements on one table, ${TABLE})`);
  if (measure.threads.length !== 1 || measure.threads[0] !== 1) src.fail(['measure', 'threads'], `${show(src.data.measure.threads)} is not valid; expected 1 (one statement at a time)`);
  check.inTurn(src, measure, 'statement');
  return true;
}

module.exports = { loadDdlEntry, checkDdlSuite, DDL_SCRIPT, DDL_TABLE: TABLE };
