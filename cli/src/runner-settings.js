'use strict';
// The runner's settings: runner-setup/tune records them (e.g. PERFGATE_PIN_CPUS) and the
// runner's owner adds to them (PERFGATE_SANDBOX) in one file; the environment wins over it, so
// a job can still override a setting.
const fs = require('node:fs');
const { UsageError } = require('@perfgate/core');

const RUNNER_ENV_FILE = '/etc/perfgate/runner.env';

function runnerSettings(env) {
  const file = env.PERFGATE_RUNNER_ENV || RUNNER_ENV_FILE;
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT' && !env.PERFGATE_RUNNER_ENV) return env;
    throw new UsageError(`${file}: cannot read the runner settings (${err.code || err.message}); expected KEY=value lines written by runner-setup/tune`);
  }
  const settings = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^(PERFGATE_[A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) throw new UsageError(`${file}:${i + 1}: ${JSON.stringify(line)} is not a setting; expected PERFGATE_<NAME>=value`);
    settings[m[1]] = m[2].replace(/^(["'])(.*)\1$/, '$2');
  });
  return { ...settings, ...env };
}

module.exports = { runnerSettings, RUNNER_ENV_FILE };
