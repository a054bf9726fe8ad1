'use strict';
// What a runner's fingerprint says about the noise to expect from it. `diagnose` is a pure
// function of the fingerprint (results.json `machine`, or `python3 -m perfgate_harness
// fingerprint`), so a report can re-check the machine its results were measured on.
//
// Each check: {check, state, ok, effect}
//   ok: true   tuned, or nothing to tune
//       false  not tuned: a warning, embedded in every report made on this runner
//       null   not under this host's control (a VM's clock): said, but not a warning
//   effect: the likely effect on round-to-round noise, in one sentence.

const GIB = 2 ** 30;

function virtualization(fp) {
  const v = fp.virtualization || {};
  if (v.virtualized) {
    return {
      check: 'virtualization', ok: false,
      state: v.container ? 'VM, inside a container' : 'VM',
      effect: 'other guests take CPU time from this one (steal) and the host sets the clock: back-to-back runs of one server can differ in QPS; rely on interleaved rounds and cpu/o',
    };
  }
  return {
    check: 'virtualization', ok: true,
    state: v.container ? 'bare metal, inside a container' : 'bare metal',
    effect: 'no neighbouring guests; tuning knobs below are under this host\'s control',
  };
}

function governor(fp) {
  const g = fp.governor;
  if (g === null || g === undefined) {
    return {
      check: 'governor', state: 'not exposed', ok: null,
      effect: 'no cpufreq here: the clock is set outside this system (hypervisor or firmware); runner-setup/tune cannot change it',
    };
  }
  if (g === 'performance') {
    return { check: 'governor', state: g, ok: true, effect: 'the clock stays at its top: no ramp-up at the start of a round' };
  }
  return {
    check: 'governor', state: g, ok: false,
    effect: 'the clock follows the load: the first seconds after an idle pause run slower, adding spread between rounds; runner-setup/tune sets performance',
  };
}

function turbo(fp) {
  const t = fp.turbo;
  if (t === null || t === undefined) {
    return { check: 'turbo', state: 'not exposed', ok: null, effect: 'no boost control here; whether the clock boosts is decided outside this system' };
  }
  if (t === 'off') return { check: 'turbo', state: 'off', ok: true, effect: 'a fixed top clock: slower, but it does not drift with temperature' };
  return {
    check: 'turbo', state: 'on', ok: false,
    effect: 'boost clocks depend on temperature and on how busy the other cores are, so they drift from round to round; runner-setup/tune turns boost off',
  };
}

function smt(fp) {
  const s = fp.smt;
  if (s === null || s === undefined) {
    return { check: 'smt', state: 'unknown', ok: null, effect: 'the kernel exposes no SMT control' };
  }
  if (s === 'on') {
    return {
      check: 'smt', state: 'on', ok: false,
      effect: 'a sibling hyper-thread shares the core with mysqld: whatever runs there (sysbench, another job) slows it unevenly; runner-setup/tune turns SMT off',
    };
  }
  const why = { off: 'turned off', forceoff: 'turned off at boot', notsupported: 'no sibling threads', notimplemented: 'no sibling threads' }[s] || s;
  return { check: 'smt', state: `${s} (${why})`, ok: true, effect: 'no hyper-thread siblings share a core' };
}

function thp(fp) {
  const t = fp.thp;
  if (t === null || t === undefined) return { check: 'thp', state: 'not exposed', ok: null, effect: 'the kernel exposes no transparent huge pages setting' };
  if (t === 'always') {
    return {
      check: 'thp', state: 'always', ok: false,
      effect: 'khugepaged compacts memory under mysqld at random moments: occasional stalls in a round; runner-setup/tune sets never',
    };
  }
  return { check: 'thp', state: t, ok: true, effect: t === 'never' ? 'no huge page compaction' : 'huge pages only for programs that ask (mysqld does not by default)' };
}

function swappiness(fp) {
  const s = fp.swappiness;
  if (s === null || s === undefined) return { check: 'swappiness', state: 'unknown', ok: null, effect: '/proc/sys/vm/swappiness not readable' };
  if (s <= 10) return { check: 'swappiness', state: String(s), ok: true, effect: 'the buffer pool stays in memory' };
  return {
    check: 'swappiness', state: String(s), ok: false,
    effect: 'under memory pressure the kernel may swap out buffer pool pages: long stalls when they come back; runner-setup/tune sets 1',
  };
}

function cpus(fp) {
  const n = fp.cores;
  const isolated = fp.isolated_cpus ? `, isolated ${fp.isolated_cpus}` : '';
  if (typeof n === 'number' && n < 4) {
    return {
      check: 'cpus', state: `${n} logical CPU${n === 1 ? '' : 's'}${isolated}`, ok: false,
      effect: 'mysqld, sysbench and everything else on the host share so few CPUs that any other process shows up in the QPS; the quick suite keeps sysbench on one CPU and mysqld on the rest (pin_cpus: split), which leaves mysqld a single CPU',
    };
  }
  return { check: 'cpus', state: `${n} logical CPUs${isolated}`, ok: true, effect: 'room to keep the load generator off the server\'s CPUs' };
}

function storage(fp) {
  const fs = fp.filesystem || {};
  const disk = fp.disk;
  const where = disk ? `${fs.type || '?'} on ${disk.device}${disk.model ? ` (${disk.model})` : ''}` : `${fs.type || '?'} (no block device)`;
  if (disk && disk.rotational) {
    return {
      check: 'storage', state: `${where}, reported rotational`, ok: false,
      effect: 'a spinning disk (or a virtual one that reports as such) makes flushes and write-heavy microbenchmarks wait on seeks; read-only ones at small scale stay in memory',
    };
  }
  return { check: 'storage', state: where, ok: true, effect: fs.type === 'tmpfs' ? 'data in memory: no I/O noise, but no I/O cost measured either' : 'solid-state or memory-backed data folder' };
}

function mitigations(fp) {
  const m = fp.mitigations_summary;
  if (!m) return { check: 'mitigations', state: 'unknown', ok: null, effect: 'the kernel lists no CPU vulnerabilities' };
  return {
    check: 'mitigations',
    state: `${m.mitigated} mitigated, ${m.vulnerable} vulnerable, ${m.not_affected} not affected`,
    ok: true,
    effect: 'mitigations make system calls and context switches dearer; they are part of the machine id, so results from runners with other mitigations are not compared',
  };
}

const CHECKS = [virtualization, cpus, governor, turbo, smt, thp, swappiness, storage, mitigations];

function diagnose(fingerprint) {
  if (!fingerprint || typeof fingerprint !== 'object') throw new TypeError('diagnose: fingerprint must be an object');
  return CHECKS.map((check) => check(fingerprint));
}

// The lines a report carries about its runner: one per check that is not tuned.
function warnings(checks) {
  return checks.filter((c) => c.ok === false).map((c) => `${c.check}: ${c.state}: ${c.effect}`);
}

function describeMachine(fp) {
  const parts = [fp.cpu_model, `${fp.cores} CPUs`, `${Math.round((fp.memory_bytes || 0) / GIB)} GiB`, `kernel ${fp.kernel}`];
  if (fp.hardware_class) parts.push(`class ${fp.hardware_class}`);
  if (fp.id) parts.push(`machine id ${fp.id}`);
  return parts.join(' · ');
}

module.exports = { diagnose, warnings, describeMachine };
