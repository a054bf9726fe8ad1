'use strict';
// The noise of a runner, from A/A runs (one server on both sides): per microbenchmark, how
// far round QPS and cpu/o spread and how wide the paired ratios range, and the same per
// condition of a benchmark that runs A/A under several (bench/noise.js, bench/round-length.js).
// Pure: results in, tables out. What the spread means for limits is calibration.js's.
const { pairedRatios, mean, sampleSd } = require('./statistics');
const { pct } = require('./calibration');

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

module.exports = { noiseRows, renderNoiseTable, conditionNoise, renderConditionNoise };
