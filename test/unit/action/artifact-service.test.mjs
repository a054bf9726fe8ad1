// GitHub Enterprise Server has no artifact service @actions/artifact 2+ will use: the jobs that
// move run folders say so and what to do, before anything is built (measure, bisect) or instead
// of a download error (report, signoff; report-job.test.mjs delivers it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkArtifactService, enterpriseServerRefusal } from '../../../action/src/artifacts.js';
import { measure } from '../../../action/src/measure.js';
import { readSettings } from '../../../action/src/settings.js';

const GHES = 'https://github.acme.example';
const REFUSAL = `${GHES} is a GitHub Enterprise Server, and @actions/artifact, which carries perfgate's run folders `
  + 'from the measure jobs to the report and signoff jobs, works only on github.com and GHE.com. Run the perfgate '
  + 'workflows on github.com or GHE.com; on GitHub Enterprise Server run the perfgate command in a job of your own '
  + '(docs/action.md, "GitHub Enterprise Server")';
const SERVICE = { ACTIONS_RUNTIME_TOKEN: 'runtime-token', ACTIONS_RESULTS_URL: 'https://results.example/' };

describe('GitHub Enterprise Server', () => {
  it('is told from github.com and GHE.com by the server URL, as @actions/artifact tells it', () => {
    for (const cloud of [undefined, '', 'https://github.com', 'https://GITHUB.COM/', 'https://acme.ghe.com', 'http://github.localhost']) {
      assert.equal(enterpriseServerRefusal(cloud), null, String(cloud));
    }
    assert.equal(enterpriseServerRefusal(GHES), REFUSAL);
    assert.equal(enterpriseServerRefusal('not a url'), "environment GITHUB_SERVER_URL: 'not a url' is not a URL; expected the GitHub server the workflow runs on, e.g. https://github.com");
  });

  it('fails a job that would upload only where an artifact service is offered', () => {
    assert.throws(() => checkArtifactService({ ...SERVICE, GITHUB_SERVER_URL: GHES }), { name: 'ArtifactServiceError', message: REFUSAL });
    assert.doesNotThrow(() => checkArtifactService({ ...SERVICE, GITHUB_SERVER_URL: 'https://github.com' }));
    // The entry point run by hand offers none and uploads nothing: nothing to refuse.
    assert.doesNotThrow(() => checkArtifactService({ GITHUB_SERVER_URL: GHES }));
  });

  it('the measure job stops before it asks GitHub anything or builds', async () => {
    const env = { ...SERVICE, GITHUB_SERVER_URL: GHES, GITHUB_REPOSITORY: 'perfgate-test/fork', GITHUB_EVENT_NAME: 'workflow_dispatch' };
    const inputs = { job: 'measure', 'pull-request': '7', 'head-sha': 'a'.repeat(40), 'base-ref': 'b'.repeat(40), 'github-token': 'ghs_x' };
    const settings = readSettings({ input: (name) => inputs[name] || '', env, event: {} });
    // No client: any call to GitHub would throw a TypeError instead.
    await assert.rejects(measure(settings, null, env), { name: 'ArtifactServiceError', message: REFUSAL });
  });
});
