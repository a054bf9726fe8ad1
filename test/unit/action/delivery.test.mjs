// What the action tells GitHub, from captured verdicts: conclusions, and GitHub's size limits.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import {
  CHECK_RUN_TEXT_LIMIT, JOB_SUMMARY_LIMIT_BYTES, checkRunOutput, conclusionOf, fitBytes, fitCharacters, jobFails, jobSummary, noVerdictReport,
} from '../../../action/src/delivery.js';

const require = createRequire(import.meta.url);
const { judge } = require('@perfgate/core');
const { capturedResults, loadResults } = require('../../support/captured-results');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } };
const captured = capturedResults().map((entry) => ({ name: entry.name, verdict: judge(loadResults(entry.file), CONFIG) }));

/** A captured verdict with its rows repeated until it is far over every GitHub limit. */
function huge() {
  const verdict = structuredClone(captured.find((entry) => entry.verdict.benchmarks.length > 1 && !entry.verdict.ahi.length).verdict);
  const rows = verdict.benchmarks;
  verdict.benchmarks = Array.from({ length: 3000 }, (_, i) => ({ ...rows[i % rows.length], id: `${rows[i % rows.length].id}-${i}`, verdict: 'warn', reason: `${'a long reason '.repeat(40)}${i}` }));
  return verdict;
}

describe('conclusions and fail-on', () => {
  it('maps each verdict to a check run conclusion', () => {
    assert.deepEqual(['pass', 'warn', 'undecided', 'fail', 'error'].map((v) => conclusionOf(v)), ['success', 'neutral', 'neutral', 'failure', 'failure']);
  });

  it('fails the job by fail-on', () => {
    const verdicts = ['pass', 'warn', 'undecided', 'fail', 'error', 'refused', 'cancelled'];
    assert.deepEqual(verdicts.filter((v) => jobFails(v, 'fail')), ['fail', 'error']);
    assert.deepEqual(verdicts.filter((v) => jobFails(v, 'warn')), ['warn', 'undecided', 'fail', 'error']);
    assert.deepEqual(verdicts.filter((v) => jobFails(v, 'never')), []);
  });

  it('blocks a required check on what fail-on fails the job on, and never passes a fail', () => {
    const words = ['pass', 'warn', 'undecided', 'fail', 'error'];
    assert.deepEqual(words.map((v) => conclusionOf(v, 'warn')), ['success', 'failure', 'failure', 'failure', 'failure']);
    // fail-on never keeps the job green; the check still says what the verdict is.
    assert.deepEqual(words.map((v) => conclusionOf(v, 'never')), ['success', 'neutral', 'neutral', 'failure', 'failure']);
    const undecided = captured.find(({ verdict }) => verdict.verdict === 'undecided');
    assert.ok(undecided, 'a captured undecided verdict');
    assert.equal(checkRunOutput(undecided.verdict).conclusion, 'neutral');
    assert.equal(checkRunOutput(undecided.verdict, { failOn: 'warn' }).conclusion, 'failure');
    assert.throws(() => conclusionOf('pass', 'sometimes'), /fail-on 'sometimes': expected one of fail, warn, never/);
  });
});

describe('check run output', () => {
  for (const { name, verdict } of captured) {
    it(`of captured ${name}: the table without the marker, the reasons as text`, () => {
      const out = checkRunOutput(verdict, { reportLink: 'https://example.invalid/a/1', thresholdsFrom: '`t/` at base commit `abc`' });
      assert.equal(out.conclusion, conclusionOf(verdict.verdict));
      assert.ok(out.output.title.startsWith(`perfgate ${verdict.suite} — ${verdict.headline.slice(0, 20)}`));
      assert.ok(!out.output.summary.includes('<!-- perfgate:comment'));
      assert.ok(out.output.summary.includes('Limits from `t/` at base commit `abc`.'));
      for (const row of verdict.benchmarks.filter((b) => b.verdict !== 'pass')) assert.ok(out.output.text.includes(`\`${row.id}\`: ${row.reason}`));
    });
  }

  it('stays within 65,535 characters of summary and of text', () => {
    const out = checkRunOutput(huge(), { reportLink: 'https://example.invalid/a/1' });
    assert.ok(out.output.summary.length <= CHECK_RUN_TEXT_LIMIT, out.output.summary.length);
    assert.ok(out.output.text.length <= CHECK_RUN_TEXT_LIMIT, out.output.text.length);
    assert.ok(out.output.text.endsWith("_Cut to fit GitHub's check run size; the full report is https://example.invalid/a/1._\n"));
  });
});

describe('job summary', () => {
  it('stays within 1 MiB and says where the rest is', () => {
    const verdict = huge();
    verdict.benchmarks = [...verdict.benchmarks, ...verdict.benchmarks.map((b) => ({ ...b, id: `${b.id}-again`, reason: `${b.reason} ✓`.repeat(3) }))];
    const text = jobSummary(verdict, { reportLink: 'https://example.invalid/a/1' });
    assert.ok(Buffer.byteLength(text) <= JOB_SUMMARY_LIMIT_BYTES, Buffer.byteLength(text));
    assert.ok(text.endsWith("_Cut to fit GitHub's job summary size; the full report is https://example.invalid/a/1._\n"));
  });

  it('fitBytes cuts on a character boundary, fitCharacters by characters', () => {
    assert.equal(fitBytes('ééé', 6, 'n'), 'ééé');
    const cut = fitBytes('é'.repeat(100), 20, 'n');
    assert.ok(Buffer.byteLength(cut) <= 20);
    assert.ok(!cut.includes('\uFFFD'));
    assert.equal(fitCharacters('abc', 3, 'n'), 'abc');
    assert.equal(fitCharacters('x'.repeat(50), 20, 'cut').length, 20);
  });
});

describe('a run without a verdict', () => {
  it('says error everywhere and nothing that reads as a pass', () => {
    const report = noVerdictReport({ marker: '<!-- perfgate:comment suite=quick -->', suite: 'quick', headSha: 'a'.repeat(40), why: 'the measure job ended (failure) without a run folder' });
    assert.equal(report.comment, '<!-- perfgate:comment suite=quick -->\n### 💥 perfgate quick: error\n\n**Error: no verdict for head aaaaaaaaaaaa: the measure job ended (failure) without a run folder.**\n\nNothing was judged, so nothing here says this pull request passes. A re-run of the workflow measures it again.\n');
    assert.equal(report.check.conclusion, 'failure');
    assert.equal(report.check.output.title, 'perfgate quick — Error: the measure job ended (failure) without a run folder');
  });
});
