// `perfgate bot`: its help, its settings errors (exit 2), and a start that GitHub refuses (exit 4).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { botEnvironment, spawnBot, startDouble } from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const { main } = require('../../../cli/src/main');
const { canRequireEsm } = require('../../../cli/src/commands/bot');

function capture() {
  let text = '';
  return { write: (s) => { text += s; }, get text() { return text; } };
}

async function perfgateBot(args, env) {
  const io = { stdout: capture(), stderr: capture(), env };
  const code = await main(['bot', ...args], io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('perfgate bot', () => {
  let folder;
  let gh;
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-command-'));
    gh = await startDouble();
  });
  after(async () => {
    await gh?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('--help lists every setting', async () => {
    const r = await perfgateBot(['--help'], {});
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^usage: perfgate bot --port <N> \[--config <file>\]/);
    for (const key of ['PERFGATE_APP_ID', 'PERFGATE_PRIVATE_KEY_FILE', 'PERFGATE_WEBHOOK_SECRET', 'PERFGATE_DATABASE_URL', 'GITHUB_API_URL', 'PERFGATE_REPOSITORIES', 'PERFGATE_TEAMS']) {
      assert.match(r.stdout, new RegExp(`\\n  ${key} `));
    }
  });

  it('bad settings and options: exit 2, one line', async () => {
    const env = botEnvironment({ folder, apiUrl: gh.url });
    const cases = [
      [['--port', '0'], { ...env, PERFGATE_APP_ID: '' }, "perfgate bot: PERFGATE_APP_ID is not set: the GitHub App's id; set it in the environment or in a --config file\n"],
      [[], env, 'perfgate bot: --port is missing; expected perfgate bot --port <N> (or PERFGATE_PORT)\n'],
      [['--port', '0', '--verbose'], env, "perfgate bot: unknown option '--verbose'; expected one of: --port, --config, --help\n"],
    ];
    for (const [args, environment, message] of cases) {
      const r = await perfgateBot(args, environment);
      assert.deepEqual([r.code, r.stderr, r.stdout], [2, message, ''], args.join(' '));
    }
  });

  it('an App key GitHub does not know: exit 4, saying what GitHub answered and what to check', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const env = botEnvironment({ folder, apiUrl: gh.url });
    writeFileSync(path.join(folder, 'other.pem'), privateKey, { mode: 0o600 });
    await assert.rejects(spawnBot({ env: { ...env, PERFGATE_PRIVATE_KEY_FILE: path.join(folder, 'other.pem') } }), (err) => {
      assert.ok(err.message.endsWith(`perfgate bot exited (4) before listening:\nperfgate bot: cannot start: GitHub answered GET ${gh.url}/app with 401 A JSON web token could not be decoded - https://docs.github.com/rest: check PERFGATE_APP_ID and PERFGATE_PRIVATE_KEY_FILE\n`), err.message);
      return true;
    });
  });

  it('needs a Node that require()s ES modules', () => {
    const cases = { '20.18.3': false, '20.19.0': true, '20.20.2': true, '21.7.0': false, '22.11.0': false, '22.12.0': true, '24.1.0': true };
    for (const [version, expected] of Object.entries(cases)) assert.equal(canRequireEsm(version), expected, version);
  });
});
