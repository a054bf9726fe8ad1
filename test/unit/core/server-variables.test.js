'use strict';
// The server variables that differ between the sides (SHOW GLOBAL VARIABLES), each side's own
// paths and port aside: often the whole explanation of a difference.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const R = require('../../../core/src/render');
const { variableRows, variablesLine } = require('../../../core/src/render/format');
const { capturedResults, loadResults } = require('../../support/captured-results');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const real = () => loadResults(capturedResults().find((c) => c.name === 'io-tiny').file);

// The variables a side's own paths and port reach, as MariaDB 10.11 reports them.
function variables(side, extra = {}) {
  const o = side.options;
  return {
    basedir: `${o.basedir}/`, datadir: `${o.datadir}/`, tmpdir: o.tmpdir, socket: o.socket, port: o.port, pid_file: o.pid_file,
    log_error: o.log_error, lc_messages_dir: `${o.basedir}/share/mariadb`, character_sets_dir: `${o.basedir}/share/mariadb/charsets/`,
    general_log_file: 'vm.log', innodb_buffer_pool_size: '1073741824', innodb_adaptive_hash_index: 'OFF', report_port: o.port,
    server_uid: side === undefined ? '' : `uid-of-${o.port}`, ...extra,
  };
}

function withVariables(baseExtra, headExtra) {
  const r = real();
  r.sides.base.variables = variables(r.sides.base, baseExtra);
  r.sides.head.variables = variables(r.sides.head, headExtra);
  return r;
}

test('paths and ports of each side are not differences; a changed default and the versions are', () => {
  const r = withVariables({ version: '10.11.18-MariaDB-0+deb12u1' }, { version: '10.11.19-MariaDB-0+deb12u1', innodb_adaptive_hash_index: 'ON', innodb_adaptive_hash_index_parts: '8' });
  assert.notEqual(r.sides.base.options.datadir, r.sides.head.options.datadir);
  const rows = variableRows(r.sides);
  assert.deepEqual(rows, [
    { name: 'innodb_adaptive_hash_index', base: 'OFF', head: 'ON', version: false },
    { name: 'innodb_adaptive_hash_index_parts', base: undefined, head: '8', version: false },
    { name: 'version', base: '10.11.18-MariaDB-0+deb12u1', head: '10.11.19-MariaDB-0+deb12u1', version: true },
  ]);
  assert.equal(variablesLine(rows), 'innodb_adaptive_hash_index (OFF → ON), innodb_adaptive_hash_index_parts (absent → 8); and 1 version variable');
  const v = judge(r, CONFIG);
  const md = R.renderComment(v);
  assert.ok(md.includes('<details><summary>Server variables that differ (SHOW GLOBAL VARIABLES): innodb_adaptive_hash_index (OFF → ON), innodb_adaptive_hash_index_parts (absent → 8); and 1 version variable</summary>'));
  assert.ok(md.includes('| innodb_adaptive_hash_index | OFF | ON |'));
  assert.ok(md.includes('| innodb_adaptive_hash_index_parts | absent | 8 |'));
  assert.ok(R.renderSummary(v).includes('| version | 10\\.11.18-MariaDB-0+deb12u1 | 10\\.11.19-MariaDB-0+deb12u1 |'));
  assert.ok(R.renderVerdictTable(v).includes('\nserver variables that differ: innodb_adaptive_hash_index (OFF → ON), innodb_adaptive_hash_index_parts (absent → 8); and 1 version variable\n'));
  assert.match(R.renderReport(v), /<table data-table="variables"><tr><th>variable<\/th><th>base<\/th><th>head<\/th><\/tr>\n<tr><td>innodb_adaptive_hash_index<\/td><td>OFF<\/td><td>ON<\/td><\/tr>/);
});

test("MySQL's build_id is a version variable: two builds of one source differ in it and in nothing that is a setting", () => {
  const r = withVariables({ build_id: '6771bb7f9e118831e5dfb38a437d0023516b9f41' }, { build_id: 'eede862fadb25e6f36a0001db3ae3bd31bb08100' });
  const rows = variableRows(r.sides);
  assert.deepEqual(rows.map((x) => [x.name, x.version]), [['build_id', true]]);
  assert.equal(variablesLine(rows), '1 version variable');
});

test('the same variables on both sides: the reports say none differ', () => {
  const v = judge(withVariables({}, {}), CONFIG);
  assert.ok(R.renderComment(v).includes('Server variables (SHOW GLOBAL VARIABLES): none differ between the sides, their own paths and port aside.'));
  assert.doesNotMatch(R.renderVerdictTable(v), /server variables that differ/);
});

test('results without variables (written before they were captured) show no section', () => {
  const v = judge(real(), CONFIG);
  assert.doesNotMatch(R.renderComment(v), /Server variables/);
  assert.doesNotMatch(R.renderReport(v), /data-table="variables"/);
});

test('two majors differ in hundreds of variables: the comment lists 40 and points to report.html', () => {
  const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`var_${String(i).padStart(3, '0')}`, String(i)]));
  const v = judge(withVariables(many, {}), CONFIG);
  const md = R.renderComment(v);
  assert.equal(md.split('\n').filter((l) => /^\| var_\d{3} \|/.test(l)).length, 40);
  assert.ok(md.includes('_260 more in report.html._'));
  assert.ok(md.includes('var_000 (0 → absent), var_001 (1 → absent)'));
  assert.equal((R.renderReport(v).match(/<tr><td>var_\d{3}<\/td>/g) || []).length, 300);
});

test('a variable value from a hostile results file cannot break the table or the page', () => {
  const v = judge(withVariables({ init_connect: 'a | b\n<script>alert(1)</script>' }, { init_connect: '' }), CONFIG);
  assert.ok(R.renderComment(v).includes('| init_connect | a \\| b \\<script>alert(1)\\</script> |  |'));
  assert.doesNotMatch(R.renderReport(v), /<script>alert/);
});
