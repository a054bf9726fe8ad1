'use strict';
// Release sign-off with the bot's store on a real MariaDB server (test/support/mariadb-server.js):
// /perf signoff in a release tracking issue → pinned, pending, dispatched; the run's merged run
// folder → stored, failure; /perf waive → success. The GitHub side is the double, as in
// test/unit/bot/app-signoff.test.mjs (SQLite).
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startMariadb } = require('../../support/mariadb-server');

describe('release sign-off with the bot on MariaDB', () => {
  let t;
  let s;
  let server;
  let gh;
  let running;
  let artifactsDir;
  before(async () => {
    t = await import('../../support/bot.mjs');
    s = await import('../../support/signoff.mjs');
    server = await startMariadb();
    artifactsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-mariadb-'));
    gh = await s.startSignoffDouble({ artifactsDir });
    running = await t.startBotOn(gh, { databaseUrl: server.url, env: { PERFGATE_SIGNOFF_SUITES: 'full' } });
  });
  after(async () => {
    if (running) await running.close();
    if (gh) await gh.close();
    if (server) await server.stop();
    if (artifactsDir) fs.rmSync(artifactsDir, { recursive: true, force: true });
  });

  test('signoff → pending and dispatched; completed → failure; waived → success, the report lists the waiver', async () => {
    assert.equal(running.store.dialect, 'mysql');
    const issue = s.newIssue(gh);
    const candidate = s.TAGS['mariadb-10.11.19'];
    const r = await s.onIssue(gh, running, issue, 'maintainer', '/perf signoff mariadb-10.11.19');
    assert.equal(r.dispatches.length, 1);
    assert.equal(r.dispatches[0].inputs['previous-sha'], s.TAGS['mariadb-10.11.18']);
    assert.deepEqual(s.signoffStatuses(gh, candidate).map((x) => x.state), ['pending']);
    t.writeArtifact(artifactsDir, r.request.runId, 'perfgate-signoff-full', s.mergedRunFolder({ previousSha: s.TAGS['mariadb-10.11.18'], candidateSha: candidate, limits: s.ONE_FAILS }).files);
    await s.completeSignoffRun(gh, running, r.request);
    assert.deepEqual(s.signoffStatuses(gh, candidate).map((x) => [x.state, x.description]).at(-1), ['failure', '1 of 42 not within limits (scan_range=100 fail)']);
    const signoff = await t.bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual(signoff.verdicts.map((p) => [p.suite, p.verdict.benchmarks.length]), [['full', 42]]);
    await s.onIssue(gh, running, issue, 'admin', '/perf waive scan_range=100 -- expected from the new scan code');
    assert.deepEqual(s.signoffStatuses(gh, candidate).map((x) => [x.state, x.description]).at(-1), ['success', 'All 42 microbenchmarks within limits, 1 waived']);
    assert.match(r.reply()[0], /\| scan_range=100 \| fail \| @admin \| expected from the new scan code \|/);
    assert.deepEqual(gh.problems(), []);
  });
});
