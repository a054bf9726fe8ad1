'use strict';
// What `perfgate doctor` says of the tools on this host: valgrind for instructions per query, the
// explanation step's stacks (perf as root, eu-stack in the sandbox, where the harness runs as
// uid 65534: docs/explain.md, "Stacks without perf"), and go-tpc for the TPC-C suite.
const fs = require('node:fs');
const path = require('node:path');
const { onPath } = require('./processes');
const { cacheDirFrom } = require('./source-build/build-commit');

// Yama's setting: above 0, a process may attach only to its own descendants (1), or only with
// CAP_SYS_PTRACE (2), or never (3); eu-stack is mysqld's sibling under the sandboxed harness.
const PTRACE_SCOPE = '/proc/sys/kernel/yama/ptrace_scope';
const PERF_PACKAGES = 'linux-perf on Debian, linux-tools-$(uname -r) on Ubuntu';

/** Yama's ptrace_scope as a number, or null where the kernel has no Yama (no file). */
function readPtraceScope(file = PTRACE_SCOPE) {
  try {
    const value = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(value) ? value : null;
  } catch {
    return null;
  }
}

// go-tpc where the harness looks for it: on PATH, then in perfgate's tools folder (tpcc_workload.py).
function findGoTpc(env) {
  const inTools = path.join(cacheDirFrom(env), 'tools', 'bin', 'go-tpc');
  return onPath('go-tpc', env) || (fs.existsSync(inTools) ? inTools : null);
}

/** The tools: {valgrind, perf, euStack, goTpc}, each its path or null, and Yama's ptraceScope. */
function findTools(env, scopeFile = PTRACE_SCOPE) {
  return { valgrind: onPath('valgrind', env), perf: onPath('perf', env), euStack: onPath('eu-stack', env), goTpc: findGoTpc(env), ptraceScope: readPtraceScope(scopeFile) };
}

/** One check line per need, from what was found (pure); countedMalloc is the fingerprint's. */
function toolChecks({ valgrind, perf, euStack, goTpc = null, ptraceScope = null, countedMalloc = null }) {
  const instructions = valgrind
    ? { check: 'instructions', state: 'valgrind', ok: true, effect: 'instructions per query are counted under callgrind' }
    : { check: 'instructions', state: 'valgrind is not installed', ok: false,
      effect: 'a suite that counts instructions (the quick suite) makes every row an error here; install valgrind (runner-setup/install)' };
  const tpcc = goTpc
    ? { check: 'tpcc', state: `go-tpc (${goTpc})`, ok: true, effect: 'the TPC-C suite runs here (/perf tpcc, the release sign-off)' }
    : { check: 'tpcc', state: 'go-tpc is not installed', ok: false,
      effect: 'the TPC-C suite (/perf tpcc, and the release sign-off, which runs it by default) makes its row an error here; '
        + 'run scripts/install-ci-tools.sh as the runner\'s user (Go 1.25 or newer)' };
  return [instructions, stacksCheck(perf, euStack, ptraceScope), tpcc, ...(valgrind ? [mallocCheck(countedMalloc)] : [])];
}

// The malloc counted servers run on (harness/perfgate_harness/counted_malloc.py, figures in
// docs/measurements.md "Instruction counts of fresh processes").
function mallocCheck(countedMalloc) {
  if (countedMalloc && countedMalloc.name === 'jemalloc') {
    return { check: 'counted malloc', state: `jemalloc (${countedMalloc.library})`, ok: true,
      effect: 'two processes of one build count alike within the quick suite\'s instruction limits' };
  }
  return { check: 'counted malloc', state: countedMalloc ? "glibc's, one arena (libjemalloc.so.2 not found)" : 'unknown (the harness did not say)', ok: false,
    effect: 'two processes of one build count further apart than the shipped instruction limits allow for (docs/measurements.md, '
      + '"Instruction counts of fresh processes"): unchanged code can warn; install libjemalloc2 (runner-setup/install)' };
}

function stacksCheck(perf, euStack, ptraceScope) {
  if (!euStack) {
    return { check: 'stacks', state: perf ? 'perf (as root) only' : 'neither perf nor eu-stack is installed', ok: false,
      effect: `the explanation step says stacks were not looked at ${perf ? 'inside the sandbox' : 'anywhere'}; install ${perf ? 'elfutils' : `perf (${PERF_PACKAGES}) and elfutils`} (runner-setup/install)` };
  }
  // Where Yama keeps eu-stack from attaching, the sandbox's snapshots fail: perf (as root) is left.
  // Root (CAP_SYS_PTRACE) still attaches outside the sandbox at 1 and 2; 3 stops everyone.
  if (ptraceScope !== null && ptraceScope > 0) {
    const outside = perf ? '' : ptraceScope >= 3 ? ', nor anywhere' : ' (outside it, as root, eu-stack still attaches)';
    return { check: 'stacks', state: `${perf ? 'perf (as root); ' : ''}eu-stack refused by ptrace_scope ${ptraceScope}`, ok: false,
      effect: `inside the sandbox the snapshots fail and stacks are not looked at${outside}; `
        + `${PTRACE_SCOPE} = 0 lets eu-stack attach to mysqld (a sysctl of the runner, kernel.yama.ptrace_scope)` };
  }
  return { check: 'stacks', state: perf ? 'perf (as root), eu-stack (in the sandbox)' : 'eu-stack', ok: true,
    effect: perf ? "the explanation step takes the stacks of mysqld's threads inside the sandbox and out"
      : "the explanation step takes the stacks of mysqld's threads by snapshots everywhere (perf, as root, would weigh every switch)" };
}

module.exports = { findTools, toolChecks, readPtraceScope };
