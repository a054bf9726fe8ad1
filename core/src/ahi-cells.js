'use strict';
// The AHI suite's cells: its benchmarks come in on/off pairs per cell (workload × threads).
// Each side's AHI gain is QPS(on)/QPS(off); the head's gain relative to the base's is, round by
// round, rQPS(on)_i / rQPS(off)_i, so it is judged from paired ratios like any other ratio.
const { geometricMean, pairedInterval } = require('./statistics');
const { rowVerdict } = require('./row-verdict');
const { rowLimits } = require('./row-limits');
const { signalOf } = require('./row-signals');
const { pairsOfProcesses, inStretch, worstPairOfProcesses, unconfirmed } = require('./process-pairs');
const { clausesOf, unconfirmedPhrase, spreadWords } = require('./verdict-words');

/** The typical QPS of one side of a judged benchmark: the geometric mean of its rounds (null when none). */
function sideQps(judged, side) {
  return geometricMean(judged.qps.filter((r) => r.side === side).map((r) => r.qps));
}

function ahiCells(judged, config, extensions = []) {
  const cells = new Map();
  for (const b of judged) {
    if (!b.ahi) continue;
    const key = `${b.name}@${b.threads}`;
    if (!cells.has(key)) cells.set(key, { name: b.name, threads: b.threads });
    cells.get(key)[b.ahi] = b;
  }
  const out = [];
  for (const [key, c] of cells) {
    if (!c.on || !c.off) continue;
    const gainOf = (side) => {
      const on = sideQps(c.on, side);
      const off = sideQps(c.off, side);
      return on && off ? on / off : null;
    };
    const limits = rowLimits(config, { id: `${key}:ahi-gain`, name: c.name }, { ahiGain: true });
    const cell = {
      id: `${key}:ahi-gain`,
      name: c.name,
      threads: c.threads,
      rqps_off: c.off.rqps ? c.off.rqps.estimate : null,
      rqps_on: c.on.rqps ? c.on.rqps.estimate : null,
      gain: { base: gainOf('base'), head: gainOf('head') },
      gain_ratio: null,
      limits,
      verdict: 'error',
      reason: '',
    };
    if (c.on.verdict === 'error' || c.off.verdict === 'error') {
      cell.reason = `AHI ${c.on.verdict === 'error' ? 'on' : 'off'} cell failed: ${(c.on.verdict === 'error' ? c.on : c.off).reason}`;
    } else {
      const offByIndex = new Map(c.off.rqps.indices.map((index, k) => [index, c.off.rqps.ratios[k]]));
      const ratios = c.on.rqps.indices
        .map((index, k) => ({ index, ratio: c.on.rqps.ratios[k] / offByIndex.get(index) }))
        .filter((r) => offByIndex.has(r.index));
      cell.gain_ratio = pairedInterval(ratios);
      let gain = signalOf('gain', cell.gain_ratio, limits);
      gain = unconfirmed(gain, worstPairOfProcesses(pairsOfProcesses(extensions, 'rounds', [c.on.id, c.off.id]), (stretch) => {
        const own = ratios.filter((r) => inStretch(r.index, stretch));
        return own.length ? signalOf('gain', pairedInterval(own), limits) : null;
      }));
      const unstable = (limits.unstable || []).filter((u) => u.signal === 'rqps');
      if (unstable.length) {
        // Main's own runs spread beyond any useful limit: shown, undecided, deciding nothing (verdict.js).
        const spread = spreadWords(unstable, { rqps: 'AHI gain' });
        Object.assign(cell, { verdict: 'undecided', could_be: null, needs: [], unstable: { signals: unstable.map(({ signal, runs, p99 }) => ({ signal, runs, p99 })), whole_row: true } });
        cell.reason = `unstable: ${spread}: ${clausesOf([gain])}`;
        cell.headline_phrase = spread;
      } else {
        const row = rowVerdict({ time: gain });
        cell.verdict = row.verdict;
        cell.could_be = row.open ? row.worst : null;
        cell.needs = row.needs;
        cell.reason = clausesOf([gain]);
        if (gain.unconfirmed) cell.headline_phrase = unconfirmedPhrase(gain.unconfirmed);
      }
    }
    out.push(cell);
  }
  return out;
}

module.exports = { ahiCells, sideQps };
