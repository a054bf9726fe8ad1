'use strict';
// The evidence page's tables (docs/measurements.md), read from the result files the benchmarks
// left in bench/results/: what the gate caught of regressions put in on purpose, how often it
// raised an alarm on unchanged code, and what a run cost. Pure text in, markdown out; a file
// that does not parse is an error naming it and the line.
const fs = require('node:fs');
const path = require('node:path');

// The outcome words of a result file, folded to the ones a reader meets: an open pass is a
// pass, an inconclusive row (at least a warn or not) is undecided.
const FOLD = { fail: 'fail', warn: 'warn', pass: 'pass', 'pass (open)': 'pass', inconclusive: 'undecided', 'inconclusive (at least warn)': 'undecided', undecided: 'undecided', error: 'error' };
const OUTCOMES = ['fail', 'warn', 'undecided', 'pass', 'error'];

function fold(word, where) {
  const folded = FOLD[word.trim()];
  if (!folded) throw new Error(`${where}: unknown verdict '${word.trim()}'; expected one of ${Object.keys(FOLD).join(', ')}`);
  return folded;
}

/** Counts like '0/4/0/0/1/0' under `order` (the words of the section's header) as {fail: n, …}. */
function counts(text, order, where) {
  const n = text.split('/').map(Number);
  if (n.length !== order.length || n.some((x) => !Number.isInteger(x))) throw new Error(`${where}: '${text}' is not ${order.length} counts a/b/…`);
  const out = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  order.forEach((word, k) => { out[fold(word, where)] += n[k]; });
  return out;
}

const said = (c) => OUTCOMES.filter((o) => c[o]).map((o) => `${c[o]} ${o}`).join(', ') || '–';
const total = (c) => OUTCOMES.reduce((s, o) => s + c[o], 0);
const add = (a, b) => Object.fromEntries(OUTCOMES.map((o) => [o, a[o] + b[o]]));
const none = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0]));

/**
 * The sections of one regression-variants result file: each a header line
 * ("regression variants, <date>, N runs each (…); verdict counts as a/b/…") and its table.
 */
function variantSections(text, file) {
  const lines = text.split('\n');
  const sections = [];
  let notes = [];
  lines.forEach((line, k) => {
    if (line.startsWith('# ')) notes.push(line.slice(2));
    const head = line.match(/^regression variants, (\S+), (\d+) runs each .*verdict counts as (.+)$/);
    if (head) {
      const part = sections.length ? ` (part ${sections.length + 1})` : '';
      sections.push({ file, name: `${file}${part}`, date: head[1], runs: Number(head[2]), order: head[3].split('/'), rows: [], aa: {}, notes: notes.slice(0, 2) });
      notes = [];
      return;
    }
    const s = sections.at(-1);
    if (!s) return;
    const where = `${file}:${k + 1}`;
    const cells = line.match(/^\| (?!variant |-)(.+) \|$/);
    if (cells) {
      const c = cells[1].split(' | ');
      if (c.length < 7) throw new Error(`${where}: expected | variant | row | touched | instr/o | all threads | rQPS | shipped limits | [calibrated limits] |`);
      s.rows.push({ variant: c[0], row: c[1], touched: c[2] === 'yes', instr: c[3], rqps: c[5], shipped: counts(c[6], s.order, where), calibrated: c[7] ? counts(c[7], s.order, where) : null });
      return;
    }
    const aa = line.match(/^A\/A \((shipped|calibrated) limits\): \d+ row verdicts: (\S+)$/);
    if (aa) s.aa[aa[1]] = counts(aa[2], s.order, where);
  });
  return sections;
}

// "aa-1  point-query: pass, random-points_range=1000: pass (open), …": one A/A run's rows.
function aaRuns(text, file) {
  const c = none();
  text.split('\n').forEach((line, k) => {
    const m = line.match(/^aa-\d+\s+(.+)$/);
    if (!m) return;
    for (const part of m[1].split(/, (?=[\w-]+(?:_range=\d+)?: )/)) {
      const word = part.slice(part.indexOf(': ') + 2);
      c[fold(word, `${file}:${k + 1}`)] += 1;
    }
  });
  return c;
}

