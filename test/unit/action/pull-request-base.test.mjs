// The base a pull request's run measures against: its limits are read from it, so the gate and
// measure jobs measure only against the pull request's base commit or an earlier commit of its
// base branch, whatever base-ref a dispatch carries. Against the GitHub double: the pull request
// and the compare of base-ref with its base commit come through the REST API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admission } from '../../../action/src/pull-request.js';
import { makeOctokit } from '../../../action/src/github.js';
import { readSettings } from '../../../action/src/settings.js';
import { startGitHubDouble } from '../../support/github-api/index.mjs';

const REPOSITORY = 'perfgate-test/fork';
const TOKEN = 'ghs_pullRequestBaseTestTokenForTheDouble1';
const sha = (c) => c.repeat(40);
// main: OLD ← BASE; LOOSE is a commit of another branch off OLD (its thresholds loosened).
const [OLD, BASE, LOOSE, HEAD] = [sha('1'), sha('2'), sha('3'), sha('a')];

describe('admission: the base of a pull request\'s run', () => {
  let gh;
  before(async () => {
    gh = await startGitHubDouble({
      repositories: [REPOSITORY],
      githubToken: TOKEN,
      commits: { [REPOSITORY]: { commits: [{ sha: OLD }, { sha: BASE, parents: [OLD] }, { sha: LOOSE, parents: [OLD] }, { sha: HEAD, parents: [BASE] }], refs: { main: BASE, loose: LOOSE } } },
      pullRequests: [{ repository: REPOSITORY, number: 7, user: 'maintainer', head: { ref: 'feature', sha: HEAD }, base: { ref: 'main', sha: BASE } }],
    });
  });
  after(async () => { await gh?.close(); });

  function admit(baseRef) {
    const inputs = { job: 'gate', suite: 'quick', 'pull-request': '7', 'head-sha': HEAD, 'base-ref': baseRef, 'approved-sha': HEAD, 'github-token': TOKEN };
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_API_URL: gh.url };
    const settings = readSettings({ input: (name) => inputs[name] || '', env, event: {} });
    return admission(makeOctokit(settings), settings);
  }

  it('measures against the pull request\'s base commit, given or not', async () => {
    assert.equal((await admit(BASE)).baseRef, BASE);
    assert.equal((await admit('')).baseRef, BASE);
  });

  it('measures against an earlier commit of the base branch (a command pinned before the branch moved on)', async () => {
    assert.equal((await admit(OLD)).baseRef, OLD);
  });

  it('refuses a base off the base branch, naming the input and the base it expects', async () => {
    await assert.rejects(admit(LOOSE), {
      name: 'InputError',
      message: `input base-ref: '${LOOSE}' is not the base of pull request #7 (GitHub's compare with it: diverged); expected ${BASE}, its base commit, or an earlier commit of its base branch main`,
    });
    await assert.rejects(admit('loose'), { name: 'InputError', message: /^input base-ref: 'loose' is not the base of pull request #7 \(GitHub's compare with it: diverged\)/ });
  });

  it('refuses a base ahead of the pull request\'s (the head itself) and a commit GitHub does not know', async () => {
    await assert.rejects(admit(HEAD), { name: 'InputError', message: /compare with it: behind\); expected 2{40}, its base commit/ });
    await assert.rejects(admit(sha('9')), { name: 'InputError', message: /^input base-ref: '9{40}' is not the base of pull request #7 \(GitHub's compare with it: not found\)/ });
  });
});
