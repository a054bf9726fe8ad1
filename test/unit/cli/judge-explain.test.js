'use strict';
// `perfgate judge <dir>` with the explanation step's explain.json in the folder: the causes in
// every report, the differential flame graph drawn with inferno (installed by
// scripts/install-deps.sh) and embedded sanitised, no verdict changed, and a hostile
// explain.json refused by name.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runMain } = require('../../support/cli-main');
const { side, explainDoc } = require('../../fixtures/explain/documents');

const RESULTS = path.join(__dirname, '../../fixtures/results/quick-tiny/results.json');
const FOLDED = path.join(__dirname, '../../fixtures/explain');

const cli = (args, env = process.env) => runMain(args, { env });

// A run folder: quick-tiny's results, and explain.json explaining update-index_range=100 with
// the real windows of a head that fsyncs per commit and the off-CPU stacks of one that sleeps.
function runFolder(t, { doc = null } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-explain-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(RESULTS, path.join(dir, 'results.json'));
  fs.mkdirSync(path.join(dir, 'explain'));
  for (const s of ['base', 'head']) fs.copyFileSync(path.join(FOLDED, `update-index.${s}.offcpu.folded`), path.join(dir, 'explain', `u.${s}.offcpu.folded`));
  const explain = doc || explainDoc([{
    id: 'update-index_range=100',
    base: side('pfs19_p1', 'update-index', { stack: 'aa1', stackFiles: 'explain/u.base.offcpu.folded' }),
    head: side('pfs19_fsync', 'update-index', { stack: 'sleep', stackFiles: 'explain/u.head.offcpu.folded' }),
  }], { budget: { rows: 1, seconds_per_row: 60 } });
  fs.writeFileSync(path.join(dir, 'explain.json'), JSON.stringify(explain));
  return dir;
}
const read = (dir, f) => fs.readFileSync(path.join(dir, f), 'utf8');
const LINE = 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here)';

test('judge with explain.json: the cause under the row in every report, the verdicts as without it', async (t) => {
  const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-plain-'));
  t.after(() => fs.rmSync(plain, { recursive: true, force: true }));
  fs.copyFileSync(RESULTS, path.join(plain, 'results.json'));
  const without = await cli(['judge', plain]);
  const dir = runFolder(t);
  const r = await cli(['judge', dir]);
  assert.equal(r.code, without.code);
  const verdict = JSON.parse(read(dir, 'verdict.json'));
  const before = JSON.parse(read(plain, 'verdict.json'));
  assert.deepEqual(verdict.benchmarks.map((b) => b.verdict), before.benchmarks.map((b) => b.verdict));
  const ui = verdict.benchmarks.find((b) => b.id === 'update-index_range=100');
  assert.equal(ui.cause.line, LINE);
  assert.deepEqual(ui.cause.stacks, { base: 'explain/u.base.offcpu.folded', head: 'explain/u.head.offcpu.folded' });
  // Flagged rows beyond the budget say so.
  const pq = verdict.benchmarks.find((b) => b.id === 'point-query');
  assert.equal(pq.cause.line, 'not explained: beyond the budget of 1 explained row a run (the suite\'s explain.rows)');
  assert.match(read(dir, 'comment.md'), /\*\*Why it got slower\*\*\n\n(- .+\n)*- \S+ `update-index_range=100`: an fsync of InnoDB files per query more: Innodb_data_fsyncs\/o 0\.00 → 1\.00 \(MariaDB counts its redo-log flushes here\)\n/);
  assert.match(read(dir, 'summary.md'), /`update-index_range=100`: .*\n {2}- cause: an fsync of InnoDB files per query more: Innodb_data_fsyncs\/o 0\.00 → 1\.00/);
  const html = read(dir, 'report.html');
  assert.match(html, /<tr class="reason \w+"><td colspan="\d+"><div>cause: an fsync of InnoDB files per query more: Innodb_data_fsyncs\/o 0\.00 → 1\.00 \(MariaDB counts its redo-log flushes here\)<\/div><\/td><\/tr>/);
  assert.match(html, /<h2>Why it got slower<\/h2>/);
  assert.match(html, /<h4>Work counters per query \(base → head\)<\/h4><div class="scroll"><table data-table="cause-counters"><tr><th>finding<\/th><th>base<\/th><th>head<\/th><\/tr><tr><td>an fsync of InnoDB files per query more: Innodb_data_fsyncs\/o 0\.00 → 1\.00 \(MariaDB counts its redo-log flushes here\)<\/td><td class="n">0\.00\d*<\/td><td class="n">1<\/td><\/tr>/);
  assert.match(html, /<h4>performance_schema waits per query \(base → head\)<\/h4>.*<td>time in stage\/sql\/Commit: \+\d[\d,]* µs\/query/s);
  assert.match(html, /<p class="muted">Looked at: counters, waits, stacks\. Not looked at: plans \(no statement shapes captured\); memory \(no memory windows of both sides\)\.<\/p>/);
});

