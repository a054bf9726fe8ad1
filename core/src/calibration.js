'use strict';
// What an A/A run (the base server against itself) says about a runner: per microbenchmark the
// noise of the paired ratios, the smallest regression the configured rounds can catch, and
// limits that keep A/A runs quiet. Pure: results and limits in, calibration out.
const { ratioInterval, pairedRatios, studentTQuantile, mean, sampleSd } = require('./statistics');
const { judge } = require('./verdict');

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

// instr/o limits above what an A/A run shows: the offset of the two processes (their estimate),
// the spread of their paired windows, and never tighter than one percent for warn and two for
// fail (two processes of one build have counted 1.1% apart on one microbenchmark, from heap
// state that more windows of the same processes do not reveal).
const INSTRUCTION_WARN_FLOOR = 1.01;
const INSTRUCTION_FAIL_GAP = 1.01;
const ceil2 = (x) => Math.ceil(x * 100 - 1e-9) / 100;

function instructionPlan(interval) {
  if (!interval) return null;
  const se = interval.sd_log === null ? 0 : interval.sd_log / Math.sqrt(interval.n);
  const h = interval.n >= 2 && interval.sd_log !== null ? studentTQuantile(0.975, interval.n - 1) * se : 0;
  const reach = Math.abs(Math.log(interval.estimate)) + h + Z90 * se;
  const warn = Math.max(INSTRUCTION_WARN_FLOOR, ceil2(Math.exp(reach)));
  return {
    estimate: interval.estimate,
    min: Math.min(...interval.ratios),
    max: Math.max(...interval.ratios),
    sd_log: interval.sd_log,
    windows: interval.n,
    suggested: { warn, fail: ceil2(warn * INSTRUCTION_FAIL_GAP * Math.exp(h)) },
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
      instructions: instructionPlan(b.instructions_per_query),
      limits: b.limits,
    };
  });
  const counted = benchmarks.filter((b) => b.instructions);
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
    suggested_instructions: counted.length ? {
      warn: Math.max(...counted.map((b) => b.instructions.suggested.warn)),
      fail: Math.max(...counted.map((b) => b.instructions.suggested.fail)),
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
  const counted = cal.benchmarks.filter((b) => b.instructions);
  if (counted.length) {
    const f3 = (x) => (typeof x === 'number' ? x.toFixed(4) : '–');
    const iheader = ['microbenchmark', 'A/A instr/o', 'min–max', 'noise', 'windows', 'suggest warn', 'fail'];
    const irows = counted.map((b) => [b.id, f3(b.instructions.estimate), `${f3(b.instructions.min)}–${f3(b.instructions.max)}`,
      b.instructions.sd_log === null ? '–' : `${(b.instructions.sd_log * 100).toFixed(2)}%`, b.instructions.windows,
      b.instructions.suggested.warn.toFixed(2), b.instructions.suggested.fail.toFixed(2)]);
    const iwidths = iheader.map((h, i) => Math.max(h.length, ...irows.map((r) => String(r[i]).length)));
    const iline = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(iwidths[i]) : String(c).padStart(iwidths[i]))).join('  ').trimEnd();
    out.push('', 'Instructions per query (connection threads), paired windows:', '', iline(iheader), ...irows.map(iline));
    if (cal.suggested_instructions) out.push('', `Suggested instr/o limits: instructions: {warn: ${cal.suggested_instructions.warn.toFixed(2)}, fail: ${cal.suggested_instructions.fail.toFixed(2)}} (above every microbenchmark's A/A offset and window spread, warn never tighter than 1.01, fail a percent above warn).`);
  }
  out.push(`A/A verdict at the current limits: ${cal.aa_verdict}: ${cal.aa_headline}`);
  for (const w of cal.doctor || []) out.push(`runner warning: ${w}`);
  return out.join('\n') + '\n';
}

// --- noise of a runner, from A/A runs (one server on both sides) ----------------------------

// min, max and coefficient of variation (sample standard deviation / mean) of some values.
function spread(values) {
  const m = mean(values);
  return { min: Math.min(...values), max: Math.max(...values), cv: values.length > 1 && m ? sampleSd(values) / m : 0 };
}

function ratioRange(rounds, metric) {
  const ratios = pairedRatios(rounds, metric).map((r) => r.ratio);
  return ratios.length ? [Math.min(...ratios), Math.max(...ratios)] : null;
}

/**
 * One row per measured microbenchmark of one A/A results document: the spread of round QPS and
 * cpu/o over both sides' rounds (they ran one server) and the range of the paired ratios.
 */
