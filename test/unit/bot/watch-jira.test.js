'use strict';
// Watching main with Jira as the tracker, through the same interface as GitHub Issues: the
// bot's jira.js client against a local Jira double (test/support/jira-api.js), the history on
// SQLite. Seen twice → one issue and one comment; back within limits → a comment naming the
// fixing commit and the issue moved to Done; a noisy point → nothing.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');
const store = require('../../../bot/src/store');
const { jiraTracker, jiraKeyLabel, createJiraClient, trackerFor } = require('../../../bot/src/app/tracker');
const { settleMainResult } = require('../../../bot/src/app/watch');
const { startJiraDouble } = require('../../support/jira-api');
const { REPO, GOOD, BAD, STILL, FIX, regressed, aa } = require('../../support/watch-runs');


describe('watching main with Jira', () => {
  let jira;
  let dir;
  let count = 0;
  const stores = [];
  before(async () => {
    jira = await startJiraDouble({ project: 'PERF' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-jira-'));
  });
  after(async () => {
    for (const s of stores) await s.close();
    await jira.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = async () => {
    count += 1;
    const s = await store.openStore(path.join(dir, `history-${count}.db`));
    stores.push(s);
    return s;
  };
  const tracker = () => jiraTracker({ client: createJiraClient({ url: jira.url, user: jira.user, token: jira.token }), url: jira.url, projectKey: 'PERF' });

  test('seen twice files one issue and comments once; a recovery comments, names the fix and moves it to Done', async () => {
    const db = await open();
    const settle = (extra) => settleMainResult({ db, tracker: tracker(), repo: REPO, ...extra });
    await settle({ base: GOOD, head: BAD, verdict: regressed(), confirmation: regressed() });
    await settle({ base: GOOD, head: BAD, verdict: regressed(), confirmation: regressed() });
    const key = core.dedupeKey({ repo: REPO, benchKey: 'point-query', signal: 'instructions_per_query', firstBad: BAD });
    const updateKey = core.dedupeKey({ repo: REPO, benchKey: 'update-index_range=100', signal: 'instructions_per_query', firstBad: BAD });
    assert.deepEqual([...jira.issues.values()].map((i) => [i.key, i.fields.summary, i.fields.issuetype.name, i.fields.labels.join(',')]), [
      ['PERF-1', 'point-query: 1.088× instructions per query since abc1234', 'Bug', `performance,regression,${jiraKeyLabel(key)}`],
      ['PERF-2', 'update-index_range=100: 1.049× instructions per query since abc1234', 'Bug', `performance,regression,${jiraKeyLabel(updateKey)}`],
    ]);
    assert.match(jiraKeyLabel(key), /^perfgate-[0-9a-f]{20}$/);
    assert.ok(jira.issues.get('PERF-1').fields.description.startsWith(`<!-- perfgate:regression ${key} -->`));
    const row = await store.regressionByKey(db, key);
    assert.deepEqual([row.tracker, row.issueKey, row.issueUrl], ['jira', 'PERF-1', `${jira.url}/browse/PERF-1`]);

    await settle({ base: GOOD, head: STILL, verdict: regressed() });
    await settle({ base: GOOD, head: STILL, verdict: regressed() });
    assert.equal(jira.issues.get('PERF-1').comments.length, 1);
    assert.match(jira.issues.get('PERF-1').comments[0].body, new RegExp(`^Seen again \\(sighting 2\\) at ${STILL}`));

    await settle({ base: GOOD, head: FIX, verdict: aa() });
    const issue = jira.issues.get('PERF-1');
    assert.equal(issue.status, 'Done');
    assert.equal(issue.comments.at(-1).body, `Back within limits at ${FIX} (instr/o 1.001 [0.999, 1.002] against ${GOOD}): fixed by ${FIX}. Closing.\n`);
    assert.equal(jira.issues.get('PERF-2').status, 'Done');
    assert.deepEqual(jira.problems(), []);
  });

  test('a job that died after filing, before recording it: run again, it finds the issue by its label and files nothing twice (Cloud and Data Center search)', async () => {
    for (const searchPath of ['/rest/api/2/search/jql', '/rest/api/2/search']) {
      const own = await startJiraDouble({ project: 'PERF', searchPath });
      try {
        const db = await open();
        const client = () => jiraTracker({ client: createJiraClient({ url: own.url, user: own.user, token: own.token }), url: own.url, projectKey: 'PERF' });
        const dying = { ...client(), async file(issue) {
          await client().file(issue);
          throw new Error('the process died after Jira created the issue');
        } };
        const settle = (tracker) => settleMainResult({ db, tracker, repo: REPO, base: GOOD, head: BAD, verdict: regressed(), confirmation: regressed() });
        await assert.rejects(settle(dying), /died after Jira created/);
        assert.equal(own.issues.size, 1, searchPath);
        const again = await settle(client());
        assert.deepEqual(again.actions.map((a) => [a.action, a.benchKey, a.issue.key]), [['file', 'point-query', 'PERF-1'], ['file', 'update-index_range=100', 'PERF-2']], searchPath);
        assert.equal(own.issues.size, 2, `${searchPath}: the first issue was found, not filed again`);
        const key = core.dedupeKey({ repo: REPO, benchKey: 'point-query', signal: 'instructions_per_query', firstBad: BAD });
        assert.deepEqual([(await store.regressionByKey(db, key)).status, (await store.regressionByKey(db, key)).issueKey], ['open', 'PERF-1']);
        const searched = own.calls.filter((c) => c.path.startsWith('/rest/api/2/search'));
        assert.deepEqual(searched.map((c) => c.status), searchPath === '/rest/api/2/search' ? [404, 200] : [200], searchPath);
        assert.deepEqual(own.problems().filter((c) => !c.path.startsWith('/rest/api/2/search/jql')), []);
      } finally {
        await own.close();
      }
    }
  });

  test('Jira carries out a write and its answer is lost (502, reset): one issue, one comment; a Jira that hangs is given up at the timeout and looked at', async () => {
    const own = await startJiraDouble({ project: 'PERF' });
    try {
      const db = await open();
      const client = (options) => jiraTracker({ client: createJiraClient({ url: own.url, user: own.user, token: own.token }, options), url: own.url, projectKey: 'PERF', pauseMs: () => 10 });
      own.faults.push({ method: 'POST', path: /^\/rest\/api\/2\/issue$/, after: 502 });
      own.faults.push({ method: 'POST', path: /^\/rest\/api\/2\/issue$/, after: 'reset' });
      const settle = (head, tracker = client()) => settleMainResult({ db, tracker, repo: REPO, base: GOOD, head, verdict: regressed(), confirmation: regressed() });
      const filed = await settle(BAD);
      assert.deepEqual(filed.actions.map((a) => [a.action, a.issue.key]), [['file', 'PERF-1'], ['file', 'PERF-2']]);
      assert.equal(own.issues.size, 2, 'each issue created once, though both answers were lost');
      assert.deepEqual(own.calls.filter((c) => c.lost).map((c) => [c.status, c.lost]), [[201, '502'], [201, 'reset']]);

      own.faults.push({ method: 'POST', path: /\/comment$/, after: 502 });
      await settle(STILL);
      await settle(STILL);
      assert.equal(own.issues.get('PERF-1').comments.length, 1, 'the sighting commented once');

      own.faults.push({ method: 'POST', path: /\/comment$/, after: 'hang' });
      const started = Date.now();
      const hung = client({ timeoutMs: 300 });
      await hung.comment('PERF-2', 'a comment Jira never answers'); // the call times out; the comment is found
      assert.ok(Date.now() - started < 10_000, 'ended by the timeout');
      assert.equal(own.calls.filter((c) => c.lost === 'hang').length, 1);
      assert.equal(own.issues.get('PERF-2').comments.filter((c) => c.body === 'a comment Jira never answers').length, 1, 'looked for before sent again: once');
    } finally {
      await own.close();
    }
  });

  test('a noisy point files nothing in Jira', async () => {
    const db = await open();
    const before = jira.issues.size;
    const result = await settleMainResult({ db, tracker: tracker(), repo: REPO, base: GOOD, head: BAD, verdict: regressed(), confirmation: aa() });
    assert.deepEqual(result.actions.map((a) => a.action), ['noise', 'noise']);
    assert.equal(jira.issues.size, before);
  });

  test('bad credentials fail with Jira\'s answer, and the settings choose the tracker', async () => {
    const wrong = jiraTracker({ client: createJiraClient({ url: jira.url, user: jira.user, token: 'wrong' }), url: jira.url, projectKey: 'PERF' });
    await assert.rejects(wrong.file({ title: 't', body: 'b', dedupeKey: 'k' }), (err) => err.status === 401 || /401/.test(String(err.message)));
    assert.equal(trackerFor({ tracker: 'jira', jira: { url: jira.url, project: 'PERF', issueType: 'Bug', user: 'u', token: 't' } }, {}).name, 'jira');
    assert.equal(trackerFor({ tracker: 'github' }, { octokit: {}, repo: REPO }).name, 'github');
  });
});
