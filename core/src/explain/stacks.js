'use strict';
// Off-CPU stacks: where mysqld's connection threads waited inside a statement (asleep, on a
// lock, on I/O), in µs per query of each side, from one perf session per side over the same
// events. A wait that grew is a finding, named by the frames it waited under: this names a
// sleep, a lock wait or a spin that no counter sees. On-CPU attribution stays with callgrind's
// functions that grew (the verdict's): on-CPU frame shares spread several points between A/A
// sessions. Pure.
//
// The rule (docs/explain.md#the-rules): a wait
// (its stacks summed by name) counts where the head's µs per query exceed the base's by at
// least FLOOR_US and by at least LATENCY_SHARE of the head's latency per query; A/A sessions
// differ by a tenth of a µs per query.
const FLOOR_US = 5;
const LATENCY_SHARE = 0.05;
// Stacks by eu-stack snapshots (where perf may not record switches): each snapshot either sees
// a wait or not, so a wait also counts only where the head saw it in a larger share of its
// snapshots than the base by SNAPSHOT_Z standard errors (two proportions), and in at least
// LEAST_SNAPSHOTS of them; a handful of snapshots tells little apart.
const SNAPSHOT_Z = 3;
const LEAST_SNAPSHOTS = 5;
// Frames named per wait: the last few of the server's own before the kernel's.
const NAMED_FRAMES = 3;

// Where the kernel's part of a stack starts (a system call's or an interrupt's entry).
const KERNEL_ENTRY = /^(entry_SYSCALL|asm_|do_syscall_64$|__x64_sys_|__arm64_sys_|el0_)/;
// A frame perf could not name ([unknown], [mariadbd]: a hidden-visibility function).
const UNNAMED = /^\[.*\]$/;
// Frames of the thread's state, which the stack's key may carry (state=S, state=D, state=R).
const STATE = /^state=(.*)$/;

// A stack's key: frames from the thread's start to the leaf, joined by ';' (a single frame is a
// stack of one).
const framesOf = (key) => String(key).split(';').filter(Boolean);

/**
 * The name of a wait: its last NAMED_FRAMES named frames before the kernel's entry, oldest
 * first, '…' where unnamed frames lie between them; a symbol's version (@GLIBC_2.2.5) dropped.
 */
function waitName(key) {
  const frames = framesOf(key).filter((f) => !STATE.test(f));
  const entry = frames.findIndex((f) => KERNEL_ENTRY.test(f));
  const user = entry < 0 ? frames : frames.slice(0, entry);
  const named = [];
  for (let i = user.length - 1; i >= 0 && named.length < NAMED_FRAMES * 2; i--) {
    const f = user[i];
    if (UNNAMED.test(f)) {
      if (named.length && named[0] !== '…') named.unshift('…');
      continue;
    }
    if (named.filter((x) => x !== '…').length === NAMED_FRAMES) break;
    named.unshift(f.replace(/@@?[A-Z][A-Za-z0-9_.]*$/, ''));
  }
  while (named[0] === '…') named.shift();
  return named.length ? named : [frames[frames.length - 1] || key];
}

// A stack preempted while runnable (state R) waited for a CPU, not for anything of its own:
// CPU contention on the runner, not the build's.
const preempted = (key) => framesOf(key).some((f) => STATE.test(f) && /^R/.test(STATE.exec(f)[1]));

// µs per query of each wait, by name, and the snapshots that saw it (eu-stack's; else 0) as
// bounds: a wait's stacks may share snapshots, so at least the most any one saw (`least`) and at
// most all they saw (`most`).
function byWait(usPerQuery, seen = {}) {
  const out = new Map();
  for (const [key, us] of Object.entries(usPerQuery || {})) {
    if (!(typeof us === 'number' && Number.isFinite(us)) || preempted(key)) continue;
    const frames = waitName(key);
    const name = frames.join(' → ');
    const had = out.get(name) || { frames, us: 0, least: 0, most: 0 };
    const k = Number.isInteger(seen[key]) ? seen[key] : 0;
    had.us += us;
    had.least = Math.max(had.least, k);
    had.most += k;
    out.set(name, had);
  }
  return out;
}

const toolOf = (side) => side.tool || 'perf';

// Whether the head's share of snapshots in a wait exceeds the base's beyond chance.
function moreOften(kBase, nBase, kHead, nHead) {
  if (kHead < LEAST_SNAPSHOTS || !(nBase > 0 && nHead > 0) || kBase > nBase || kHead > nHead) return false;
  const pooled = (kBase + kHead) / (nBase + nHead);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / nBase + 1 / nHead));
  return se > 0 && (kHead / nHead - kBase / nBase) / se >= SNAPSHOT_Z;
}

/**
 * @param base, head   each side's stacks: {offcpu_us_per_query: {stack: µs}, ...}
 * @param headLatencyUs the head's time per query (µs), or null when not known (the µs floor
 *                      alone then holds)
 * @returns {findings: [{kind: 'stacks', name, frames, base, head, floor}], problem}, the
 *          largest growth first
 */
function stackFindings(base, head, { headLatencyUs = null } = {}) {
  const b = base && base.offcpu_us_per_query;
  const h = head && head.offcpu_us_per_query;
  if (!b || !h) return { findings: [], problem: 'no off-CPU stacks of both sides' };
  if (toolOf(base) !== toolOf(head)) return { findings: [], problem: `the sides' stacks were taken by ${toolOf(base)} and ${toolOf(head)}; expected one tool` };
  const snapshots = toolOf(head) === 'eu-stack';
  const floor = Math.max(FLOOR_US, headLatencyUs > 0 ? LATENCY_SHARE * headLatencyUs : 0);
  const waitsB = byWait(b, base.offcpu_snapshots || {});
  const waitsH = byWait(h, head.offcpu_snapshots || {});
  const findings = [];
  for (const [name, { frames, us, least }] of waitsH) {
    const was = waitsB.get(name) || { us: 0, most: 0 };
    if (us - was.us < floor) continue;
    // The head's fewest snapshots against the base's most: a wait counts only where even so.
    const baseSeen = Math.min(was.most, base.snapshots);
    if (snapshots && !moreOften(baseSeen, base.snapshots, least, head.snapshots)) continue;
    const counted = snapshots ? { snapshots: { base: [baseSeen, base.snapshots], head: [least, head.snapshots] } } : {};
    findings.push({ kind: 'stacks', name, frames, base: was.us, head: us, floor, ...counted });
  }
  findings.sort((x, y) => (y.head - y.base) - (x.head - x.base));
  return { findings, problem: null };
}

module.exports = { stackFindings, waitName, FLOOR_US, LATENCY_SHARE, SNAPSHOT_Z, LEAST_SNAPSHOTS };
