'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { diagnose, warnings } = require('../../../core/src/runner-checks');

const PERFGATE = path.join(__dirname, '../../../cli/bin/perfgate.js');
// Captured from `python3 -m perfgate_harness fingerprint` on a 2-vCPU KVM guest.
const VM = JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/fingerprint/vm.json'), 'utf8'));

// The same fingerprint as a tuned 16-thread bare-metal host would report it.
const TUNED = {
  ...VM,
  cpu_model: 'Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz',
  cores: 16,
  virtualization: { virtualized: false, container: false },
  governor: 'performance',
  turbo: 'off',
  smt: 'off',
  thp: 'never',
  swappiness: 1,
  disk: { device: 'nvme0n1', model: 'Samsung SSD 980 PRO 1TB', rotational: false, scheduler: 'none' },
};

const byName = (checks) => Object.fromEntries(checks.map((c) => [c.check, c]));

test('every check has a name, a state, ok in {true,false,null} and an effect', () => {
  for (const fp of [VM, TUNED]) {
    for (const c of diagnose(fp)) {
      assert.equal(typeof c.check, 'string');
      assert.equal(typeof c.state, 'string');
      assert.ok([true, false, null].includes(c.ok), `${c.check}: ok=${c.ok}`);
      assert.ok(c.effect.length > 20, `${c.check}: effect '${c.effect}'`);
    }
  }
});

test('a VM says what it cannot control, and warns about what it can', () => {
  const c = byName(diagnose(VM));
  assert.deepEqual([c.governor.state, c.governor.ok], ['not exposed', null]);
  assert.deepEqual([c.turbo.state, c.turbo.ok], ['not exposed', null]);
  assert.match(c.governor.effect, /runner-setup\/tune cannot change it/);
  assert.deepEqual([c.smt.state, c.smt.ok], ['notsupported (no sibling threads)', true]);
  assert.equal(c.virtualization.ok, false);
  assert.equal(c.virtualization.effect, 'other guests take CPU time from this one (steal) and the host sets the clock: back-to-back runs of one server can differ in QPS; rely on interleaved rounds and cpu/o');
  assert.equal(c.cpus.ok, false);
  assert.match(c.cpus.effect, /leaves mysqld a single CPU/);
  assert.deepEqual([c.swappiness.state, c.swappiness.ok], ['60', false]);
  assert.equal(c.thp.ok, true);
  assert.equal(c.storage.state, 'ext4 on vda, reported rotational');
  assert.equal(c.mitigations.state, '2 mitigated, 2 vulnerable, 15 not affected');
});

test('a tuned bare-metal host has no warnings', () => {
  const checks = diagnose(TUNED);
  assert.deepEqual(warnings(checks), []);
  const c = byName(checks);
  assert.equal(c.governor.state, 'performance');
  assert.equal(c.storage.state, 'ext4 on nvme0n1 (Samsung SSD 980 PRO 1TB)');
});

test('each untuned knob becomes one warning line naming it', () => {
  const untuned = { ...TUNED, governor: 'powersave', turbo: 'on', smt: 'on', thp: 'always', swappiness: 60 };
  const lines = warnings(diagnose(untuned));
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['governor', 'turbo', 'smt', 'thp', 'swappiness']);
  assert.match(lines[0], /^governor: powersave: the clock follows the load/);
  assert.match(lines[1], /^turbo: on: boost clocks depend on temperature/);
});

test('a governor that differs between CPUs is a warning', () => {
  const c = byName(diagnose({ ...TUNED, governor: 'mixed:performance,powersave' }));
  assert.equal(c.governor.ok, false);
});

test('diagnose refuses a non-object', () => {
  assert.throws(() => diagnose(null), /fingerprint must be an object/);
});

function perfgate(...args) {
  return spawnSync(process.execPath, [PERFGATE, 'doctor', ...args], { encoding: 'utf8', timeout: 60_000 });
}

test('perfgate doctor on this machine: says what is not controllable instead of failing', () => {
  const r = perfgate();
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /^perfgate doctor: .* · \d+ CPUs · \d+ GiB · kernel .* · class \d+c-\d+g · machine id [0-9a-f]{16}$/);
  for (const name of ['virtualization', 'cpus', 'governor', 'turbo', 'smt', 'thp', 'swappiness', 'storage', 'mitigations']) {
    assert.ok(lines.some((l) => new RegExp(`^  (ok  |WARN|n/a )  ${name} `).test(l)), `no line for ${name}:\n${r.stdout}`);
  }
  if (!fs.existsSync('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor')) {
    assert.ok(lines.some((l) => /^  n\/a   governor +not exposed: /.test(l)), r.stdout);
  }
});

