'use strict';
// The words of a bisection in plain text: one progress line per event (stderr, the action's
// log) and the end as people read it, the steps and then the culprit with its figures, the
// functions that grew and each regressed row's cause (bisect.json's, core/src/bisect.js).
// Pure. The pull request comment of it is bisect-comment.js.
const { count } = require('./format');
const { causeLines } = require('./table');
const { formatDuration } = require('../progress');
const { decidingInstructions } = require('../signals');
const { outcomeWord } = require('../verdict-versions');
const { intervalText, shortCommit: short } = require('../bisect');

const f3 = (x) => (typeof x === 'number' ? x.toFixed(3) : '–');

/** One stderr line per event of a bisection (cli/src/bisect.js onProgress). */
function formatBisectProgress(event) {
  const at = (sha) => short(sha);
  switch (event.type) {
    case 'range':
      return `${event.commits - 1} first-parent commits from ${event.goodName} (${at(event.good)}) to ${event.badName} (${at(event.bad)}); at most ${Math.ceil(Math.log2(Math.max(1, event.commits - 1)))} steps after the ends are confirmed`;
    case 'measure': {
      const what = event.kind === 'confirm' ? `the bad end ${at(event.commit)} against the good end`
        : event.kind === 'culprit' ? `the culprit ${at(event.commit)} against its parent ${at(event.against)}`
          : `${at(event.commit)} (#${event.position} of ${event.commits - 1}) against good`;
      const again = event.attempt > 1 ? `, measurement ${event.attempt} (the last was undecided)` : '';
      return `step ${event.step}: measuring ${what} on ${event.signals.join(' and ')}${again}`;
    }
    case 'build-failed':
      return `step ${event.step}: ${at(event.commit)} did not build (${event.message}): skipped`;
    case 'confirm':
      return `step ${event.step}: ${event.reason}`;
    case 'decision': {
      const p = event.progress;
      const left = p.left ? `; ${p.left} commit${p.left === 1 ? '' : 's'} left between ${at(event.lo)} and ${at(event.hi)}, at most ${p.stepsLeft} more step${p.stepsLeft === 1 ? '' : 's'}` : '';
      return `step ${event.step}: ${at(event.commit)} is ${event.decision}: ${event.reason}${left}`;
    }
    case 'done':
      return `${event.status}: ${event.message} (${event.builds} build${event.builds === 1 ? '' : 's'}, ${event.measurements} measurement${event.measurements === 1 ? '' : 's'}, ${formatDuration(event.seconds)})`;
    default:
      return null;
  }
}

function measurementLine(m) {
  const parts = [];
  if (m.rqps) parts.push(`rQPS ${intervalText(m.rqps)}`);
  const instr = decidingInstructions(m);
  if (instr) parts.push(`${instr.word} ${intervalText(instr.interval, f3)}`);
  return `${m.id}: ${parts.join(', ') || 'no figures'} (${outcomeWord(m.verdict)})`;
}

/** The end of a bisection as people read it: the steps, then the culprit (last). */
function renderBisect(doc) {
  const lines = [];
  lines.push(`perfgate bisect: ${doc.good.ref} (${short(doc.good.commit)}) .. ${doc.bad.ref} (${short(doc.bad.commit)}), ${doc.commits.length - 1} first-parent commits, suite ${doc.suite}`);
  for (const s of doc.steps) {
    const build = s.builds.filter((b) => b.cache !== 'hit').map((b) => `built ${short(b.commit)} in ${formatDuration(b.seconds)}`).join(', ');
    const figures = (s.measurements || []).map(measurementLine).join('; ');
    const what = s.kind === 'confirm' ? `bad end ${short(s.commit)}` : s.kind === 'culprit' ? `culprit ${short(s.commit)} vs parent` : `${short(s.commit)} #${s.position}`;
    lines.push(`  ${String(s.n).padStart(2)}. ${what}: ${s.decision || s.outcome || '–'}${figures ? ` — ${figures}` : ''}${build ? ` (${build})` : ''}`);
  }
  lines.push(`${doc.builds.built} builds (${doc.builds.cached} found in the cache), ${doc.measurements} measurements, ${formatDuration(doc.seconds || 0)}`);
  if (doc.status === 'found' && doc.culprit) {
    const c = doc.culprit;
    lines.push('');
    lines.push(`culprit ${c.commit} ${c.subject}`);
    lines.push(`  parent ${c.parent}${c.merge ? ' (the culprit is a merge)' : ''}`);
    for (const m of c.measurements) {
      lines.push(`  ${measurementLine(m)} against its parent`);
      for (const f of m.grown || []) {
        lines.push(`    grew: ${f.name}${f.source ? ` (${f.source})` : ''} +${count(f.self_growth)} self, +${count(f.inclusive_growth)} inclusive instructions per query`);
      }
    }
    // Why each regressed row got slower, as compare's terminal table says it.
    lines.push(...causeLines(c.measurements));
    for (const n of c.notes) lines.push(`  note: ${n}`);
    lines.push(`culprit: ${c.commit}`);
  } else {
    lines.push('');
    lines.push(`no culprit: ${doc.message}`);
  }
  return lines.join('\n') + '\n';
}

module.exports = { formatBisectProgress, renderBisect };
