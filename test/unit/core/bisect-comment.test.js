'use strict';
// A bisection as a pull request comment: one line per step, the range left while it runs, the
// culprit with its figures, grown functions and causes at the end; text from bisect.json never
// renders as markup or mentions.
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');
const { bisectDocument } = require('../../support/bisect-document.js');
const { causesSection } = require('../../../core/src/render/markdown');

const SHAS = Array.from({ length: 11 }, (_, i) => `${i.toString(16)}${'abcdef0123'.repeat(4)}`.slice(0, 40));

test('while it runs: the steps so far and the range left', () => {
  const doc = bisectDocument({ shas: SHAS, upTo: 3 });
  const text = core.renderBisectComment(doc, { intro: 'who and where' });
  assert.equal(text, [
    '### 🔎 perfgate bisect: running',
    '',
    'who and where',
    '',
    `\`base\` (\`${SHAS[0].slice(0, 7)}\`) .. \`bisect-tip\` (\`${SHAS[10].slice(0, 7)}\`): 10 first-parent commits, suite \`e2e\`, \`update-index_range=100\``,
    '',
    `- step 0: bad end \`${SHAS[10].slice(0, 7)}\` against good bad: instr/o 1.310 [1.300, 1.320]`,
    `- step 1: #5 (\`${SHAS[5].slice(0, 7)}\`) good: instr/o 1.000 [0.990, 1.010]`,
    `- step 2: #7 (\`${SHAS[7].slice(0, 7)}\`) bad: instr/o 1.310 [1.300, 1.320]`,
    '',
    `range left: #5 (\`${SHAS[5].slice(0, 7)}\`) good .. #7 (\`${SHAS[7].slice(0, 7)}\`) bad, 1 commit between, at most 1 more step`,
    '',
  ].join('\n'));
  assert.deepEqual(core.bisectRangeLeft(doc), { lo: 5, hi: 7, between: 1 });
});

test('at the end: the culprit against its parent, the functions that grew, the full text folded', () => {
  const doc = bisectDocument({ shas: SHAS, subjects: SHAS.map((_, i) => (i === 7 ? 'row0upd: @everyone look `here`\n[x](http://evil)' : `commit ${i}`)) });
  const text = core.renderBisectComment(doc, { final: true });
  assert.match(text, /^### 🎯 perfgate bisect: culprit found\n/);
  // The subject in a code span whose fence is longer than the backticks inside: shown as it is.
  assert.match(text, new RegExp(`\\n\\*\\*Culprit:\\*\\* \`${SHAS[7]}\` \`\`row0upd: @everyone look \`here\` \\[x\\]\\(http://evil\\)\`\`\\n`));
  assert.match(text, /\n\| `update-index_range=100` \| 0\.82 \[0\.80, 0\.84\] \| 1\.310 \[1\.300, 1\.320\] \| fail \|\n/);
  assert.match(text, /\n- `row_upd_sec_index_entry` `row0upd\.cc:2210`: \+24\.0k self, \+24\.1k inclusive\n/);
  assert.match(text, new RegExp(`<details><summary>perfgate bisect output</summary>\\n\\n\`\`\`\\n[^]*\\nculprit: ${SHAS[7]}\\n\`\`\`\\n\\n</details>\\n$`));
  assert.doesNotMatch(text, /range left/);
  doc.status = 'no-regression';
  doc.culprit = null;
  doc.message = 'the bad end is not slower';
  assert.match(core.renderBisectComment(doc), /^### ✅ perfgate bisect: no regression between the ends\n[^]*\nNo culprit: `the bad end is not slower`\n$/);
});

// The culprit's rows with the causes its explanation step found, as bisect.json keeps them.
function withCause(line, kind = 'counters') {
  const doc = bisectDocument({ shas: SHAS });
  doc.culprit.measurements = doc.culprit.measurements.map((m) => ({ ...m, cause: { line, kind } }));
  assert.equal(core.schemaProblem('bisect', doc), null);
  return doc;
}

test('the culprit: why each row got slower, in the pull request comment\'s words, in the comment and the terminal', () => {
  const line = 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here)';
  const doc = withCause(line);
  const text = core.renderBisectComment(doc, { final: true });
  // The same line the pull request comment gives the row (its renderer), under the culprit's table.
  const why = causesSection([{ id: 'update-index_range=100', verdict: 'fail', cause: { line } }]);
  assert.equal(why, `- ❌ \`update-index_range=100\`: ${line}`);
  assert.match(text, new RegExp(`\\| fail \\|\\n\\nFunctions whose[^]*\\n\\*\\*Why it got slower\\*\\*\\n\\n${escape(why)}\\n`));
  const terminal = core.renderBisect(doc);
  assert.match(terminal, new RegExp(`\\(fail\\) against its parent\\n    grew: [^\\n]*\\n  update-index_range=100: cause: ${escape(line)}\\nculprit: ${SHAS[7]}\\n$`));
});

test('the culprit whose step found nothing says what was looked at; one never explained says nothing', () => {
  const line = 'no cause found: looked at counters, waits, plans and memory; not looked at: stacks (perf is not installed)';
  assert.match(core.renderBisectComment(withCause(line, null)), new RegExp(`\\n- ❌ \`update-index_range=100\`: ${escape(line)}\\n`));
  assert.match(core.renderBisect(withCause(line, null)), new RegExp(`\\n  update-index_range=100: cause: ${escape(line)}\\n`));
  // A bisection before causes were kept, or with the suite's explain.rows 0: no section, no line.
  const none = bisectDocument({ shas: SHAS });
  assert.doesNotMatch(core.renderBisectComment(none, { final: true }), /Why it got slower|cause:/);
  assert.doesNotMatch(core.renderBisect(none), /cause:/);
});

test('a hostile cause in bisect.json renders as its characters, one line, nothing live', () => {
  const line = '`x` @team see #12 <img src=x onerror=alert(1)> [a](http://evil) **b**\n# heading\r\u001b[31mred\u202e';
  const doc = withCause(line);
  const text = core.renderBisectComment(doc, { final: true });
  const item = text.split('\n').find((l) => l.startsWith('- ❌ `update-index_range=100`: '));
  assert.equal(item, '- ❌ `update-index_range=100`: \\`x\\` @\u200dteam see #\u200d12 \\<img src=x onerror=alert(1)> [a\\](http:\u200d//evil) \\*\\*b\\*\\* # heading  [31mred');
  assert.doesNotMatch(text, /\u001b|\u202e|\r/);
  const terminal = core.renderBisect(doc);
  assert.match(terminal, /\n {2}update-index_range=100: cause: `x` @team see #12 <img src=x onerror=alert\(1\)> \[a\]\(http:\/\/evil\) \*\*b\*\* # heading  \[31mred\n/);
  assert.doesNotMatch(terminal, /\u001b|\u202e|\r/);
  // bisect.json is checked before anything is rendered: a line past its length, a kind it does not know, a key too many.
  const problem = (cause) => core.schemaProblem('bisect', { ...doc, culprit: { ...doc.culprit, measurements: [{ ...doc.culprit.measurements[0], cause }] } });
  assert.match(problem({ line: 'x'.repeat(2001), kind: null }), /cause\.line/);
  assert.match(problem({ line: 'x', kind: 'guess' }), /cause\.kind/);
  assert.match(problem({ line: 'x', kind: null, html: '<b>' }), /cause/);
  assert.match(problem({ line: 7, kind: null }), /cause\.line/);
});

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
