'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runnerSettings, main } = require('../../../cli/src/main');
const { readSettings } = require('../../../cli/src/commands/compare');

function tempFile(t, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-runner-env-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'runner.env');
  fs.writeFileSync(file, text);
  return file;
}

const ARGS = ['--base', '/b', '--head', '/h', '--out', '/tmp/x'];

test('the pinning runner-setup/tune records reaches perfgate compare; the environment wins', (t) => {
  const file = tempFile(t, '# written by runner-setup/tune\nPERFGATE_PIN_CPUS=server=0,client=1\n');
  const env = runnerSettings({ PERFGATE_RUNNER_ENV: file });
  assert.deepEqual(readSettings(ARGS, env).overrides.pin_cpus, { server: '0', client: '1' });
  const overridden = runnerSettings({ PERFGATE_RUNNER_ENV: file, PERFGATE_PIN_CPUS: 'none' });
  assert.equal(readSettings(ARGS, overridden).overrides.pin_cpus, null);  // none: over the suite's split too
});

test('no runner settings file is fine; a named one that is missing or malformed is bad input', async (t) => {
  assert.deepEqual(runnerSettings({ PERFGATE_RUNNER_ENV: undefined, HOME: '/h' }).HOME, '/h');
  const bad = tempFile(t, 'PIN=1\n');
  const sink = () => { let text = ''; return { write: (s) => { text += s; }, get text() { return text; } }; };
  const io = { stdout: sink(), stderr: sink(), env: { PERFGATE_RUNNER_ENV: bad } };
  assert.equal(await main(['compare', ...ARGS], io), 2);
  assert.equal(io.stderr.text, `perfgate compare: ${bad}:1: "PIN=1" is not a setting; expected PERFGATE_<NAME>=value\n`);
  const missing = { stdout: sink(), stderr: sink(), env: { PERFGATE_RUNNER_ENV: '/nonexistent/runner.env' } };
  assert.equal(await main(['doctor', '--help'], missing), 2);
  assert.match(missing.stderr.text, /^perfgate doctor: \/nonexistent\/runner\.env: cannot read the runner settings \(ENOENT\)/);
});