test('the counting tools: valgrind for instructions, perf and eu-stack for stacks, each missing one named with its effect', () => {
  const { toolChecks } = require('../../../cli/src/tool-checks');
  const jemalloc = { name: 'jemalloc', library: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', settings: 'dirty_decay_ms:-1,muzzy_decay_ms:-1' };
  const all = toolChecks({ valgrind: '/usr/bin/valgrind', perf: '/usr/bin/perf', euStack: '/usr/bin/eu-stack', goTpc: '/opt/go-tpc', countedMalloc: jemalloc });
  assert.deepEqual(all.map((c) => [c.check, c.ok, c.state]), [['instructions', true, 'valgrind'], ['stacks', true, 'perf (as root), eu-stack (in the sandbox)'],
    ['tpcc', true, 'go-tpc (/opt/go-tpc)'], ['counted malloc', true, 'jemalloc (/usr/lib/x86_64-linux-gnu/libjemalloc.so.2)']]);
  // Counted on glibc's malloc: a warning with what it costs and what to install; no line without valgrind.
  const glibc = toolChecks({ valgrind: 'v', perf: 'p', euStack: 'e', countedMalloc: { name: 'glibc', settings: 'glibc.malloc.arena_max=1' } })[3];
  assert.deepEqual([glibc.ok, glibc.state], [false, "glibc's, one arena (libjemalloc.so.2 not found)"]);
  assert.match(glibc.effect, /further apart than the shipped instruction limits allow for .*unchanged code can warn; install libjemalloc2 \(runner-setup\/install\)$/);
  assert.equal(toolChecks({ valgrind: 'v', perf: 'p', euStack: 'e' })[3].state, 'unknown (the harness did not say)');
  const none = toolChecks({ valgrind: null, perf: null, euStack: null });
  assert.deepEqual(none.map((c) => [c.ok, c.state]), [[false, 'valgrind is not installed'], [false, 'neither perf nor eu-stack is installed'], [false, 'go-tpc is not installed']]);
  assert.match(none[2].effect, /release sign-off, which runs it by default\) makes its row an error here; run scripts\/install-ci-tools\.sh/);
  assert.match(none[0].effect, /makes every row an error here; install valgrind \(runner-setup\/install\)$/);
  assert.match(none[1].effect, /not looked at anywhere; install perf \(linux-perf on Debian, linux-tools-\$\(uname -r\) on Ubuntu\) and elfutils/);
  assert.match(toolChecks({ valgrind: 'v', perf: 'p', euStack: null })[1].effect, /not looked at inside the sandbox; install elfutils/);
  const snapshotsOnly = toolChecks({ valgrind: 'v', perf: null, euStack: 'e' })[1];
  assert.deepEqual([snapshotsOnly.ok, snapshotsOnly.state], [true, 'eu-stack']);
  assert.match(snapshotsOnly.effect, /by snapshots everywhere/);
  // Yama above 0 keeps eu-stack off mysqld inside the sandbox: said, with the setting to change.
  const yama = toolChecks({ valgrind: 'v', perf: 'p', euStack: 'e', ptraceScope: 1 })[1];
  assert.deepEqual([yama.ok, yama.state], [false, 'perf (as root); eu-stack refused by ptrace_scope 1']);
  assert.match(yama.effect, /inside the sandbox the snapshots fail .*ptrace_scope = 0 lets eu-stack attach/);
  assert.match(toolChecks({ valgrind: 'v', perf: null, euStack: 'e', ptraceScope: 3 })[1].effect, /not looked at, nor anywhere/);
  assert.match(toolChecks({ valgrind: 'v', perf: null, euStack: 'e', ptraceScope: 2 })[1].effect, /not looked at \(outside it, as root, eu-stack still attaches\)/);
  assert.equal(toolChecks({ valgrind: 'v', perf: null, euStack: 'e', ptraceScope: 0 })[1].ok, true);
  const r = perfgate();
  assert.match(r.stdout, /^  (ok  |WARN)  instructions +valgrind/m);
  assert.match(r.stdout, /^  (ok  |WARN)  stacks +/m);
  assert.match(r.stdout, /^  (ok  |WARN)  tpcc +/m);
  assert.match(r.stdout, /^  ok    counted malloc +jemalloc \(/m);
});

test('perfgate doctor --json gives the machine, the checks and the warnings', () => {
  const r = perfgate('--json', '--data-dir', os.tmpdir());
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.machine.id, /^[0-9a-f]{16}$/);
  assert.equal(doc.machine.filesystem.path, fs.realpathSync(os.tmpdir()));
  assert.deepEqual(doc.warnings, warnings(doc.checks));
});

test('perfgate doctor --fingerprint reads the machine of a results.json', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-doctor-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify({ schema: 'perfgate.results/v1', machine: TUNED }));
  const r = perfgate('--fingerprint', file);
  fs.rmSync(dir, { recursive: true });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Nothing untuned that perfgate can see\./);
});

test('perfgate doctor: bad arguments are one line and exit 2', () => {
  let r = perfgate('--fingerprint', '/nonexistent/fp.json');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "perfgate doctor: --fingerprint '/nonexistent/fp.json': no such file; expected a fingerprint or results.json\n");
  r = perfgate('--verbose');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "perfgate doctor: unknown option '--verbose'; expected one of: --json, --fingerprint, --data-dir, --help\n");
});

test('Yama\'s ptrace_scope is read as a number, and as absent where the file is missing or not a number', () => {
  const { readPtraceScope } = require('../../../cli/src/tool-checks');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-yama-'));
  const file = path.join(dir, 'ptrace_scope');
  fs.writeFileSync(file, '1\n');
  assert.equal(readPtraceScope(file), 1);
  fs.writeFileSync(file, 'junk');
  assert.equal(readPtraceScope(file), null);
  assert.equal(readPtraceScope(path.join(dir, 'none')), null);
  fs.rmSync(dir, { recursive: true });
});
