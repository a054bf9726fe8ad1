'use strict';
// TPC-C: catalogue entries of `group: tpcc` and the suites that run them (docs/suites.md,
// "TPC-C"). go-tpc runs the mix (harness/perfgate_harness/tpcc_workload.py) on the warehouses
// it prepared once per side, each round on a server restarted on a fresh copy of them. A row's
// rate is tpmC, NewOrders per minute, read per second; its p95 is NewOrder's.
const check = require('./checks');
const { show } = require('./yaml-source');

const TPCC_SCRIPT = 'perfgate_tpcc';
const SHAPE = "go-tpc's TPC-C mix on the suite's warehouses: NewOrder, Payment, OrderStatus, Delivery, StockLevel; the rate is NewOrders (tpmC / 60)";
// TPC-C fixes the rows of a warehouse; a suite's `rows` names that figure (stock rows per
// warehouse) so that `tables × rows` reads true, and nothing else is accepted.
const ROWS = 100000;

function loadTpccEntry(src, at, name) {
  const raw = check.mapping(src, at, { required: ['group', 'kind'], optional: ['instructions'], what: 'TPC-C {group: tpcc, kind: write, instructions: {events}}' });
  check.oneOf(src, [...at, 'kind'], ['write']);
  const instructions = raw.instructions === undefined ? null : { events: windowEvents(src, [...at, 'instructions']) };
  return { name, group: 'tpcc', kind: 'write', script: TPCC_SCRIPT, options: {}, shape: SHAPE, instructions };
}

function windowEvents(src, at) {
  check.mapping(src, at, { required: ['events'], what: 'instruction window settings {events}' });
  return check.number(src, [...at, 'events'], { integer: true, min: 1, what: 'transactions per instruction window, an integer >= 1' });
}

// A suite lists TPC-C rows only or none: they run on go-tpc's tables, not sysbench's. Returns
// whether it is a TPC-C suite; fails at the first rule one breaks.
function checkTpccSuite(src, benchmarks, catalogue, measure, scale) {
  if (!check.groupOnly(src, benchmarks, catalogue, 'tpcc', (other, first) => `${other} is not TPC-C, ${first} is; expected a suite of TPC-C rows only (they run on go-tpc's tables)`)) return false;
  if (scale.rows !== ROWS) src.fail(['scale', 'rows'], `${show(scale.rows)} is not valid; expected ${ROWS} (TPC-C's stock rows per warehouse; scale.tables is the number of warehouses)`);
  check.inTurn(src, measure, 'round');
  return true;
}

module.exports = { loadTpccEntry, checkTpccSuite, TPCC_SCRIPT, TPCC_ROWS: ROWS };
