'use strict';
// The dashboard's pure parts: the SVG chart, the pages (escaping of everything from the store)
// and the query parameters (every 400 message pinned).
const test = require('node:test');
const assert = require('node:assert/strict');
const { seriesChart } = require('../../../bot/src/dashboard/chart');
const pages = require('../../../bot/src/dashboard/pages');
const { esc, webLink, link } = require('../../../bot/src/dashboard/html');
const { readParameters, ParameterError } = require('../../../bot/src/dashboard/params');

const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>';
const site = { base: '/dashboard', webUrl: 'https://github.com' };
const count = (text, pattern) => (text.match(pattern) || []).length;
// Every tag of a page: a page that escapes nothing extra has only the tags it writes itself.
const tagsOf = (html) => new Set([...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1].toLowerCase()));

test('esc and links: markup is escaped, only http(s) and own-path links are made', () => {
  assert.equal(esc(`a<b>&"c'`), 'a&lt;b&gt;&amp;&quot;c&#39;');
  assert.equal(esc(null), '');
  assert.equal(webLink('javascript:alert(1)'), null);
  assert.equal(webLink('data:text/html,x'), null);
  assert.equal(webLink('//evil.example/x'), null);
  assert.equal(webLink('https://github.com/o/r/issues/1'), 'https://github.com/o/r/issues/1');
  assert.equal(link('javascript:alert(1)', 'MDEV-2'), 'MDEV-2');
  assert.equal(link('//evil.example/', 'x'), 'x');
  assert.equal(link('/dashboard/runs?a=1&b=2', 'runs'), '<a href="/dashboard/runs?a=1&amp;b=2">runs</a>');
  assert.equal(link('https://x.example/"><script>', HOSTILE), `<a href="https://x.example/%22%3E%3Cscript%3E">${esc(HOSTILE)}</a>`);
});

const ratioPoints = [2, 3, 4, 5, 6, 7].map((seq) => ({ seq, value: seq < 5 ? 1.0 : 1.08, low: 0.99, high: 1.1, label: `#${seq} ${HOSTILE}`, href: `https://github.com/o/r/commit/${seq}` }));

test('seriesChart: one mark per point, intervals for ratios, change points between commits', () => {
  const svg = seriesChart({
    key: 'instructions_ratio', title: 'instr/o', kind: 'ratio', format: (v) => v.toFixed(2), points: ratioPoints,
    changePoints: [{ seq: 5, label: `change ${HOSTILE}`, href: 'https://github.com/o/r/commit/5' }],
  });
  assert.match(svg, /^<svg class="chart" data-chart="instructions_ratio"/);
  assert.equal(count(svg, /<circle class="point"/g), 6);
  assert.equal(count(svg, /<g class="change-point" data-seq="5">/g), 1);
  // The mark sits halfway between #4 and #5.
  const xOf = (seq) => Number(new RegExp(`<a href="https://github.com/o/r/commit/${seq}">(?:<line [^>]*>)?<circle class="point" cx="([0-9.]+)"`).exec(svg)[1]);
  const mark = Number(/<g class="change-point" data-seq="5"><a href="[^"]+"><line x1="([0-9.]+)"/.exec(svg)[1]);
  assert.ok(Math.abs(mark - (xOf(4) + xOf(5)) / 2) < 0.2, `mark at ${mark}, commits at ${xOf(4)} and ${xOf(5)}`);
  // Ratios have the 1.00 reference line and a trend through the commits.
  assert.equal(count(svg, /class="reference"/g), 1);
  assert.equal(count(svg, /<polyline class="trend"/g), 1);
  // Labels are escaped: no tag of the label survives.
  assert.doesNotMatch(svg, /<script|<img/);
  assert.equal(count(svg, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/g), 7);
});

test('seriesChart: absolute values on a linear scale, no reference line; an empty series is a sentence', () => {
  const svg = seriesChart({
    key: 'qps', title: 'QPS', kind: 'absolute', format: (v) => v.toFixed(0),
    points: [{ seq: 1, value: 9000, label: 'a' }, { seq: 1, value: 11000, label: 'b' }, { seq: 2, value: 10000, label: 'c', href: 'javascript:alert(1)' }],
  });
  assert.equal(count(svg, /<circle class="point"/g), 3);
  assert.equal(count(svg, /class="reference"/g), 0);
  assert.doesNotMatch(svg, /javascript:/);
  assert.equal(count(svg, /<a href=/g), 0);
  assert.equal(seriesChart({ key: 'qps', title: 'QPS <b>', kind: 'absolute', format: String, points: [] }),
    '<p class="muted" data-chart-empty="qps">No QPS &lt;b&gt; on main in this window.</p>');
  // A point without a finite value is left out, not drawn at 0.
  assert.equal(count(seriesChart({ key: 'q', title: 'q', kind: 'absolute', format: String, points: [{ seq: 1, value: 5, label: '' }, { seq: 2, value: NaN, label: '' }] }), /<circle/g), 1);
});

