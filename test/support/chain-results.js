'use strict';
// A real two-sided run (io-tiny) with a second head added: head2 ran every round of the head at
// half its QPS, so it fails where the head does not, and read twice the KB per query.
const { capturedResults, loadResults } = require('./captured-results');

const captured = () => loadResults(capturedResults().find((c) => c.name === 'io-tiny').file);

function chainResults() {
  const r = captured();
  r.sides.head2 = { ...r.sides.head, version: '11.8.9-MariaDB', label: 'head2' };
  r.plan.sides.head2 = { ...r.plan.sides.head, label: 'head2' };
  for (const b of r.benchmarks) {
    const extra = b.rounds.filter((x) => x.side === 'head').map((x) => ({
      ...x, side: 'head2', qps: x.qps / 2, device_reads_per_query: x.device_reads_per_query * 2, latency_ms: { ...x.latency_ms, p95: x.latency_ms.p95 * 2 },
    }));
    b.rounds.push(...extra);
  }
  return r;
}

module.exports = { chainResults, captured };
