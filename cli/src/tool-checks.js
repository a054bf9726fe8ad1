'use strict';
// What `perfgate doctor` says of the counting tools on this host: valgrind for instructions per
// query, and the explanation step's stacks (perf as root, eu-stack in the sandbox, where the
// harness runs as uid 65534: docs/explain.md, "Stacks without perf").
const { onPath } = require('./processes');

/** The tools on PATH: {valgrind, perf, euStack}, each its path or null. */
function findTools(env) {
  return { valgrind: onPath('valgrind', env), perf: onPath('perf', env), euStack: onPath('eu-stack', env) };
}

/** One check line per need, from what was found (pure). */
function toolChecks({ valgrind, perf, euStack }) {
  const instructions = valgrind
    ? { check: 'instructions', state: 'valgrind', ok: true, effect: 'instructions per query are counted under callgrind' }
    : { check: 'instructions', state: 'valgrind is not installed', ok: false,
      effect: 'a suite that counts instructions (the quick suite) makes every row an error here; install valgrind (runner-setup/install)' };
  // Where perf may not record switches (not root, or not installed), eu-stack takes the stacks.
  const stacks = euStack
    ? { check: 'stacks', state: perf ? 'perf (as root), eu-stack (in the sandbox)' : 'eu-stack', ok: true,
      effect: perf ? "the explanation step takes the stacks of mysqld's threads inside the sandbox and out"
        : "the explanation step takes the stacks of mysqld's threads by snapshots everywhere (perf, as root, would weigh every switch)" }
    : { check: 'stacks', state: perf ? 'perf (as root) only' : 'neither perf nor eu-stack is installed', ok: false,
      effect: `the explanation step says stacks were not looked at ${perf ? 'inside the sandbox' : 'anywhere'}; install ${perf ? 'elfutils' : 'linux-perf and elfutils'} (runner-setup/install)` };
  return [instructions, stacks];
}

module.exports = { findTools, toolChecks };
