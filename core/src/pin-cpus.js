'use strict';
// CPU sets for the server and the load generator (plan.measure.pin_cpus), from
// `perfgate compare --pin-cpus` or PERFGATE_PIN_CPUS (written by runner-setup/tune --pin-cpus).
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

// The command line wins over the runner's setting; neither means no pinning.
function pinFromSettings(optionValue, env) {
  if (optionValue !== undefined) return parsePinCpus(optionValue, '--pin-cpus');
  if (env && env.PERFGATE_PIN_CPUS) return parsePinCpus(env.PERFGATE_PIN_CPUS, 'PERFGATE_PIN_CPUS');
  return null;
}

module.exports = { parsePinCpus, pinFromSettings };