// "perfgate compare: where the time went: load data 3 s · … · total 207 s"
function timeLines(text) {
  return text.split('\n').filter((l) => l.includes('where the time went:')).map((l) => Object.fromEntries(
    l.slice(l.indexOf('where the time went:') + 20).split('·').map((p) => p.trim().match(/^(.+) (\d+) s$/)).filter(Boolean).map((m) => [m[1], Number(m[2])]),
  ));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// A set of runs: its result file, the part of it, and the file's own words on how it ran.
const link = (name) => `[${name}](../bench/results/${name.split(' ')[0]})`;
const leadingNotes = (text) => {
  const notes = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('# ')) break;
    notes.push(line.slice(2));
  }
  return notes.slice(0, 2);
};
const table = (header, rows) => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** The evidence tables of every result file in `dir`, as markdown. */
function evidenceTables(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.txt')).sort();
  const read = (f) => fs.readFileSync(path.join(dir, f), 'utf8');
  const sections = files.filter((f) => f.startsWith('regression-variants-')).flatMap((f) => variantSections(read(f), f));

  const caught = sections.flatMap((s) => s.rows.filter((r) => r.touched).map((r) => [
    r.variant, r.row, r.instr, r.rqps, said(r.shipped), r.calibrated ? said(r.calibrated) : '', link(s.name),
  ]));

  const runs = new Map(sections.map((s) => [s.name, s.notes]));
  const alarms = [];
  for (const s of sections) {
    const untouched = s.rows.filter((r) => !r.touched).reduce((c, r) => add(c, r.shipped), none());
    if (total(untouched)) alarms.push(['rows a variant does not touch', 'shipped', total(untouched), said(untouched), link(s.name)]);
    for (const [limits, c] of Object.entries(s.aa)) alarms.push(['A/A: one build on both sides', limits, total(c), said(c), link(s.name)]);
  }
  for (const f of files.filter((x) => x.startsWith('aa-'))) {
    const c = aaRuns(read(f), f);
    if (!total(c)) continue;
    alarms.push(['A/A: one build on both sides', 'shipped', total(c), said(c), link(f)]);
    runs.set(f, leadingNotes(read(f)));
  }

  const cost = files.map((f) => ({ f, times: timeLines(read(f)) })).filter((x) => x.times.length).map(({ f, times }) => {
    runs.set(f, leadingNotes(read(f)));
    const part = (key) => `${median(times.map((r) => r[key] || 0))}`;
    return [link(f), times.length, part('total'), part('instruction windows'), part('timed rounds'), part('extra rounds'), part('warm-ups')];
  });

  return [
    '### What it catches: regressions put in on purpose',
    '',
    'Each row is one microbenchmark a variant slows down, with the medians over its runs and what the gate said in each run.',
    '',
    table(['variant', 'microbenchmark', 'instr/o', 'rQPS', 'verdicts, shipped limits', 'verdicts, calibrated limits', 'runs of'], caught),
    '',
    '### What it raises on unchanged code',
    '',
    table(['rows', 'limits', 'row verdicts', 'verdicts', 'runs of'], alarms),
    '',
    '### What a run costs',
    '',
    'Seconds of one `perfgate compare` of the quick suite, the median over the runs of each file.',
    '',
    table(['runs of', 'runs', 'total s', 'instruction windows s', 'timed rounds s', 'extra rounds s', 'warm-ups s'], cost),
    '',
    '### How each set of runs was made',
    '',
    'The first lines of each result file; where a file has none, the [notebook](archive/notebook-2026-11.md) of its day says.',
    '',
    ...[...runs].map(([name, notes]) => `- ${link(name)}: ${notes.length ? notes.join(' ').replace(/\|/g, '\\|') : '(no description in the file)'}`),
  ].join('\n');
}

module.exports = { evidenceTables, variantSections, aaRuns, timeLines };