test('judge with explain.json: the differential flame graph, drawn by inferno, embedded as an image and written beside', async (t) => {
  const dir = runFolder(t);
  const r = await cli(['judge', dir]);
  assert.ok([0, 1, 3].includes(r.code), r.stderr);
  const svg = read(dir, 'explain/update-index_range=100.diff.svg');
  assert.match(svg, /^<\?xml[\s\S]*<svg[\s\S]*clock_nanosleep[\s\S]*<\/svg>\s*$/);
  assert.doesNotMatch(svg, /<script/i);
  const html = read(dir, 'report.html');
  const img = /<img data-flamegraph="update-index_range=100" alt="[^"]*" style="max-width:100%" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)">/.exec(html);
  assert.ok(img, 'the report embeds the graph as an image');
  assert.equal(Buffer.from(img[1], 'base64').toString('utf8'), svg);
  // Without inferno the report says what to install.
  const again = runFolder(t);
  await cli(['judge', again], { PATH: '', HOME: '/nonexistent' });
  assert.match(read(again, 'report.html'), /<p class="muted" data-flamegraph="missing">Differential flame graph not drawn: inferno is not installed \(cargo install inferno\)\.<\/p>/);
  assert.equal(fs.existsSync(path.join(again, 'explain/update-index_range=100.diff.svg')), false);
});

test('judge with a hostile explain.json: refused naming the file and key, exit 2, no verdict written', async (t) => {
  const bad = (mutate) => {
    const doc = explainDoc([{ id: 'update-index_range=100', base: side('pfs19_p1', 'update-index', { stack: 'aa1', stackFiles: 'explain/u.base.offcpu.folded' }), head: side('pfs19_fsync', 'update-index', { stack: 'sleep', stackFiles: 'explain/u.head.offcpu.folded' }) }]);
    mutate(doc);
    return doc;
  };
  const cases = [
    [bad((d) => { d.rows[0].sides.head.stacks.offcpu_file = '../../etc/passwd'; }), /explain\.json: rows\[0\]\.sides\.head\.stacks\.offcpu_file: .*a path relative to the run folder/],
    [bad((d) => { d.rows[0].sides.head.stacks.offcpu_file = 'results.json'; }), /explain\.json: rows\[0\]\.sides\.head\.stacks\.offcpu_file: "results\.json" is not a folded stack file under explain\//],
    [bad((d) => { d.rows[0].id = 'not-a-row'; }), /explain\.json: rows\[0\]\.id: "not-a-row" is not a row of results\.json; expected a document valid by schema\/explain\.schema\.json/],
    [bad((d) => { d.status = 'fine'; }), /explain\.json: status: "fine" is not valid; expected one of: ok, error, cancelled/],
  ];
  for (const [doc, message] of cases) {
    const dir = runFolder(t, { doc });
    const r = await cli(['judge', dir]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(fs.existsSync(path.join(dir, 'verdict.json')), false);
  }
  // A file larger than any real one is refused before it is read (a sparse file: no disk used).
  const huge = runFolder(t);
  fs.truncateSync(path.join(huge, 'explain.json'), 40 * 1024 * 1024);
  const h = await cli(['judge', huge]);
  assert.equal(h.code, 2);
  assert.match(h.stderr, /explain\.json holds 41943040 bytes; at most 33554432 are accepted for it/);
  // explain.json as a link, or explain/ as a link to elsewhere, is not followed.
  const linked = runFolder(t);
  fs.renameSync(path.join(linked, 'explain.json'), path.join(linked, 'elsewhere.json'));
  fs.symlinkSync(path.join(linked, 'elsewhere.json'), path.join(linked, 'explain.json'));
  const r = await cli(['judge', linked]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /explain\.json: cannot read it \(a symbolic link, which perfgate does not follow in its own folders\); expected a perfgate\.explain\/v1 document/);
  const folder = runFolder(t);
  fs.renameSync(path.join(folder, 'explain'), path.join(folder, 'elsewhere'));
  fs.symlinkSync(path.join(folder, 'elsewhere'), path.join(folder, 'explain'));
  const f = await cli(['judge', folder]);
  assert.equal(f.code, 2);
  assert.match(f.stderr, /explain\.json: rows\[0\]\.sides\.base\.stacks\.offcpu_file: "explain\/u\.base\.offcpu\.folded" is not in the run folder/);
});
