'use strict';
// Every catalogue `shape:` says what one event really sends: the index hint perfgate.index_hint
// adds (harness/perfgate_harness/lua/perfgate_common.lua) where the script calls it and the
// options leave it on, none where they turn it off; a range's size and an ORDER BY … LIMIT as
// the options set them.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { loadThresholds } = require('../../../core/src/config/thresholds');

const LUA = path.join(__dirname, '../../../harness/perfgate_harness/lua');
const config = loadThresholds();
const entries = Object.values(config.catalogue).filter((e) => e.group !== 'ddl');

const luaOf = (script) => {
  const file = path.join(LUA, `${script}.lua`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
};
// The option whose value perfgate.index_hint is called with, e.g. range_on; null: no hint.
const hintColumnOption = (lua) => (lua.match(/perfgate\.index_hint\(sysbench\.opt\.(\w+)/) || [])[1] || null;
// A string option's default, from its sysbench.cmdline.options line.
const defaultOf = (lua, option) => {
  const m = lua.match(new RegExp(`sysbench\\.cmdline\\.options\\.${option} = \\{"[^"]*", "(\\w+)"\\}`));
  assert.ok(m, `no default of --${option} in the script`);
  return m[1];
};

test('the scripts that add an index hint are the in-list and range scripts, and the hint follows their column', () => {
  const hinted = fs.readdirSync(LUA).filter((f) => hintColumnOption(fs.readFileSync(path.join(LUA, f), 'utf8'))).sort();
  assert.deepEqual(hinted, ['perfgate_points.lua', 'perfgate_range.lua']);
  assert.match(luaOf('perfgate_common'), /if sysbench\.opt\.force_index == false then\s+return ""/);
});

test('a shape shows FORCE INDEX exactly where the script sends it, on the index of the predicate\'s column', () => {
  let forced = 0;
  let planned = 0;
  for (const entry of entries) {
    const lua = luaOf(entry.script);
    const option = hintColumnOption(lua);
    const hint = option !== null && entry.options.force_index !== false;
    if (!hint) {
      assert.doesNotMatch(entry.shape, /FORCE INDEX/, `${entry.name}: the script sends no index hint`);
      if (option !== null) planned += 1;
      continue;
    }
    forced += 1;
    const column = entry.options[option] ?? defaultOf(lua, option);
    const index = column === 'k' ? 'k_N' : 'PRIMARY';
    assert.match(entry.shape, new RegExp(`^SELECT .+ FROM sbtestN FORCE INDEX \\(${index}\\) WHERE ${column} `), `${entry.name}: shape ${entry.shape}`);
  }
  assert.ok(forced >= 10 && planned >= 2, `${forced} forced, ${planned} planned`);
});

test('a planned row has no hint in its options or shape, and names what it plans', () => {
  const planned = entries.filter((e) => e.name.includes('-planned'));
  assert.deepEqual(planned.map((e) => e.name).sort(), [
    'join-si-planned_range=100', 'points-notcovered-si-planned_range=100',
    'range-notcovered-si-planned_range=100', 'range-order-limit-si-planned_range=1000',
  ]);
  for (const e of planned) {
    assert.equal(e.kind, 'read', e.name);
    assert.ok(e.options.force_index === false || !hintColumnOption(luaOf(e.script)), `${e.name}: no --force-index=off`);
    assert.doesNotMatch(e.shape, /FORCE|USE INDEX|IGNORE INDEX/, e.name);
  }
  // Each planned row is its forced kin without the hint, where it has one.
  for (const [name, kin] of [['range-notcovered-si-planned_range=100', 'range-notcovered-si_range=100'],
    ['points-notcovered-si-planned_range=100', 'points-notcovered-si_range=100']]) {
    const { force_index: off, ...options } = config.catalogue[name].options;
    assert.equal(off, false);
    assert.deepEqual(options, config.catalogue[kin].options, name);
    assert.equal(config.catalogue[name].shape, config.catalogue[kin].shape.replace(' FORCE INDEX (k_N)', ''), name);
  }
});

test('a range shape carries the range\'s size and its ORDER BY … LIMIT as the options set them', () => {
  for (const e of entries.filter((x) => ['perfgate_range', 'perfgate_join'].includes(x.script))) {
    const size = e.options.range_size ?? 100;
    assert.match(e.shape, new RegExp(`BETWEEN \\? AND \\?\\+${size - 1}\\b`), `${e.name}: shape ${e.shape}`);
    const limit = e.options.range_limit ?? 0;
    if (limit > 0) assert.match(e.shape, new RegExp(`ORDER BY ${e.options.range_on} LIMIT ${limit}$`), e.name);
    else assert.doesNotMatch(e.shape, /ORDER BY|LIMIT/, e.name);
  }
  const join = config.catalogue['join-si-planned_range=100'];
  assert.match(join.shape, new RegExp(`^SELECT ${join.options.join_columns.replace(/[()]/g, '\\$&')} FROM sbtestN a JOIN sbtestN b ON b\\.${join.options.join_on} = a\\.${join.options.join_on} WHERE a\\.id BETWEEN`));
});

test('the quick suite runs the planned rows among its reads, before any write', () => {
  const quick = config.suites.quick.benchmarks;
  const firstWrite = quick.findIndex((n) => config.catalogue[n].kind === 'write');
  for (const name of entries.filter((e) => e.name.includes('-planned')).map((e) => e.name)) {
    const at = quick.indexOf(name);
    assert.ok(at >= 0 && at < firstWrite, `${name} at ${at}, first write at ${firstWrite}`);
  }
});
