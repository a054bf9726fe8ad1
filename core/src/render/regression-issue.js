'use strict';
// The bug-tracker issue of a regression found on the main branch, its follow-up comments, and
// the hidden key that ties an issue to its regression. Pure: a judged run in, text out. The
// same markdown goes to GitHub Issues and to Jira (its REST API takes it as the description).
const F = require('./format');
const M = require('./markdown');
const signals = require('../signals');

// How each regression signal reads in an issue: its digits and the issue's title.
const LOOKS = {
  rqps: { digits: 2, title: (est) => `${F.num(est, 2)}×` },
  instructions_per_query: { digits: F.INSTR_DIGITS, title: (est, threads) => `${F.num(est, F.INSTR_DIGITS)}× instructions per query${threads === 'all' ? ' of all threads' : ''}` },
};

// How many grown functions the issue lists (the comment shows 3; an issue is read at leisure).
const ISSUE_FUNCTIONS = 10;

const short = (sha) => String(sha).slice(0, 7);

function signalOf(name) {
  return { ...signals.signalOf(name, 'regression issue'), ...LOOKS[name] };
}

function benchmarkOf(verdict, benchmarkId) {
  const b = verdict.benchmarks.find((x) => x.id === benchmarkId);
  if (!b) throw new Error(`regression issue: the verdict has no microbenchmark '${benchmarkId}'`);
  return b;
}

function marker(dedupeKey) {
  return `<!-- perfgate:regression ${dedupeKey} -->`;
}

function intervalText(b, signal) {
  const s = signalOf(signal);
  const { interval: i, word } = signals.signalFigure(b, signal);
  return i ? `${word} ${F.estimate(i, s.digits)} [${F.interval(i, s.digits).replace('–', ', ')}]` : `${word} not measured`;
}

// How the regression was confirmed, in the words of the issue.
function confirmationLines(confirmation) {
  const lines = [];
  if (confirmation.remeasured) lines.push(`- re-measured on fresh servers (the same pinned pair): ${confirmation.remeasured}`);
  if (confirmation.changePoint) lines.push(`- change point over consecutive main commits: ${confirmation.changePoint}`);
  return lines;
}

/**
 * regressionIssue({verdict, benchmarkId, signal, repo, lastGood, firstBad, dedupeKey, confirmation})
 *   verdict     perfgate.verdict/v2 of the run that found it (base = lastGood, head = firstBad)
 *   signal      'rqps' | 'instructions_per_query'
 *   lastGood, firstBad  commit SHAs on the main branch
 *   confirmation {remeasured?: text, changePoint?: text}: what confirmed it (at least one)
 * -> {title, body}
 */
function regressionIssue({ verdict, benchmarkId, signal, repo, lastGood, firstBad, dedupeKey, confirmation }) {
  const s = signalOf(signal);
  const b = benchmarkOf(verdict, benchmarkId);
  const { interval: i, word, threads } = signals.signalFigure(b, signal);
  if (!i) throw new Error(`regression issue: '${benchmarkId}' has no ${s.word} interval in the verdict`);
  const confirmed = confirmationLines(confirmation || {});
  if (!confirmed.length) throw new Error('regression issue: a regression is filed only when confirmed (re-measurement or change point)');
  const sides = verdict.run.sides || {};
  const title = `${b.id}: ${s.title(i.estimate, threads)} since ${short(firstBad)}`;
  const parts = [
    marker(dedupeKey),
    `perfgate, watching the main branch of ${repo}, found ${M.code(b.id, { max: M.NAME_MAX })} regressed on ${word}: ${intervalText(b, signal)} `
      + `at ${firstBad} against ${lastGood}.`,
    '',
    `Verdict: ${M.text(b.reason)}.`,
    // Why it got slower, where the explanation step looked at the row (docs/explain.md).
    ...(b.cause ? ['', `Cause: ${M.text(b.cause.line)}`] : []),
    '',
    'Confirmed by:',
    ...confirmed,
    '',
    '### Measurement',
    '',
    M.benchmarkTable([b]),
    '',
    M.legend([b]),
  ];
  const went = M.instructionsSection([b], ISSUE_FUNCTIONS);
  parts.push('', '### Where the instructions went', '', went || 'Instructions were not counted for this microbenchmark in this run.');
  parts.push('', '### Commit range', '', `Last good ${lastGood}, first bad ${firstBad}. The commits in between, and a search for the one to blame:`,
    '', M.fence([`git log --first-parent --oneline ${lastGood}..${firstBad}`,
      `perfgate bisect --source <checkout> --good ${lastGood} --bad ${firstBad} --tests ${M.oneLine(b.id, M.NAME_MAX)} --out bisect-${short(firstBad)}`], 'sh'));
  const options = F.optionRows(sides);
  if (options.length) {
    parts.push('', '### Server options', '', '| option | last good | first bad |', '|:--|:--|:--|');
    for (const o of options) parts.push(`| ${o.differs ? '**' : ''}${M.text(o.key)}${o.differs ? '**' : ''} | ${M.text(o.base ?? 'unset')} | ${M.text(o.head ?? 'unset')} |`);
  }
  const machine = F.machineLines(verdict.run.machine);
  if (machine.length) parts.push('', '### Machine', '', ...machine.map(([k, v]) => `- ${k}: ${M.code(v)}`));
  const commands = F.commandLines(b, sides);
  if (commands.length) {
    parts.push('', '### Reproduce by hand', '', 'Build both commits, start each server with the options above, and run:', '', M.fence(commands, 'sh'));
  }
  parts.push('', `Method: ${M.text(verdict.method)}; ${Math.round(verdict.confidence * 100)}% intervals.`);
  return { title, body: parts.join('\n') + '\n' };
}

// A later main commit on which the regression is still there.
function sightingComment({ verdict, benchmarkId, signal, base, head, sightings }) {
  const b = benchmarkOf(verdict, benchmarkId);
  return `Seen again (sighting ${sightings}) at ${head} against ${base}: ${intervalText(b, signal)}. ${M.text(b.reason)}.\n`;
}

// A later main commit on which the signal is back within limits.
function recoveryComment({ verdict, benchmarkId, signal, base, head }) {
  const b = benchmarkOf(verdict, benchmarkId);
  return `Back within limits at ${head} (${intervalText(b, signal)} against ${base}): fixed by ${head}. Closing.\n`;
}

module.exports = { regressionIssue, sightingComment, recoveryComment, regressionMarker: marker };
