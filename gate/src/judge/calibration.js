'use strict';
// What an A/A run (the base server against itself) says about a runner: per microbenchmark the
// noise of the paired ratios, the smallest regression the configured rounds can catch, and
// limits that keep A/A runs quiet. Pure: results and limits in, calibration out.
const { ratioInterval, pairedRatios, studentTQuantile } = require('./stats');
const { judge } = require('./index');

const Z80 = 0.8416212335729143; // one-sided 80% power
const Z90 = 1.2815515655446004; // one-sided 90%
const floor2 = (x) => Math.floor(x * 100) / 100;

// With n pairs and log-ratio spread s, a 95% interval reaches h = t(0.975, n-1)·s/√n either
// side of the estimate. A head slower by a true factor r is then:
//   detected (interval wholly below 1.00) in 80% of runs when log r <= -(h + z80·s/√n);
//   judged fail in 80% of runs when log r <= log(fail) - (h + z80·s/√n).
// An A/A run passes (interval above warn) in 90% of runs when log(warn) <= -(h + z90·s/√n):
// the suggested warn limit. The suggested fail limit sits one half-width h lower, so that an
// interval just under warn reads as warn, and a fail needs a clear gap.
// Two server instances of one build can differ a little for good (data file layout, memory
// placement): a negative A/A offset (log of the A/A estimate) is taken as such and lowers the
// suggested limits by as much; a positive one is not credited.
function plan(sdLog, n, failLimit, offsetLog = 0) {
  if (!(sdLog >= 0) || n < 2) return null;
  const se = sdLog / Math.sqrt(n);
  const h = studentTQuantile(0.975, n - 1) * se;
  const warn = floor2(Math.exp(Math.min(0, offsetLog) - (h + Z90 * se)));
  return {
    half_width: Math.exp(h) - 1,
    detectable: 1 - Math.exp(-(h + Z80 * se)),
    caught_as_fail: failLimit ? 1 - failLimit * Math.exp(-(h + Z80 * se)) : null,
    suggested: { warn, fail: floor2(warn * Math.exp(-h)) },
  };
}

// atRounds: the rounds per side the suite runs (calibrate may measure more, to estimate the
// noise better, and projects it onto the suite's rounds).
function calibrate(results, config, { atRounds = null } = {}) {
  const verdict = judge(results, config);
  const rounds = atRounds || (results.plan && results.plan.measure && results.plan.measure.rounds) || null;
  const benchmarks = verdict.benchmarks.map((b) => {
    const src = results.benchmarks.find((x) => x.id === b.id);
    const qps = pairedRatios(src.rounds || [], 'qps').map((r) => r.ratio);
    const cpu = pairedRatios(src.rounds || [], 'cpu_per_query_us').map((r) => r.ratio);
    const q = qps.length ? ratioInterval(qps) : null;
    const c = cpu.length ? ratioInterval(cpu) : null;
    const n = rounds || qps.length;
    return {
      id: b.id,
      verdict: b.verdict,
      pairs: qps.length,
      rqps: q ? { estimate: q.estimate, low: q.low, high: q.high, min: Math.min(...qps), max: Math.max(...qps) } : null,
      noise: {
        rqps_sd: q && q.sd_log !== null ? q.sd_log : null,
        cpu_per_query_sd: c && c.sd_log !== null ? c.sd_log : null,
      },
      at_rounds: n,
      rqps_plan: q && q.sd_log !== null ? plan(q.sd_log, n, b.limits.fail, Math.log(q.estimate)) : null,
      cpu_plan: c && c.sd_log !== null ? plan(c.sd_log, n, null) : null,
      limits: b.limits,
    };
  });
  const planned = benchmarks.filter((b) => b.rqps_plan);
  return {
    schema: 'perfgate.calibration/v1',
    suite: verdict.suite,
    machine: verdict.run.machine,
    server: verdict.run.sides.base,
    rounds,
    measured_pairs: Math.max(0, ...benchmarks.map((b) => b.pairs)),
    doctor: verdict.doctor,
    aa_verdict: verdict.verdict,
    aa_headline: verdict.headline,
    benchmarks,
    suggested: planned.length ? {
      warn: Math.min(...planned.map((b) => b.rqps_plan.suggested.warn)),
      fail: Math.min(...planned.map((b) => b.rqps_plan.suggested.fail)),
    } : null,
  };
}

const pct = (x) => (typeof x === 'number' ? `${(x * 100).toFixed(1)}%` : '–');
const f2 = (x) => (typeof x === 'number' ? x.toFixed(2) : '–');

function renderCalibration(cal) {
  const header = ['microbenchmark', 'A/A rQPS', 'min–max', 'noise rQPS', 'noise cpu/o', '±95%', 'catchable', 'caught as fail', 'suggest warn', 'fail', 'A/A verdict'];
  const rows = cal.benchmarks.map((b) => [
    b.id,
    f2(b.rqps && b.rqps.estimate),
    b.rqps ? `${f2(b.rqps.min)}–${f2(b.rqps.max)}` : '–',
    pct(b.noise.rqps_sd),
    pct(b.noise.cpu_per_query_sd),
    pct(b.rqps_plan && b.rqps_plan.half_width),
    b.rqps_plan ? `-${pct(b.rqps_plan.detectable)}` : '–',
    b.rqps_plan && b.rqps_plan.caught_as_fail !== null ? `-${pct(b.rqps_plan.caught_as_fail)}` : '–',
    f2(b.rqps_plan && b.rqps_plan.suggested.warn),
    f2(b.rqps_plan && b.rqps_plan.suggested.fail),
    b.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  const out = [
    `perfgate calibrate: ${cal.server && cal.server.version} against itself, suite ${cal.suite}: noise from ${cal.measured_pairs} paired rounds, projected onto ${cal.rounds} rounds per side`,
    '',
    line(header),
    ...rows.map(line),
    '',
    'noise: standard deviation of log(head/base) over paired rounds (≈ relative spread of one pair).',
    `±95%: half-width of the rQPS interval at ${cal.rounds} rounds. catchable: a slowdown this large is detected (interval below 1.00) in 80% of runs;`,
    'caught as fail: the slowdown judged fail in 80% of runs at the current fail limit.',
    'suggest warn: A/A runs pass 90% of the time; fail: one interval half-width lower.',
  ];
  if (cal.suggested) out.push('', `Suggested suite limits: limits: {default: {warn: ${cal.suggested.warn.toFixed(2)}, fail: ${cal.suggested.fail.toFixed(2)}}} (the loosest per-benchmark suggestion, so that every microbenchmark stays quiet in A/A runs).`);
  out.push(`A/A verdict at the current limits: ${cal.aa_verdict}: ${cal.aa_headline}`);
  for (const w of cal.doctor || []) out.push(`runner warning: ${w}`);
  return out.join('\n') + '\n';
}

module.exports = { calibrate, renderCalibration, plan };
