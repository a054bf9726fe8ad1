import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GITHUB_TOKEN, OWNER, REPO, REPOSITORY } from './helpers.mjs';

const CLI = fileURLToPath(new URL('../../support/github-api/cli.mjs', import.meta.url));

function waitFor(check, what, timeoutMs = 20_000) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = () => {
      const value = check();
      if (value) resolve(value);
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

describe('the double as its own process (for act runs and other languages)', () => {
  let folder;
  let child;
  let stdout = '';
  let stderr = '';
  let url;
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-double-cli-'));
    writeFileSync(path.join(folder, 'config.json'), JSON.stringify({ repositories: [REPOSITORY], githubToken: GITHUB_TOKEN }));
    child = spawn(process.execPath, [CLI, '--config', path.join(folder, 'config.json'), '--calls-out', path.join(folder, 'calls.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    url = await waitFor(() => /^GITHUB_API_URL=(http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)?.[1], `the URL line (stderr: ${stderr})`);
  });
  after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });

  it('prints its URL, serves the API, writes the call log on SIGUSR1 and on SIGTERM', async () => {
    const response = await fetch(`${url}/repos/${OWNER}/${REPO}`, { headers: { authorization: `token ${GITHUB_TOKEN}` } });
    assert.equal(response.status, 200);
    const log = await (await fetch(`${url}/_double/calls`)).json();
    assert.deepEqual(log.map((call) => [call.operationId, call.status, call.identity.login]), [['repos/get', 200, 'github-actions[bot]']]);

    const callsFile = path.join(folder, 'calls.json');
    child.kill('SIGUSR1');
    await waitFor(() => existsSync(callsFile), 'calls.json after SIGUSR1');
    assert.equal(JSON.parse(readFileSync(callsFile, 'utf8')).length, 1);

    await fetch(`${url}/rate_limit`, { headers: { authorization: `token ${GITHUB_TOKEN}` } });
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.deepEqual(JSON.parse(readFileSync(callsFile, 'utf8')).map((call) => call.operationId), ['repos/get', 'rate-limit/get']);
  });

  it('refuses a bad option with a one-line error naming it', async () => {
    const run = spawn(process.execPath, [CLI, '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    run.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => run.on('exit', resolve));
    assert.equal(code, 2);
    assert.equal(err, 'github-api double: --port eighty is not valid; expected a port number 0-65535\n');
  });
});
