'use strict';
// The cause line where each report prints it: under the row in the check run's and the job
// summary's "Why:", in the comment's "Why it got slower", and in report.html; its text (a plan's
// statement, a stack's frames: written by a pull request's server) escaped as any text is.
const test = require('node:test');
const assert = require('node:assert/strict');
const { withCauses } = require('../../../core/src/explain/cause');
const { readVerdict } = require('../../../core/src/verdict-versions');
const { checkRunOutput, jobSummary } = require('../../../core/src/render/check-run');
const { renderComment } = require('../../../core/src/render/comment');
const { renderReport } = require('../../../core/src/render/html');
const { renderVerdictTable } = require('../../../core/src/render/table');
const { side, explainDoc } = require('../../fixtures/explain/documents');

const UI = 'update-index_range=100';
function explained() {
  const verdict = readVerdict(require('../../fixtures/verdicts/signoff-10.11.18-10.11.19/verdict.json')).verdict;
  Object.assign(verdict.benchmarks.find((b) => b.id === UI), { verdict: 'fail', reason: '14% slower (rQPS 0.86 [0.84, 0.88], fail limit 0.93)' });
  return withCauses(verdict, explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_fsync', 'update-index') }], { budget: { rows: 1, seconds_per_row: 60 } }));
}
const LINE = 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here)';

test('check run and job summary: the cause on a line of its own under the row\'s reason', () => {
  const v = explained();
  const expected = `- ❌ \`${UI}\`: 14% slower (rQPS 0.86 [0.84, 0.88], fail limit 0.93)\n  - cause: ${LINE}`;
  assert.ok(checkRunOutput(v).output.text.includes(expected), checkRunOutput(v).output.text);
  assert.ok(jobSummary(v).includes(expected));
  // A warn beyond the budget says so.
  assert.match(checkRunOutput(v).output.text, /`update-one_range=100`: .*\n {2}- cause: not explained: beyond the budget of 1 explained row a run \(the suite's explain\.rows\)/);
});

test('comment: "Why it got slower", one item per row with a cause', () => {
  const text = renderComment(explained());
  assert.ok(text.includes(`**Why it got slower**\n\n- ❌ \`${UI}\`: ${LINE}\n- ⚠️ \`update-one_range=100\`: not explained: beyond the budget of 1 explained row a run (the suite's explain.rows)\n`), text);
});

test('terminal table: the cause under the headline, one line per explained row', () => {
  const text = renderVerdictTable(explained());
  assert.ok(text.includes(`\n  ${UI}: cause: ${LINE}\n`), text);
  assert.match(text, /\n {2}update-one_range=100: cause: not explained: beyond the budget/);
});

test('hostile text in a cause is escaped in markdown and HTML', () => {
  const v = explained();
  const row = v.benchmarks.find((b) => b.id === UI);
  row.cause = { ...row.cause, line: 'the plan of `x` changed: <!-- --> <img src=x onerror=alert(1)> @everyone [a](https://evil.example)' };
  const comment = renderComment(v);
  // Markdown: every active character escaped, links and mentions broken (markdown.js's text).
  assert.ok(comment.includes('the plan of \\`x\\` changed: \\<!-- --> \\<img src=x onerror=alert(1)> @\u200deveryone [a\\](https:\u200d//evil.example)'), comment);
  const html = renderReport(v);
  assert.doesNotMatch(html, /<img src=x/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  // A terminal: escape sequences and line breaks become spaces.
  row.cause = { ...row.cause, line: 'frames \u001b[2J\u001b]0;owned\u0007 and\nfake: pass' };
  const table = renderVerdictTable(v);
  assert.ok(table.includes(`  ${UI}: cause: frames  [2J ]0;owned  and fake: pass\n`), table);
  assert.doesNotMatch(table, /\u001b|\u0007/);
});

test('the tracker issue of a regression found on main says its cause under the verdict', () => {
  const { regressionIssue } = require('../../../core/src/render/regression-issue');
  const v = explained();
  const b = v.benchmarks.find((x) => x.id === UI);
  b.rqps = { estimate: 0.86, low: 0.84, high: 0.88, n: 5 };
  const args = { verdict: v, benchmarkId: UI, signal: 'rqps', repo: 'o/r', lastGood: 'a'.repeat(40), firstBad: 'b'.repeat(40), dedupeKey: 'k', confirmation: { changePoint: 'a change point' } };
  assert.ok(regressionIssue(args).body.includes(`Verdict: 14% slower (rQPS 0.86 [0.84, 0.88], fail limit 0.93).\n\nCause: ${LINE}\n\nConfirmed by:`));
  delete b.cause;
  assert.ok(!regressionIssue(args).body.includes('Cause:'));
});
