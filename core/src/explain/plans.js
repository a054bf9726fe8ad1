'use strict';
// Plans: EXPLAIN FORMAT=JSON of each statement shape the row's workload sends, the same text on
// both sides; a plan that changed is a finding. MariaDB's and MySQL's EXPLAIN JSON differ in
// form (rows / rows_examined_per_scan, filesort / using_filesort, temporary_table /
// using_temporary_table): both are read into one list of table accesses per plan. Pure.
//
// The rule (docs/explain.md#the-rules): tables are
// matched by name; a change of COMPARED counts, and of the rows estimate only at ROWS_RATIO or
// more either way. Two processes on the same data copy give identical plans, rows included;
// separately loaded data moves the estimate by a tenth.
const ROWS_RATIO = 2;
// What a table access is compared on, exactly.
const COMPARED = ['access_type', 'key', 'used_key_parts', 'using_index', 'index_condition'];
// What a plan does as a whole (MariaDB's key, MySQL's flag).
const OPERATIONS = [
  { name: 'filesort', mariadb: 'filesort', mysql: 'using_filesort' },
  { name: 'temporary_table', mariadb: 'temporary_table', mysql: 'using_temporary_table' },
];

const plain = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

// One table access of an EXPLAIN JSON object that names a table.
function accessOf(t) {
  const rows = typeof t.rows === 'number' ? t.rows : typeof t.rows_examined_per_scan === 'number' ? t.rows_examined_per_scan : null;
  return {
    table: String(t.table_name),
    access_type: t.access_type === undefined ? null : String(t.access_type),
    key: t.key === undefined ? null : String(t.key),
    used_key_parts: Array.isArray(t.used_key_parts) ? t.used_key_parts.map(String).join(',') : null,
    using_index: t.using_index === true,
    index_condition: t.index_condition !== undefined && t.index_condition !== false,
    rows,
  };
}

/** The table accesses and operations of one EXPLAIN FORMAT=JSON document, in document order. */
function readPlan(doc) {
  const tables = [];
  const operations = new Set();
  const walk = (node, depth) => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (const x of node) walk(x, depth + 1);
      return;
    }
    if (!plain(node)) return;
    if (typeof node.table_name === 'string') tables.push(accessOf(node));
    for (const op of OPERATIONS) if (node[op.mariadb] !== undefined || node[op.mysql] === true) operations.add(op.name);
    for (const [k, v] of Object.entries(node)) if (k !== 'table_name') walk(v, depth + 1);
  };
  walk(doc, 0);
  return { tables, operations: [...operations].sort() };
}

// Tables of one side by name; the second of a name is "<name>#2".
function byName(tables) {
  const seen = new Map();
  return new Map(tables.map((t) => {
    const n = (seen.get(t.table) || 0) + 1;
    seen.set(t.table, n);
    return [n === 1 ? t.table : `${t.table}#${n}`, t];
  }));
}

// How a table is read, as the words of a change name it.
const pathOf = (t) => ({ access_type: t.access_type, key: t.key, rows: t.rows });

// The changes between two plans: [{table, what, base, head}] (what: a COMPARED key, 'rows',
// 'table' for a table one side does not read, 'operation').
function changesOf(base, head) {
  const changes = [];
  const b = byName(base.tables);
  const h = byName(head.tables);
  for (const name of new Set([...b.keys(), ...h.keys()])) {
    const x = b.get(name);
    const y = h.get(name);
    if (!x || !y) {
      changes.push({ table: name, what: 'table', base: x ? pathOf(x) : null, head: y ? pathOf(y) : null });
      continue;
    }
    const path = { from: pathOf(x), to: pathOf(y) };
    for (const key of COMPARED) if (x[key] !== y[key]) changes.push({ table: name, what: key, base: x[key], head: y[key], ...path });
    const ratio = x.rows > 0 && y.rows > 0 ? Math.max(x.rows / y.rows, y.rows / x.rows) : null;
    const zero = x.rows !== null && y.rows !== null && (x.rows === 0) !== (y.rows === 0);
    if (ratio >= ROWS_RATIO || zero) changes.push({ table: name, what: 'rows', base: x.rows, head: y.rows, ...path });
  }
  for (const op of OPERATIONS) {
    const inB = base.operations.includes(op.name);
    const inH = head.operations.includes(op.name);
    if (inB !== inH) changes.push({ table: null, what: 'operation', operation: op.name, base: inB, head: inH });
  }
  return changes;
}

// How much a change weighs when several shapes changed: an access path first, then a table
// read or not, an operation, what else, the rows estimate alone last.
const WEIGHT = { access_type: 0, key: 1, table: 2, operation: 3, used_key_parts: 4, index_condition: 5, using_index: 6, rows: 7 };
const weightOf = (changes) => Math.min(...changes.map((c) => WEIGHT[c.what]));

/**
 * @param plans  the row's plans: {shapes: [{shape, sql, base: EXPLAIN JSON | null, head: … | null, error?}]}
 * @returns {findings: [{kind: 'plans', shape, changes}], problem, compared: shapes compared,
 *          not_compared: [{shape, why}]}
 */
function planFindings(plans) {
  const shapes = (plans && Array.isArray(plans.shapes)) ? plans.shapes : null;
  if (!shapes || !shapes.length) return { findings: [], problem: 'no statement shapes captured', compared: 0, not_compared: [] };
  const findings = [];
  const notCompared = [];
  let compared = 0;
  for (const s of shapes) {
    if (s.error || !plain(s.base) || !plain(s.head)) {
      notCompared.push({ shape: String(s.shape), why: s.error ? String(s.error) : `no plan of the ${plain(s.base) ? 'head' : 'base'}` });
      continue;
    }
    compared += 1;
    const changes = changesOf(readPlan(s.base), readPlan(s.head));
    if (changes.length) findings.push({ kind: 'plans', shape: String(s.shape), changes });
  }
  findings.sort((x, y) => weightOf(x.changes) - weightOf(y.changes));
  return { findings, problem: compared ? null : 'no shape has a plan of both sides', compared, not_compared: notCompared };
}

module.exports = { planFindings, readPlan, ROWS_RATIO, COMPARED };
