'use strict';
// CPU sets for the server and the load generator (plan.measure.pin_cpus), from
// `perfgate compare --pin-cpus` or PERFGATE_PIN_CPUS (written by runner-setup/tune --pin-cpus),
// else from the suite's `measure.pin_cpus: split`.
const { UsageError } = require('./errors');

const CPU_LIST = '[0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*';
const PIN = new RegExp(`^server=(${CPU_LIST}),client=(${CPU_LIST})$`);

function expand(list) {
  const cpus = [];
  for (const part of list.split(',')) {
    const [lo, hi = lo] = part.split('-').map(Number);
    for (let c = lo; c <= hi; c++) cpus.push(c);
  }
  return cpus;
}

/**
 * @param raw   'server=0-2,client=3', or 'none' for no pinning
 * @param where what the value came from, for the error message ('--pin-cpus', 'PERFGATE_PIN_CPUS')
 * @returns {server, client} taskset lists, or null for 'none'
 */
function parsePinCpus(raw, where) {
  const text = String(raw).trim();
  if (text === 'none') return null;
  const m = PIN.exec(text);
  if (!m) throw new UsageError(`${where} '${raw}': expected server=<cpus>,client=<cpus> with taskset lists (e.g. server=0,client=1) or none`);
  const server = new Set(expand(m[1]));
  const shared = expand(m[2]).filter((c) => server.has(c));
  if (shared.length) throw new UsageError(`${where} '${raw}': server and client share CPU ${shared.join(',')}; expected separate sets`);
  return { server: m[1], client: m[2] };
}

// The command line wins over the runner's setting. undefined: neither says (the suite decides);
// null: `none`, which turns a suite's pinning off too.
function pinFromSettings(optionValue, env) {
  if (optionValue !== undefined) return parsePinCpus(optionValue, '--pin-cpus');
  if (env && env.PERFGATE_PIN_CPUS) return parsePinCpus(env.PERFGATE_PIN_CPUS, 'PERFGATE_PIN_CPUS');
  return undefined;
}

// A taskset list of CPU numbers, ranges joined: [0, 1, 2, 5] -> '0-2,5'.
function cpuListText(cpus) {
  const parts = [];
  for (const c of cpus) {
    const last = parts[parts.length - 1];
    if (last && c === last[1] + 1) last[1] = c;
    else parts.push([c, c]);
  }
  return parts.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)).join(',');
}

/**
 * The suite's `split`: sysbench on the last CPU this process may use, mysqld on the others.
 * Free to move on a runner of few CPUs, a client thread and its server thread share one CPU
 * for a while and use two for a while, which alone spreads a write row's pairs; kept apart
 * they spread far less (docs/runner-setup.md#cpu-pinning-measured-on-this-machine-on-for-the-quick-suite).
 * @param cpus the CPU numbers this process may run on (its affinity)
 * @returns {server, client}, or null when there are fewer than two to split
 */
function splitCpus(cpus) {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  if (sorted.length < 2) return null;
  return { server: cpuListText(sorted.slice(0, -1)), client: `${sorted[sorted.length - 1]}` };
}

/**
 * The CPU sets a plan runs with: the command line's or the runner's setting (null: none), else
 * the suite's `measure.pin_cpus` ('split' or 'none'). Pinning puts every side's server on one
 * CPU set and every client on another, so sides measured at the same time (`together`) would
 * share one set instead of having a CPU each: a setting is refused there, a suite's split left
 * out (alternating sides run one at a time, as in turn).
 */
function planPinCpus(setting, suitePin, sideSchedule, cpus) {
  if (sideSchedule === 'together' && setting) {
    throw new UsageError(`--sides ${sideSchedule}: the sides cannot be pinned (--pin-cpus or PERFGATE_PIN_CPUS puts both servers on one CPU set); expected --sides in-turn, or --pin-cpus none`);
  }
  if (setting !== undefined) return setting;
  if (suitePin !== 'split' || sideSchedule === 'together') return null;
  return splitCpus(cpus || []);
}

module.exports = { parsePinCpus, pinFromSettings, splitCpus, planPinCpus, expandCpuList: expand };