const history = {
  repo: 'o/r', microbenchmark: `update-index_range=100${HOSTILE}`, fromSeq: 1, toSeq: 7,
  series: {
    instructions_ratio: ratioPoints.map((p) => ({ seq: p.seq, sha: `${p.seq}abc`, runId: p.seq, machine: 'aaaaaaaa', estimate: p.value, low: p.low, high: p.high, n: 3 })),
    rqps: [], instructions_per_query: [],
    qps: [{ seq: 7, sha: '7abc', runId: 9, side: 'head', machine: 'bbbbbbbb', values: [1], n: 1, value: 10000 }],
  },
  changePoints: [{ id: 1, benchKey: HOSTILE, signal: 'instructions_per_query', seq: 5, sha: '5abc', previousSha: '4abc', machine: 'aaaaaaaa',
    meanBefore: 100, meanAfter: 108, ratio: 1.08, pvalue: 0.001, method: HOSTILE, detectedAt: Date.UTC(2026, 10, 20) }],
  commits: new Map([1, 2, 3, 4, 5, 6, 7].map((seq) => [seq, { sha: `${seq}abc`, subject: `subject ${seq} ${HOSTILE}`, committedAt: Date.UTC(2026, 10, seq) }])),
  machines: ['aaaaaaaa', 'bbbbbbbb'],
};

