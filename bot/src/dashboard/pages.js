'use strict';
// The dashboard's pages: what the store queries returned, rendered to HTML. Pure (data in,
// text out) and self-contained: the one stylesheet is served beside the pages, no script, no
// font or image from elsewhere. Everything from the store is escaped (html.js).
const { formatCount, learnedSignalWord } = require('@perfgate/core');
const { esc, link, query } = require('./html');
const { seriesChart } = require('./chart');

const STYLESHEET = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:1200px;margin:16px auto;padding:0 16px}
nav{border-bottom:1px solid #d0d7de;padding:6px 0 8px;margin-bottom:12px}nav a{margin-right:16px;text-decoration:none;color:#0969da}nav a.here{font-weight:600;color:#1f2328}
h1{font-size:21px;margin:6px 0 8px}h2{font-size:17px;margin:24px 0 6px;border-bottom:1px solid #d0d7de;padding-bottom:3px}
.muted{color:#57606a}.small{font-size:12px}code{font-size:12px}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa}td.n{text-align:right}
.verdict{display:inline-block;color:#fff;border-radius:9px;padding:0 7px;font-size:12px;background:#6e7781}
.verdict.pass{background:#1a7f37}.verdict.warn{background:#9a6700}.verdict.fail{background:#cf222e}.verdict.error{background:#8250df}
svg.chart{border:1px solid #d0d7de;border-radius:6px;max-width:900px;display:block}svg text{font:11px system-ui,sans-serif;fill:#1f2328}svg text.tick{fill:#57606a;font-size:10px}
.legend{font-size:12px;color:#57606a}.legend .cp{color:#cf222e;font-weight:600}
td.t,td.c{white-space:nowrap}tr.unstable td{background:#fff8c5}h3{font-size:15px;margin:14px 0 4px}
`;

// Browsers ask for an icon on their own; one served here keeps that request on the page's origin.
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/>'
  + '<polyline points="2,11 6,7 9,9 14,3" fill="none" stroke="#fff" stroke-width="2"/></svg>';

const NAV = [['overview', '', 'Overview'], ['runs', '/runs', 'Recent runs'], ['regressions', '/regressions', 'Regressions'], ['signoffs', '/signoffs', 'Sign-offs']];

const time = (ms) => (Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC` : '–');
const short = (sha) => String(sha || '').slice(0, 10);
const ratio = (v) => (Number.isFinite(v) ? v.toFixed(3) : '–');
const interval = (low, high) => (Number.isFinite(low) && Number.isFinite(high) ? `[${ratio(low)}, ${ratio(high)}]` : '');
const verdictBadge = (verdict) => (verdict ? `<span class="verdict ${esc(verdict)}" data-verdict="${esc(verdict)}">${esc(verdict)}</span>` : '<span class="muted">not judged</span>');

/** Where a commit lives on GitHub (webUrl: https://github.com or a GitHub Enterprise host). */
function commitUrl(webUrl, repo, sha) {
  if (!webUrl || !repo || !sha) return null;
  return `${webUrl}/${String(repo).split('/').map(encodeURIComponent).join('/')}/commit/${encodeURIComponent(sha)}`;
}

function pullUrl(webUrl, repo, number) {
  if (!webUrl || !repo || !Number.isInteger(number)) return null;
  return `${webUrl}/${String(repo).split('/').map(encodeURIComponent).join('/')}/pull/${number}`;
}

function layout({ title, active, base, body }) {
  const nav = NAV.map(([key, path, text]) => `<a href="${esc(base + path)}"${key === active ? ' class="here"' : ''}>${esc(text)}</a>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · perfgate</title>
<link rel="stylesheet" href="${esc(base)}/style.css">
<link rel="icon" href="${esc(base)}/icon.svg">
</head><body>
<nav><b>perfgate</b> · ${nav}</nav>
<h1>${esc(title)}</h1>
${body}
</body></html>
`;
}

function table(headers, rows, attributes = '') {
  if (!rows.length) return '<p class="muted">None.</p>';
  return `<table${attributes}><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const historyLink = (base, repo, microbenchmark, extra = {}) => `${base}/history${query({ repo, benchmark: microbenchmark, ...extra })}`;

const share = (p) => (Number.isFinite(p) ? `${(100 * p).toFixed(2)}%` : '–');

// What main's history teaches each row (store's learnedFromMain, core's rule): the unstable rows
// first, named above the table, since they are judged by nothing until their benchmark is fixed.
function learnedSection(learned, minRuns, base) {
  if (!learned) return '';
  const entries = Object.entries(learned.rows).flatMap(([id, bySignal]) => Object.entries(bySignal).map(([signal, l]) => ({ id, signal, l })));
  entries.sort((a, b) => Number(Boolean(b.l.unstable)) - Number(Boolean(a.l.unstable)));
  const unstable = entries.filter((e) => e.l.unstable);
  const rows = entries.map(({ id, signal, l }) => `<tr data-row="${esc(id)}" data-signal="${esc(signal)}"${l.unstable ? ' class="unstable"' : ''}>`
    + `<td>${esc(id)}</td><td>${esc(learnedSignalWord(signal))}</td><td class="n">${l.runs}</td><td class="n">${l.enough ? share(l.p99) : `${share(l.largest)} (largest)`}</td>`
    + `<td>${!l.enough ? esc(`fewer than ${minRuns} runs: the suite's limits`) : l.unstable ? '<b>unstable</b>: not judged by this signal' : esc(`warn ${l.warn}, fail ${l.fail}`)}</td></tr>`);
  const named = unstable.length
    ? `<p class="unstable-list"><b>Unstable on main</b>, judged by nothing until the benchmark is fixed: ${unstable.map(({ id, signal, l }) => `${esc(id)} (${esc(learnedSignalWord(signal))} spread ${share(l.p99)} over ${l.runs} runs)`).join(', ')}.</p>`
    : '';
  const suite = learned.suite || 'unnamed suite';
  const file = learned.suite ? ` ${link(`${base}/learned.yml${query({ repo: learned.repo, suite: learned.suite })}`, `learned/${learned.suite}.yml`)}` : ' learned/&lt;suite&gt;.yml';
  const changes = learned.changesLeftOut ? ` ${learned.changesLeftOut} figure${learned.changesLeftOut === 1 ? '' : 's'} at regressions filed on main or their fixes left out.` : '';
  return `<h3>Limits learned from main: ${esc(suite)}</h3><p class="muted small">${learned.runs} runs of main on runner ${esc(learned.runner || 'unknown')}, main commits #${learned.fromSeq} to #${learned.toSeq}: `
    + `fail at 1.5 × the 99th percentile of how far main's runs read from 1, within calibrate's floors and caps.${changes} A pull request is judged by them once the base branch holds${file}.</p>`
    + named + table(['row', 'signal', 'runs', 'spread (99th percentile)', 'limits'], rows, ' class="learned"');
}

/** The microbenchmarks with a history on main, per repository, and what is open. */
function overviewPage({ base, catalogue, regressions, runs, webUrl, learned = [], minRuns }) {
  const repos = [...new Set(catalogue.map((c) => c.repo))];
  const sections = repos.map((repo) => {
    const rows = catalogue.filter((c) => c.repo === repo).map((c) => `<tr data-microbenchmark="${esc(c.microbenchmark)}">`
      + `<td>${link(historyLink(base, repo, c.microbenchmark), c.microbenchmark)}</td><td class="n">${c.runs}</td><td class="n">#${c.lastSeq}</td>`
      + `<td class="n">${c.changePoints}</td><td class="n">${c.openRegressions}</td></tr>`);
    return `<h2>${link(webUrl ? `${webUrl}/${String(repo).split('/').map(encodeURIComponent).join('/')}` : null, repo)}</h2>`
      + table(['microbenchmark', 'runs on main', 'last main commit', 'change points', 'open regressions'], rows)
      + learned.filter((l) => l.repo === repo).map((l) => learnedSection(l, minRuns, base)).join('');
  });
  const body = [
    `<p>${runs.length ? `Latest run: ${esc(runs[0].suite || 'run')} ${verdictBadge(runs[0].verdict)} ${esc(runs[0].headline || '')} (${esc(time(runs[0].storedAt))}). ` : 'No runs stored yet. '}`
      + `${link(`${base}/runs`, 'Recent runs')} · ${link(`${base}/regressions`, `${regressions.length} open regression${regressions.length === 1 ? '' : 's'}`)}</p>`,
    repos.length ? '<p class="muted">The microbenchmarks measured on main among the latest 1000 runs stored: pick one to chart its history.</p>'
      : '<p class="muted">None of the latest 1000 runs stored measured a commit on main.</p>',
    ...sections,
  ];
  return layout({ title: 'Overview', active: 'overview', base, body: body.join('\n') });
}

// The charts of a history page: which series, how it is drawn, and which change points'
// signals belong on it.
const CHARTS = [
  { key: 'instructions_ratio', title: 'instr/o head/base (judged, 95% interval)', kind: 'ratio', format: ratio, changes: ['instructions_per_query'] },
  // The figure that decides where work moves to background threads (a loop in purge).
  { key: 'all_threads_ratio', title: 'instr/o of all threads head/base (judged, 95% interval)', kind: 'ratio', format: ratio, changes: ['instructions_per_query'] },
  { key: 'instructions_per_query', title: 'instructions per query (per side and run)', kind: 'absolute', format: (v) => formatCount(v), changes: ['instructions_per_query'] },
  { key: 'rqps', title: 'rQPS head/base (judged, 95% interval)', kind: 'ratio', format: ratio, changes: ['rqps'] },
  { key: 'qps', title: 'QPS (per side and run)', kind: 'absolute', format: (v) => (Math.abs(v) >= 1000 ? formatCount(v) : v.toFixed(0)), changes: ['qps'] },
];

function commitLabel(history, seq, sha) {
  const commit = history.commits.get(seq);
  const subject = commit && commit.subject ? ` ${commit.subject}` : '';
  return `#${seq} ${short(sha || (commit && commit.sha))}${subject}`;
}

/**
 * One microbenchmark's history on main: a chart per signal with its change points, then the
 * change points and the commits of the window as tables.
 * machine: the runner to show; by default the one that measured last (timings of two runners
 * do not compare).
 */
function historyPage({ base, history, webUrl, params }) {
  const machine = params.machine || history.machines[0] || null;
  const onMachine = (p) => machine === null || p.machine === machine;
  const { repo, microbenchmark } = history;
  const toCommit = (sha) => commitUrl(webUrl, repo, sha);
  const changePoints = history.changePoints.filter((c) => machine === null || c.machine === null || c.machine === machine);
  const charts = CHARTS.map((c) => {
    const points = (history.series[c.key] || []).filter(onMachine).map((p) => {
      const ratioPoint = 'estimate' in p;
      const value = ratioPoint ? p.estimate : p.value;
      const what = ratioPoint ? `${ratio(p.estimate)} ${interval(p.low, p.high)} from ${p.n} pairs` : `${p.side} ${c.format(p.value)} over ${p.n} round${p.n === 1 ? '' : 's'}`;
      return { seq: p.seq, value, low: p.low, high: p.high, href: toCommit(p.sha), label: `${commitLabel(history, p.seq, p.sha)}: ${what} (run ${p.runId})` };
    });
    const marks = changePoints.filter((cp) => c.changes.includes(cp.signal)).map((cp) => ({
      seq: cp.seq, href: toCommit(cp.sha),
      label: `change point at ${commitLabel(history, cp.seq, cp.sha)}: ${cp.signal} ${ratio(cp.ratio)} (${cp.method})`,
    }));
    return `<h2>${esc(c.title)}</h2>${seriesChart({ key: c.key, title: c.title, kind: c.kind, format: c.format, points, changePoints: marks })}`;
  });
  const machines = history.machines.length > 1
    ? `<p class="small">Runners: ${history.machines.map((m) => (m === machine ? `<b>${esc(m)}</b>` : link(historyLink(base, repo, microbenchmark, { ...params, machine: m }), m))).join(' · ')}</p>`
    : '';
  const firstSeq = Math.min(...history.commits.keys());
  const window = history.toSeq === null ? 'no commit on main recorded'
    : `main commits #${firstSeq} to #${history.toSeq}${machine ? ` on runner ${machine}` : ''}`;
  const cpRows = changePoints.map((cp) => `<tr class="change-point-row"><td>${link(toCommit(cp.sha), commitLabel(history, cp.seq, cp.sha))}</td><td>${esc(cp.signal)}</td>`
    + `<td>${esc(cp.benchKey)}</td><td class="n">${ratio(cp.meanBefore && cp.meanAfter ? cp.meanAfter / cp.meanBefore : cp.ratio)}</td>`
    + `<td class="n">${Number.isFinite(cp.pvalue) ? esc(cp.pvalue.toPrecision(2)) : '–'}</td><td>${esc(cp.method)}</td><td class="t">${esc(time(cp.detectedAt))}</td></tr>`);
  const commitRows = [...history.commits.entries()].sort((a, b) => b[0] - a[0]).slice(0, 50)
    .map(([seq, c]) => `<tr><td class="n">#${seq}</td><td>${link(toCommit(c.sha), short(c.sha))}</td><td>${esc(c.subject || '')}</td><td class="t">${esc(time(c.committedAt))}</td></tr>`);
  const body = [
    `<p>${link(`${base}${query({ repo })}`, repo)} · ${esc(window)}. Each point links to its commit; `
      + '<span class="legend"><span class="cp">red dashed marks</span> are change points, drawn between the last commit before the move and the first after it.</span></p>',
    machines,
    ...charts,
    '<h2>Change points</h2>',
    table(['first commit after', 'signal', 'series', 'after/before', 'p', 'method', 'found'], cpRows, ' data-table="change-points"'),
    '<h2>Commits on main (latest 50 of the window)</h2>',
    table(['#', 'commit', 'subject', 'committed'], commitRows),
  ];
  return layout({ title: `${microbenchmark} on main`, active: 'overview', base, body: body.join('\n') });
}

function runsPage({ base, runs, webUrl, params }) {
  const rows = runs.map((r) => {
    const commit = (sha, seq, label) => (sha ? `${link(commitUrl(webUrl, r.repo, sha), short(sha))}${Number.isInteger(seq) ? ` <span class="muted">main #${seq}</span>` : ''}` : esc(label || '–'));
    const what = Number.isInteger(r.prNumber) ? link(pullUrl(webUrl, r.repo, r.prNumber), `PR #${r.prNumber}`) : Number.isInteger(r.headSeq) ? 'main' : '–';
    return `<tr data-run="${r.id}"><td class="n">${r.id}</td><td class="t">${esc(time(r.storedAt))}</td><td>${esc(r.repo || '')}</td><td>${esc(r.suite || '')}</td><td>${what}</td>`
      + `<td class="c">${commit(r.headSha, r.headSeq, r.headLabel)}</td><td class="c">${commit(r.baseSha, r.baseSeq, r.baseLabel)}</td><td>${verdictBadge(r.verdict)}</td>`
      + `<td>${esc(r.headline || r.status)}</td><td>${r.runUrl ? link(r.runUrl, 'workflow run') : ''}</td></tr>`;
  });
  const older = runs.length === params.limit ? `<p>${link(`${base}/runs${query({ ...params, before: runs.at(-1).id })}`, 'Older runs')}</p>` : '';
  const filter = [params.repo && `repository ${params.repo}`, params.suite && `suite ${params.suite}`].filter(Boolean).join(', ');
  const body = [
    `<p class="muted">The latest ${params.limit} runs${filter ? ` of ${esc(filter)}` : ''}, newest first${params.before ? `, older than run ${params.before}` : ''}.</p>`,
    table(['run', 'stored', 'repository', 'suite', 'for', 'head', 'base', 'verdict', 'headline', ''], rows, ' data-table="runs"'),
    older,
  ];
  return layout({ title: 'Recent runs', active: 'runs', base, body: body.join('\n') });
}

function regressionsPage({ base, regressions, webUrl, params }) {
  const rows = regressions.map((g) => {
    const issue = g.issueUrl ? link(g.issueUrl, g.issueKey || 'issue') : esc(g.issueKey || '–');
    return `<tr data-regression="${g.id}"><td>${esc(g.status)}</td><td>${esc(g.repo)}</td><td>${link(historyLink(base, g.repo, g.microbenchmark), g.microbenchmark)}</td>`
      + `<td>${esc(g.signal)}</td><td class="n">${ratio(g.estimate)} ${esc(interval(g.low, g.high))}</td>`
      + `<td>${link(commitUrl(webUrl, g.repo, g.firstBadSha), short(g.firstBadSha))}${Number.isInteger(g.firstBadSeq) ? ` <span class="muted">main #${g.firstBadSeq}</span>` : ''} ${esc(g.firstBadSubject || '')}</td>`
      + `<td>${g.lastGoodSha ? link(commitUrl(webUrl, g.repo, g.lastGoodSha), short(g.lastGoodSha)) : '–'}</td><td>${esc(g.tracker || '')} ${issue}</td>`
      + `<td class="n">${g.sightings}</td><td class="t">${esc(time(g.openedAt))}</td><td>${g.closedAt ? `${esc(time(g.closedAt))}${g.fixedBySha ? ` by ${link(commitUrl(webUrl, g.repo, g.fixedBySha), short(g.fixedBySha))}` : ''}` : ''}</td></tr>`;
  });
  const other = params.status === 'open' ? link(`${base}/regressions${query({ ...params, status: 'all' })}`, 'all, closed ones too') : link(`${base}/regressions${query({ ...params, status: 'open' })}`, 'open only');
  const body = [
    `<p class="muted">${params.status === 'open' ? 'Regressions on main still open' : 'All regressions, open ones first'}, newest first (${other}).</p>`,
    table(['status', 'repository', 'microbenchmark', 'signal', 'ratio', 'first bad commit', 'last good', 'tracker issue', 'seen', 'opened', 'closed'], rows, ' data-table="regressions"'),
  ];
  return layout({ title: 'Regressions', active: 'regressions', base, body: body.join('\n') });
}

function signoffsPage({ base, signoffs, webUrl }) {
  const rows = signoffs.map((s) => {
    const ref = (name, sha) => `${esc(name || '')} ${link(commitUrl(webUrl, s.repo, sha), short(sha))}`;
    const waivers = s.waivers.length
      ? `<ul>${s.waivers.map((w) => `<li>${esc(w.microbenchmark)}: ${esc(w.reason)}${w.author ? ` (${esc(w.author)})` : ''}</li>`).join('')}</ul>` : '<span class="muted">none</span>';
    return `<tr data-signoff="${s.id}"><td>${esc(s.repo)}</td><td>${ref(s.candidateRef, s.candidateSha)}</td><td>${ref(s.previousRef, s.previousSha)}</td>`
      + `<td>${esc((s.suites || []).join(', '))}</td><td>${esc(s.status)}${s.state ? ` (${esc(s.state)})` : ''}</td><td>${esc(s.summary || '')}</td>`
      + `<td>${waivers}</td><td class="t">${esc(time(s.createdAt))}</td><td class="t">${esc(time(s.completedAt))}</td></tr>`;
  });
  const body = [
    '<p class="muted">Release candidates judged against the previous release with the sign-off\'s suites, newest first: the decision the commit status carries, and what a maintainer waived.</p>',
    table(['repository', 'candidate', 'previous release', 'suites', 'status', 'decision', 'waivers', 'asked', 'completed'], rows, ' data-table="signoffs"'),
  ];
  return layout({ title: 'Release sign-offs', active: 'signoffs', base, body: body.join('\n') });
}

module.exports = { overviewPage, historyPage, runsPage, regressionsPage, signoffsPage, STYLESHEET, ICON, CHARTS, commitUrl };