function noiseRows(results) {
  return results.benchmarks.filter((b) => b.status === 'ok').map((b) => {
    const rounds = b.rounds || [];
    const cpu = rounds.map((r) => r.cpu_per_query_us).filter((v) => typeof v === 'number');
    return {
      id: b.id,
      rounds: rounds.length,
      qps: spread(rounds.map((r) => r.qps)),
      cpu: cpu.length ? spread(cpu) : null,
      qps_ratio: ratioRange(rounds, 'qps'),
      cpu_ratio: ratioRange(rounds, 'cpu_per_query_us'),
    };
  });
}

function renderNoiseTable(rows) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const range = (r, digits) => (r ? `${r[0].toFixed(digits)}–${r[1].toFixed(digits)}` : '–');
  const out = [
    '| microbenchmark | rounds | QPS min–max | QPS CV | cpu/o µs min–max | cpu/o CV | paired QPS ratio | paired cpu/o ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    out.push(`| ${r.id} | ${r.rounds} | ${r.qps.min.toFixed(0)}–${r.qps.max.toFixed(0)} | ${pct(r.qps.cv)} | `
      + `${r.cpu ? `${r.cpu.min.toFixed(1)}–${r.cpu.max.toFixed(1)}` : '–'} | ${r.cpu ? pct(r.cpu.cv) : '–'} | `
      + `${range(r.qps_ratio, 2)} | ${range(r.cpu_ratio, 2)} |`);
  }
  return out.join('\n') + '\n';
}

/**
 * Noise under several conditions (e.g. unpinned and pinned), each measured by several A/A
 * runs: {benchmark: {condition: {cv, ratio_min, ratio_max, ratio_sd, pairs}}}. cv is the CV
 * of one side's round QPS within one run, averaged over sides and runs (the spread a single
 * round carries); ratio_sd the standard deviation of the log paired ratios of all runs.
 */
function conditionNoise(runsByCondition) {
  const table = {};
  for (const [condition, runs] of Object.entries(runsByCondition)) {
    const cvs = {};
    const ratios = {};
    for (const results of runs) {
      for (const b of results.benchmarks) {
        for (const side of ['base', 'head']) {
          const qps = b.rounds.filter((r) => r.side === side).map((r) => r.qps);
          if (qps.length >= 2 && mean(qps) > 0) (cvs[b.id] ||= []).push(spread(qps).cv);
        }
        (ratios[b.id] ||= []).push(...pairedRatios(b.rounds, 'qps').map((r) => r.ratio));
      }
    }
    for (const id of Object.keys(cvs)) {
      const rs = ratios[id] || [];
      (table[id] ||= {})[condition] = {
        cv: mean(cvs[id]),
        ratio_min: rs.length ? Math.min(...rs) : null,
        ratio_max: rs.length ? Math.max(...rs) : null,
        ratio_sd: rs.length >= 2 ? sampleSd(rs.map(Math.log)) : null,
        pairs: rs.length,
      };
    }
  }
  return table;
}

function renderConditionNoise(table, conditions) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `| microbenchmark | ${conditions.map((c) => `${c}: CV of round QPS | ${c}: paired ratio range | ${c}: sd of ratio`).join(' | ')} |`,
    `${'|---'.repeat(1 + 3 * conditions.length)}|`,
  ];
  const sums = Object.fromEntries(conditions.map((c) => [c, { cv: [], sd: [], width: [] }]));
  for (const [id, byCondition] of Object.entries(table)) {
    const cells = [];
    for (const c of conditions) {
      const s = byCondition[c];
      if (!s || s.ratio_min === null) { cells.push('–', '–', '–'); continue; }
      cells.push(pct(s.cv), `${s.ratio_min.toFixed(3)}–${s.ratio_max.toFixed(3)}`, s.ratio_sd === null ? '–' : pct(s.ratio_sd));
      sums[c].cv.push(s.cv);
      sums[c].width.push(s.ratio_max - s.ratio_min);
      if (s.ratio_sd !== null) sums[c].sd.push(s.ratio_sd);
    }
    lines.push(`| ${id} | ${cells.join(' | ')} |`);
  }
  const cells = conditions.flatMap((c) => {
    const m = sums[c];
    return [m.cv.length ? `**${pct(mean(m.cv))}**` : '–', m.width.length ? `**width ${mean(m.width).toFixed(3)}**` : '–', m.sd.length ? `**${pct(mean(m.sd))}**` : '–'];
  });
  lines.push(`| mean | ${cells.join(' | ')} |`);
  return lines.join('\n');
}

module.exports = { calibrate, renderCalibration, plan, noiseRows, renderNoiseTable, conditionNoise, renderConditionNoise };