test('historyPage: charts per signal on the latest runner, change points marked and listed, everything escaped', () => {
  const html = pages.historyPage({ ...site, history, params: { repo: 'o/r', benchmark: history.microbenchmark, last: 100, machine: null } });
  assert.deepEqual([...tagsOf(html)].sort(), ['a', 'b', 'body', 'circle', 'g', 'h1', 'h2', 'head', 'html', 'line', 'link', 'meta', 'nav', 'p', 'path', 'polyline', 'span', 'svg', 'table', 'tbody', 'td', 'text', 'th', 'thead', 'title', 'tr'].sort());
  assert.equal(count(html, /<svg class="chart" data-chart="instructions_ratio"/g), 1);
  assert.equal(count(html, /data-chart-empty=/g), 4, 'rqps, all threads\' instr/o and instructions per query are empty; qps is on the other runner');
  assert.equal(count(html, /<g class="change-point"/g), 1);
  assert.equal(count(html, /<tr class="change-point-row">/g), 1);
  assert.match(html, /main commits #1 to #7 on runner aaaaaaaa/);
  // The other runner is one link away.
  assert.match(html, /<a href="\/dashboard\/history\?repo=o%2Fr&amp;benchmark=update-index_range%3D100%3Cscript%3E[^"]*&amp;machine=bbbbbbbb">bbbbbbbb<\/a>/);
  assert.match(html, /<a href="https:\/\/github.com\/o\/r\/commit\/5abc">#5 5abc subject 5 &lt;script&gt;/);
  const other = pages.historyPage({ ...site, history, params: { repo: 'o/r', benchmark: 'x', last: 100, machine: 'bbbbbbbb' } });
  assert.equal(count(other, /<svg class="chart" data-chart="qps"/g), 1);
  assert.equal(count(other, /<g class="change-point"/g), 0);
});

test('runs, regressions and sign-off pages escape what the store holds and link only web URLs', () => {
  const runs = pages.runsPage({
    ...site,
    runs: [
      { id: 3, repo: 'o/r', suite: HOSTILE, status: 'ok', storedAt: Date.UTC(2026, 10, 20), verdict: 'fail', headline: HOSTILE, prNumber: 42, runUrl: 'https://github.com/o/r/actions/runs/7', headSha: 'abc', headSeq: null, baseSha: 'def', baseSeq: 4 },
      { id: 2, repo: 'o/r', suite: 'quick', status: 'ok', storedAt: Date.UTC(2026, 10, 19), verdict: `pass" onclick="x`, headline: 'h', prNumber: null, runUrl: 'javascript:alert(1)', headSha: 'abc', headSeq: 5, baseSha: null, baseLabel: HOSTILE },
    ],
    params: { repo: null, suite: null, before: null, limit: 2 },
  });
  assert.doesNotMatch(runs, /<script|<img|javascript:|" onclick/);
  assert.match(runs, /<a href="https:\/\/github.com\/o\/r\/pull\/42">PR #42<\/a>/);
  assert.match(runs, /<a href="https:\/\/github.com\/o\/r\/actions\/runs\/7">workflow run<\/a>/);
  assert.match(runs, /<a href="\/dashboard\/runs\?before=2&amp;limit=2">Older runs<\/a>/);
  assert.match(runs, /<span class="verdict fail" data-verdict="fail">fail<\/span>/);

  const regressions = pages.regressionsPage({
    ...site,
    regressions: [{ id: 1, repo: 'o/r', microbenchmark: HOSTILE, benchKey: 'b', signal: 'qps', status: 'open', estimate: 0.9, low: 0.88, high: 0.92, tracker: 'jira', issueKey: HOSTILE, issueUrl: 'javascript:alert(1)', sightings: 2, openedAt: 0, lastSeenAt: 0, closedAt: null, firstBadSha: 'abc', firstBadSeq: 5, firstBadSubject: HOSTILE, lastGoodSha: null, fixedBySha: null }],
    params: { repo: null, status: 'open' },
  });
  assert.doesNotMatch(regressions, /<script|<img|javascript:/);
  assert.match(regressions, /0\.900 \[0\.880, 0\.920\]/);
  assert.match(regressions, /<a href="\/dashboard\/regressions\?status=all">all, closed ones too<\/a>/);

  const signoffs = pages.signoffsPage({
    ...site,
    signoffs: [{ id: 1, repo: 'o/r', candidateRef: HOSTILE, candidateSha: 'abc', previousRef: 'v1', previousSha: 'def', suites: ['full', HOSTILE], status: 'completed', state: 'failure', summary: HOSTILE, createdAt: 0, completedAt: null, verdict: null, headline: null,
      waivers: [{ microbenchmark: 'scan_range=100', reason: HOSTILE, author: 'rm', createdAt: 0 }] }],
    params: {},
  });
  assert.doesNotMatch(signoffs, /<script|<img/);
  assert.match(signoffs, /<li>scan_range=100: &lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt; \(rm\)<\/li>/);
  assert.match(signoffs, /<td>full, &lt;script&gt;/, 'the suites, escaped');

  const overview = pages.overviewPage({ ...site, catalogue: [{ repo: 'o/r', microbenchmark: HOSTILE, runs: 3, lastSeq: 9, changePoints: 1, openRegressions: 0 }], regressions: [], runs: [] });
  assert.doesNotMatch(overview, /<script|<img/);
  assert.match(overview, /No runs stored yet/);
});

test('readParameters: defaults, and one line naming the parameter and the expected form', () => {
  const read = (page, qs) => readParameters(page, new URLSearchParams(qs));
  const problem = (page, qs) => {
    try {
      read(page, qs);
    } catch (err) {
      assert.ok(err instanceof ParameterError);
      return err.message;
    }
    assert.fail(`${page}?${qs} was accepted`);
  };
  assert.deepEqual(read('runs', ''), { repo: null, suite: null, before: null, limit: 50 });
  assert.deepEqual(read('history', 'repo=o/r&benchmark=point-select%2B5%25update-index&threads=8&ahi=ON&last=20&machine=ce1c063cdb6b2b21'),
    { repo: 'o/r', benchmark: 'point-select+5%update-index', machine: 'ce1c063cdb6b2b21', threads: 8, ahi: 'ON', last: 20 });
  assert.deepEqual(read('regressions', 'status=all'), { repo: null, status: 'all' });
  assert.equal(problem('runs', 'limit=0'), "query parameter 'limit' is \"0\"; expected an integer from 1 to 500");
  assert.equal(problem('runs', 'limit=ten'), "query parameter 'limit' is \"ten\"; expected an integer from 1 to 500");
  assert.equal(problem('runs', 'before=-1'), "query parameter 'before' is \"-1\"; expected an integer from 1 to 9007199254740991");
  assert.equal(problem('runs', 'repo=nope'), "query parameter 'repo' is \"nope\"; expected a repository as owner/name");
  assert.equal(problem('runs', 'limit=5&limit=6'), "query parameter 'limit' is given 2 times; expected it once");
  assert.equal(problem('runs', 'sort=id'), "unknown query parameter 'sort'; expected only repo, suite, before, limit");
  assert.equal(problem('history', 'repo=o/r'), "query parameter 'benchmark' is missing; expected a microbenchmark name such as update-index_range=100");
  assert.equal(problem('history', `repo=o/r&benchmark=${encodeURIComponent(HOSTILE)}`),
    `query parameter 'benchmark' is ${JSON.stringify(HOSTILE)}; expected a microbenchmark name such as update-index_range=100`);
  assert.equal(problem('history', 'repo=o/r&benchmark=x&ahi=on'), "query parameter 'ahi' is \"on\"; expected one of ON, OFF");
  assert.equal(problem('history', 'repo=o/r&benchmark=x&machine=XYZ'), "query parameter 'machine' is \"XYZ\"; expected a runner fingerprint (machine id: 8 to 64 lowercase hexadecimal digits)");
  assert.equal(problem('history', 'repo=o/r&benchmark=x&last=1'), "query parameter 'last' is \"1\"; expected an integer from 2 to 5000");
  assert.equal(problem('regressions', 'status=closed'), "query parameter 'status' is \"closed\"; expected one of open, all");
  assert.equal(problem('runs', `suite=${'s'.repeat(100)}`), `query parameter 'suite' is "${'s'.repeat(80)}…"; expected a suite name such as quick`);
});

test("webUrlOf: GitHub's web address from its API address", () => {
  const { webUrlOf } = require('../../../bot/src/dashboard/handler');
  assert.equal(webUrlOf('https://api.github.com'), 'https://github.com');
  assert.equal(webUrlOf('https://ghe.example.com/api/v3'), 'https://ghe.example.com');
  assert.equal(webUrlOf('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
});
