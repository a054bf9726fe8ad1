'use strict';
// The runner's settings: runner-setup/tune records them (e.g. PERFGATE_PIN_CPUS) and the
// runner's owner adds to them (PERFGATE_SANDBOX) in one file; the environment wins over it, so
// a job can still override a setting.
const fs = require('node:fs');
const os = require('node:os');
const { UsageError, expandCpuList } = require('@perfgate/core');

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

// The CPUs this process may run on, for a suite's `pin_cpus: split`: its affinity (which a
// container or `taskset` narrows) among the CPUs online. /proc's list is the affinity as set,
// offline CPUs and all (runner-setup/tune takes SMT siblings offline), and taskset refuses an
// offline one. Where neither file says, every CPU the kernel reports.
function readCpuList(file, pattern) {
  try {
    const m = pattern.exec(fs.readFileSync(file, 'utf8'));
    return m ? expandCpuList(m[1]) : null;
  } catch {
    return null;  // no /proc or /sys here
  }
}

function runnerCpus({ statusFile = '/proc/self/status', onlineFile = '/sys/devices/system/cpu/online' } = {}) {
  const allowed = readCpuList(statusFile, /^Cpus_allowed_list:\s*([0-9,-]+)\s*$/m);
  const online = readCpuList(onlineFile, /^\s*([0-9,-]+)\s*$/);
  if (allowed && online) return allowed.filter((cpu) => online.includes(cpu));
  return allowed || online || os.cpus().map((_, i) => i);
}

module.exports = { runnerSettings, runnerCpus, RUNNER_ENV_FILE };
