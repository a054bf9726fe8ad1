'use strict';
// A bisection as a pull request comment: one line per step, the range left while it runs, the
// culprit with its figures and grown functions at the end; text from bisect.json never renders
// as markup or mentions.
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');
const { bisectDocument } = require('../../support/bisect-document.js');

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
