'use strict';
// The suite as a whole is shown first in every report (comment, job summary, check run,
// report.html, the terminal table), as core decided it; what a forged verdict puts there is
// shown as text.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const core = require('../../../core/src');

// Rows held at instr/o 1.015 / 1.03: 1.5% on every row fails the suite, no row.
const QUICK = require('../../support/loose-quick').looseQuickSuite();
const FIXTURE = path.join(__dirname, '../../fixtures/main-history/aa-instructions-0.json');

// A real A/A run with every head window 1.5% above, and insert_range=100's head windows lost.
function failingVerdict() {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
  for (const b of doc.benchmarks) for (const w of b.instructions.head.windows) w.connection.per_query *= 1.015;
  doc.benchmarks.find((b) => b.id === 'insert_range=100').instructions.head.windows.splice(1);
  return core.judge(doc, QUICK);
}

const ABOUT = 'the geometric mean over the rows, and over each group of them; limits rQPS warn below 0.98, fail below 0.97; instr/o warn above 1.005, fail above 1.01; at least 3 rows';
const NOTE = 'left out of the suite-wide figures: insert_range=100 (error)';

test('the comment, the job summary and the check run show the suite as a whole before the rows', () => {
  const v = failingVerdict();
  for (const text of [core.renderComment(v), core.renderSummary(v), core.checkRunOutput(v).output.summary]) {
    const wide = text.indexOf(`**The suite as a whole**: ${ABOUT}`);
    assert.ok(wide > 0, text.slice(0, 800));
    assert.ok(wide < text.indexOf('| | microbenchmark |'));
    assert.ok(text.includes('| ❌ | all rows (9) | – | – | 1.0153 | 1.0150–1.0157 |'), text.slice(0, 2000));
    assert.ok(text.includes(`_${NOTE}._`));
  }
  // Why: the suite as a whole first, then the rows.
  const why = core.checkRunOutput(v).output.text.split('\n');
  assert.equal(why[2], '- ❌ `all rows`: 1\\.5% more instructions per query: instr/o over 9 rows 1.0153 [1.0150, 1.0157] lies wholly above the fail limit 1.01');
  assert.equal(core.checkRunOutput(v).conclusion, 'failure');
});

test('report.html shows the suite as a whole first, each entry with its reason', () => {
  const v = failingVerdict();
  const html = core.renderReport(v);
  const wide = html.indexOf('<h2>The suite as a whole</h2>');
  assert.ok(wide > 0 && wide < html.indexOf('data-table="benchmarks"'));
  assert.ok(html.includes(`<p class="muted">${ABOUT}</p>`));
  assert.ok(html.includes('<tr class="fail"><td class="mark">❌</td><td>all rows (9)</td><td class="n">–</td><td class="n">–</td><td class="n">1.0153</td><td class="n">1.0150–1.0157</td></tr>'));
  assert.ok(html.includes('<div>1.5% more instructions per query: instr/o over 9 rows 1.0153 [1.0150, 1.0157] lies wholly above the fail limit 1.01</div>'));
  assert.ok(html.includes('<p class="scope">left out of the suite-wide figures: insert_range=100 (error)</p>'));
});

test('the terminal table: the suite as a whole, then the rows; its notes with the reasons', () => {
  const out = core.renderVerdictTable(failingVerdict()).split('\n');
  assert.match(out[2], /^suite-wide +rQPS +95% interval +instr\/o +95% interval +verdict$/);
  assert.match(out[3], /^all rows \(9\) +– +– +1\.0153 +1\.0150–1\.0157 +fail$/);
  assert.ok(out.includes('  suite-wide: left out of the suite-wide figures: insert_range=100 (error)'));
});

test('a verdict without the suite as a whole (older, or limits built by hand) shows none', () => {
  const v = failingVerdict();
  delete v.suite_wide;
  assert.equal(core.schemaProblem('verdict', v), null);
  assert.ok(!core.renderComment(v).includes('The suite as a whole'));
  assert.ok(!core.renderReport(v).includes('The suite as a whole'));
});

test('a forged suite-wide part: refused where malformed, shown as text where well-formed', () => {
  const v = failingVerdict();
  const forged = structuredClone(v);
  forged.suite_wide.entries[0].id = '@everyone [click](https://evil.example) <img src=x>';
  forged.suite_wide.notes = ['<script>alert(1)</script> #1 @team'];
  assert.equal(core.schemaProblem('verdict', forged), null);
  const md = core.renderComment(forged);
  assert.ok(!md.includes('@everyone'), 'no mention');
  assert.doesNotMatch(md, /(^|[^\\])<(img|script)/, 'no HTML');
  assert.ok(!md.includes('](https://'));
  const html = core.renderReport(forged);
  assert.ok(!html.includes('<script>alert') && !html.includes('<img src=x>'));
  for (const [what, change] of [
    ['an unknown key', (d) => { d.suite_wide.entries[0].extra = 1; }],
    ['a sixth outcome', (d) => { d.suite_wide.entries[0].verdict = 'maybe'; }],
    ['a mean of one row', (d) => { d.suite_wide.entries[0].instructions_per_query.n = 1; }],
    ['a note that is no text', (d) => { d.suite_wide.notes = [{}]; }],
  ]) {
    const bad = structuredClone(v);
    change(bad);
    assert.notEqual(core.schemaProblem('verdict', bad), null, what);
  }
});
