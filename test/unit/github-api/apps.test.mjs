import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { assertNoProblems, doubleOptions, OWNER, plainOctokit, REPO } from './helpers.mjs';

const APP_ID = 424242;
const INSTALLATION_ID = 777;

function rsaKeyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

describe('a GitHub App against the double: JWT, installation, installation token', () => {
  const keys = rsaKeyPair();
  let gh;
  before(async () => {
    gh = await startGitHubDouble(
      doubleOptions({
        repositories: ['perfgate-test/fork', 'perfgate-test/other'],
        app: {
          id: APP_ID,
          slug: 'perfgate',
          name: 'perfgate',
          publicKey: keys.publicKey,
          installations: [{ id: INSTALLATION_ID, account: 'perfgate-test', repositories: ['perfgate-test/fork'] }],
        },
      }),
    );
  });
  after(() => gh.close());

  const appOctokit = (privateKey = keys.privateKey) =>
    new Octokit({ authStrategy: createAppAuth, auth: { appId: APP_ID, privateKey }, baseUrl: gh.url, log: { debug() {}, info() {}, warn() {}, error() {} } });

  it('verifies the App JWT (GET /app, GET /repos/{owner}/{repo}/installation)', async () => {
    const octokit = appOctokit();
    const { data: app } = await octokit.rest.apps.getAuthenticated();
    assert.equal(app.id, APP_ID);
    assert.equal(app.slug, 'perfgate');
    const { data: installation } = await octokit.rest.apps.getRepoInstallation({ owner: OWNER, repo: REPO });
    assert.equal(installation.id, INSTALLATION_ID);
    assert.equal(gh.callsTo('apps/get-authenticated').at(-1).identity.kind, 'app');
  });

  it('issues an installation token, and comments made with it are by perfgate[bot]', async () => {
    const auth = createAppAuth({ appId: APP_ID, privateKey: keys.privateKey, request: appOctokit().request });
    const { token, expiresAt } = await auth({ type: 'installation', installationId: INSTALLATION_ID });
    assert.match(token, /^ghs_[A-Za-z0-9_-]{36}$/);
    assert.ok(Date.parse(expiresAt) > Date.now() + 50 * 60 * 1000, 'an installation token lasts an hour');
    const { data: comment } = await plainOctokit(gh, token).rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'from the App' });
    assert.equal(comment.user.login, 'perfgate[bot]');
    assert.equal(comment.user.type, 'Bot');
    assert.deepEqual(gh.callsTo('issues/create-comment').at(-1).identity, { kind: 'installation', login: 'perfgate[bot]', installationId: INSTALLATION_ID });
  });

  it('an Octokit with installation auth gets its token from the double by itself', async () => {
    const octokit = new Octokit({
      authStrategy: createAppAuth,
      auth: { appId: APP_ID, privateKey: keys.privateKey, installationId: INSTALLATION_ID },
      baseUrl: gh.url,
    });
    const { data: check } = await octokit.rest.checks.create({ owner: OWNER, repo: REPO, name: 'perfgate / quick', head_sha: 'a'.repeat(40), status: 'in_progress' });
    assert.equal(check.app.slug, 'perfgate');
  });

  it('refuses a JWT signed with another key, an unknown token, and a token outside its installation', async () => {
    await assert.rejects(appOctokit(rsaKeyPair().privateKey).rest.apps.getAuthenticated(), (error) => error.status === 401 && /JSON web token could not be decoded/.test(error.message));
    await assert.rejects(plainOctokit(gh, 'ghs_000000000000000000000000000000000000').rest.repos.get({ owner: OWNER, repo: REPO }), { status: 401 });
    const auth = createAppAuth({ appId: APP_ID, privateKey: keys.privateKey, request: appOctokit().request });
    const { token } = await auth({ type: 'installation', installationId: INSTALLATION_ID });
    await assert.rejects(plainOctokit(gh, token).rest.repos.get({ owner: OWNER, repo: 'other' }), { status: 403, message: /Resource not accessible by integration/ });
    await assert.rejects(plainOctokit(gh, token).rest.apps.getAuthenticated(), { status: 401 });
    await assert.rejects(auth({ type: 'installation', installationId: 999, refresh: true }), { status: 404 });
  });

  it('made no call that breaks the description', () => assertNoProblems(assert, gh));
});
