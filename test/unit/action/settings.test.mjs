// The action's inputs: read once, every bad value named with the expected form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions, parseShard, readSettings, runName } from '../../../action/src/settings.js';

const ENV = { GITHUB_REPOSITORY: 'perfgate-test/fork', GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_RUN_ID: '77', RUNNER_TEMP: '/tmp/runner', GITHUB_WORKSPACE: '/work/fork' };
const EVENT = { pull_request: { number: 7, base: { sha: 'b'.repeat(40) }, head: { sha: 'a'.repeat(40) } } };

function settingsWith(inputs, { env = ENV, event = EVENT } = {}) {
  const all = { job: 'measure', 'github-token': 'ghs_x', ...inputs };
  return readSettings({ input: (name) => all[name] ?? '', env, event });
}

describe('readSettings', () => {
  it('takes the pull request, base and head from a pull_request event, and the defaults', () => {
    const s = settingsWith({});
    assert.equal(s.pullRequest, 7);
    assert.equal(s.baseRef, 'b'.repeat(40));
    assert.equal(s.headSha, 'a'.repeat(40));
    assert.equal(s.suite, 'quick');
    assert.equal(s.comment, 'sticky');
    assert.equal(s.failOn, 'fail');
    assert.equal(s.commentAuthor, 'github-actions[bot]');
    assert.equal(s.source, '/work/fork');
    assert.equal(s.workDir, '/tmp/runner/perfgate');
    assert.equal(s.basedirs, null);
    assert.equal(s.thresholds, null);
    assert.deepEqual(s.repository, { owner: 'perfgate-test', repo: 'fork', fullName: 'perfgate-test/fork' });
    assert.equal(runName(s), 'perfgate-quick');
  });

  it('inputs win over the event', () => {
    const s = settingsWith({ 'pull-request': '9', 'base-ref': 'main', 'head-sha': 'c'.repeat(40), shard: '2/3', thresholds: 'perfgate/thresholds/' });
    assert.equal(s.pullRequest, 9);
    assert.equal(s.baseRef, 'main');
    assert.equal(s.headSha, 'c'.repeat(40));
    assert.deepEqual(s.shard, { index: 2, count: 3 });
    assert.equal(s.thresholds, 'perfgate/thresholds');
    assert.equal(runName(s), 'perfgate-quick-shard-2-of-3');
  });

  it('a release pair (release: true, job=signoff): pinned SHAs, names for the report, no pull request', () => {
    const dispatch = { env: { ...ENV, GITHUB_EVENT_NAME: 'workflow_dispatch' }, event: {} };
    const release = { release: 'true', 'head-sha': '1'.repeat(40), 'base-ref': '8'.repeat(40), 'candidate-ref': 'mariadb-10.11.19', 'previous-ref': 'mariadb-10.11.18', options: 'metric=both' };
    const s = settingsWith(release, dispatch);
    assert.deepEqual(s.release, { candidate: { sha: '1'.repeat(40), ref: 'mariadb-10.11.19' }, previous: { sha: '8'.repeat(40), ref: 'mariadb-10.11.18' } });
    assert.deepEqual([s.pullRequest, s.comment, s.commitStatus, s.options.metric], [null, 'none', false, 'both']);
    const job = settingsWith({ job: 'signoff', 'head-sha': '1'.repeat(40), 'base-ref': '8'.repeat(40), 'commit-status': 'true' }, dispatch);
    assert.deepEqual([job.release.candidate.ref, job.release.previous.ref, job.commitStatus], ['1'.repeat(40), '8'.repeat(40), true]);
    assert.equal(settingsWith({ release: 'false' }).release, null);
    const refusedRelease = [
      [{ ...release, 'base-ref': 'mariadb-10.11.18' }, "input base-ref: 'mariadb-10.11.18' is not valid; expected the previous release's commit as a full SHA (40 lowercase hex digits) for a release sign-off"],
      [{ ...release, 'candidate-ref': '--upload-pack=x' }, "input candidate-ref: '--upload-pack=x' is not valid; expected a tag, branch or commit SHA (the name shown in the report)"],
      [{ ...release, release: 'yes' }, "input release: 'yes' is not valid; expected true or false"],
      [{ ...release, 'pull-request': '7' }, "input pull-request: '7' is not valid; expected empty for a release sign-off (release: true), which measures two tagged commits, not a pull request"],
      [{ job: 'signoff', 'head-sha': '1'.repeat(40), 'base-ref': '8'.repeat(40), 'commit-status': 'on' }, "input commit-status: 'on' is not valid; expected true or false"],
      [{ ...release, job: 'report' }, "input release: 'true' is not valid; expected false for job=report; a release pair is measured (job=measure) and signed off (job=signoff)"],
      [{ ...release, 'commit-status': 'true' }, "input commit-status: 'true' is not valid; expected false for job=measure; only job=signoff sets perfgate/signoff"],
    ];
    for (const [inputs, message] of refusedRelease) assert.throws(() => settingsWith(inputs, dispatch), { name: 'InputError', message });
  });

  it('job=signoff judges the suites named in suite, separated by spaces; every other job one suite', () => {
    const dispatch = { env: { ...ENV, GITHUB_EVENT_NAME: 'workflow_dispatch' }, event: {} };
    const pair = { job: 'signoff', 'head-sha': '1'.repeat(40), 'base-ref': '8'.repeat(40) };
    const s = settingsWith({ ...pair, suite: ' full  ddl tpcc ' }, dispatch);
    assert.deepEqual([s.suite, s.suites], ['full', ['full', 'ddl', 'tpcc']]);
    assert.deepEqual(settingsWith({ suite: 'quick' }).suites, ['quick']);
    const refusedSuites = [
      [{ ...pair, suite: 'full ddl full' }, "input suite: 'full ddl full' is not valid; expected suite names separated by spaces, such as full ddl tpcc, each once"],
      [{ ...pair, suite: 'full ../ddl' }, "input suite: '../ddl' is not valid; expected suite names separated by spaces, such as full ddl tpcc"],
      [{ ...pair, suite: 'full ..' }, "input suite: '..' is not valid; expected suite names separated by spaces, such as full ddl tpcc"],
    ];
    for (const [inputs, message] of refusedSuites) assert.throws(() => settingsWith(inputs, dispatch), { name: 'InputError', message });
    assert.throws(() => settingsWith({ suite: 'quick ddl' }), { name: 'InputError', message: "input suite: 'quick ddl' is not valid; expected a suite name such as quick, full or ahi" });
  });

  const refused = [
    [{ job: 'build' }, "input job: 'build' is not valid; expected one of gate, measure, report, bisect, signoff"],
    [{ job: 'bisect', 'good-sha': 'base', 'bad-sha': 'c'.repeat(40) }, "input good-sha: 'base' is not valid; expected a full commit SHA (40 lowercase hex digits), as the perfgate bot pins it"],
    [{ job: 'bisect', 'good-sha': 'c'.repeat(40), 'bad-sha': '' }, "input bad-sha: '' is not valid; expected a full commit SHA (40 lowercase hex digits), as the perfgate bot pins it"],
    [{ job: 'bisect', 'good-sha': 'c'.repeat(40), 'bad-sha': 'd'.repeat(40), 'good-ref': '--upload-pack=x' }, "input good-ref: '--upload-pack=x' is not valid; expected a commit SHA, branch or tag"],
    [{ job: 'bisect', 'good-sha': 'c'.repeat(40), 'bad-sha': 'd'.repeat(40), tests: ', ,' }, "input tests: ', ,' is not valid; expected microbenchmark names separated by commas, e.g. update-index_range=100,point-query"],
    [{ 'fail-on': 'always' }, "input fail-on: 'always' is not valid; expected one of fail, warn, never"],
    [{ comment: 'new' }, "input comment: 'new' is not valid; expected one of sticky, off"],
    [{ 'head-sha': 'abc123' }, "input head-sha: 'abc123' is not valid; expected a full commit SHA (40 lowercase hex digits)"],
    [{ 'approved-sha': 'HEAD' }, "input approved-sha: 'HEAD' is not valid; expected a full commit SHA (40 lowercase hex digits)"],
    [{ 'base-ref': 'main..evil' }, "input base-ref: 'main..evil' is not valid; expected a commit SHA, branch or tag"],
    [{ 'base-basedir': '/opt/base' }, 'input head-basedir: missing while base-basedir is given; expected both installed prefixes, or neither (then both sides are built from source)'],
    [{ thresholds: '../elsewhere' }, "input thresholds: '../elsewhere' is not valid; expected a folder relative to the repository root, e.g. perfgate/thresholds (it is read from the base commit)"],
    [{ thresholds: '/abs/path' }, "input thresholds: '/abs/path' is not valid; expected a folder relative to the repository root, e.g. perfgate/thresholds (it is read from the base commit)"],
    [{ shard: '3/2' }, "input shard: '3/2' is not valid; expected K/N with 1 <= K <= N, e.g. 2/4"],
    [{ shard: '0/2' }, "input shard: '0/2' is not valid; expected K/N with 1 <= K <= N, e.g. 2/4"],
    [{ 'pull-request': '#7' }, "input pull-request: '#7' is not valid; expected a pull request number, e.g. 42"],
    [{ 'check-run-id': 'abc' }, "input check-run-id: 'abc' is not valid; expected a check run id (the gate job's check-run-id output)"],
    [{ 'thresholds-digest': 'abc' }, "input thresholds-digest: 'abc' is not valid; expected sha256:<64 hex digits> (the measure job's thresholds-digest output)"],
    [{ 'measure-result': 'done' }, "input measure-result: 'done' is not valid; expected one of success, failure, cancelled, skipped (needs.measure.result)"],
    [{ options: 'rounds' }, "input options: 'rounds' is not valid; expected key=value words, e.g. \"rounds=8 threads=1,4\""],
    [{ options: 'engine=innodb' }, "input options: 'engine=innodb' is not valid; expected a key among seconds, warmup-seconds, rounds, tables, rows, threads, metric, tests"],
    [{ options: 'rounds=4 rounds=6' }, "input options: 'rounds=6' is not valid; expected each key once (rounds is given twice)"],
    [{ 'github-token': '' }, 'input github-token: missing; expected a token (the default is github.token)'],
    [{ explain: 'point-query; curl evil' }, 'input explain: "point-query; curl evil" is not valid; expected auto, all, none, or a comma-separated list of row ids (e.g. update-index_range=100,scan_range=100)'],
    [{ explain: '${{ github.token }}' }, 'input explain: "${{ github.token }}" is not valid; expected auto, all, none, or a comma-separated list of row ids (e.g. update-index_range=100,scan_range=100)'],
  ];
  for (const [inputs, message] of refused) {
    it(`refuses ${JSON.stringify(inputs)}`, () => {
      assert.throws(() => settingsWith(inputs), { name: 'InputError', message });
    });
  }

  it('explain: auto unless given, the rows read once, none for a shard', () => {
    assert.deepEqual(settingsWith({}).explain, { mode: 'auto', rows: [] });
    assert.deepEqual(settingsWith({ explain: 'none' }).explain, { mode: 'none', rows: [] });
    assert.deepEqual(settingsWith({ explain: 'scan_range=100, point-query' }).explain, { mode: 'named', rows: ['scan_range=100', 'point-query'] });
    assert.equal(settingsWith({ explain: 'all', shard: '1/2' }).explain, null);
  });

  it('job=bisect: the pinned commits, their names and the tests', () => {
    const s = settingsWith({ job: 'bisect', 'pull-request': '9', 'good-sha': 'c'.repeat(40), 'bad-sha': 'd'.repeat(40), 'good-ref': 'base', tests: 'update-index_range=100, point-query' });
    assert.deepEqual(s.bisect, { good: { sha: 'c'.repeat(40), ref: 'base' }, bad: { sha: 'd'.repeat(40), ref: 'd'.repeat(40) }, tests: ['update-index_range=100', 'point-query'] });
    assert.equal(settingsWith({}).bisect, null);
  });

  it('needs the pull request number outside pull_request events', () => {
    assert.throws(() => settingsWith({}, { env: { ...ENV, GITHUB_EVENT_NAME: 'workflow_dispatch' }, event: { inputs: {} } }),
      { message: 'input pull-request: missing for a workflow_dispatch event; expected the pull request number (pull_request events carry it), or head-sha for a commit of the default branch' });
  });

  it('measures a commit of the default branch without a pull request: no comment, the gate refuses', () => {
    const dispatch = { env: { ...ENV, GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_REF: 'refs/heads/main' }, event: { inputs: {}, repository: { default_branch: 'main' } } };
    const s = settingsWith({ 'head-sha': 'c'.repeat(40), 'base-ref': 'd'.repeat(40), comment: 'sticky' }, dispatch);
    assert.deepEqual([s.pullRequest, s.headSha, s.baseRef, s.comment, s.ref], [null, 'c'.repeat(40), 'd'.repeat(40), 'none', 'refs/heads/main']);
    assert.throws(() => settingsWith({ job: 'gate', 'head-sha': 'c'.repeat(40) }, dispatch),
      { message: 'input pull-request: missing for a workflow_dispatch event; expected the pull request number (pull_request events carry it)' });
  });

  it('needs GITHUB_REPOSITORY', () => {
    assert.throws(() => settingsWith({}, { env: { ...ENV, GITHUB_REPOSITORY: '' } }),
      { message: "environment GITHUB_REPOSITORY: '' is not valid; expected owner/name (the action runs inside a workflow)" });
  });
});

describe('parseShard and parseOptions', () => {
  it('parse what the bot and the matrix send', () => {
    assert.equal(parseShard(''), null);
    assert.deepEqual(parseShard('1/1'), { index: 1, count: 1 });
    assert.deepEqual(parseOptions('  rounds=8   threads=1,4 tests=point-query,update-index_range=100 '), { rounds: '8', threads: '1,4', tests: 'point-query,update-index_range=100' });
    assert.deepEqual(parseOptions(''), {});
  });
});
