'use strict';
// Where a comparison's time went: every stretch between two harness events belongs to what the
// earlier one started; extra steps count by their kind.
const test = require('node:test');
const assert = require('node:assert/strict');
const { phaseOf, phaseClock, formatPhaseProfile } = require('../../../core/src/phase-profile');

test('stretches between events add up per phase, extra steps by their kind', () => {
  let t = 0;
  const clock = phaseClock(() => t);
  const at = (ms, event, stage) => { t = ms; clock.mark(phaseOf(event, stage)); };
  at(1000, { event: 'phase', phase: 'init', side: 'base' });
  at(9000, { event: 'phase', phase: 'start', side: 'base' });
  at(12000, { event: 'phase', phase: 'instructions', benchmark: 'a' });
  at(52000, { event: 'phase', phase: 'warmup', benchmark: 'a', side: 'base' });
  at(54000, { event: 'round', benchmark: 'a', side: 'base', round: 0 });
  at(56000, { event: 'round', benchmark: 'a', side: 'head', round: 0 });
  at(58000, { event: 'phase', phase: 'shutdown', side: 'base' });
  at(60000, { event: 'phase', phase: 'start', side: 'base' }, 'extra windows');
  t = 90000;
  clock.stop();
  t = 91000;
  clock.stop();
  assert.deepEqual(clock.totals(), [
    { phase: 'harness start', seconds: 1 },
    { phase: 'load data', seconds: 8 },
    { phase: 'server starts', seconds: 3 },
    { phase: 'instruction windows', seconds: 40 },
    { phase: 'warm-ups', seconds: 2 },
    { phase: 'timed rounds', seconds: 4 },
    { phase: 'server stops', seconds: 2 },
    { phase: 'extra windows', seconds: 30 },
    { phase: 'judging and reports', seconds: 1 },
  ]);
  assert.equal(formatPhaseProfile(clock.totals()),
    'where the time went: harness start 1 s · load data 8 s · server starts 3 s · instruction windows 40 s · warm-ups 2 s · timed rounds 4 s · server stops 2 s · extra windows 30 s · judging and reports 1 s · total 91 s');
});

test('events that say nothing of a phase leave the clock where it is', () => {
  assert.equal(phaseOf({ event: 'benchmark', status: 'ok' }), null);
  assert.equal(phaseOf({ event: 'round' }, 'confirm'), 'confirm');
});

test('rounds a row got on its own servers, pair by pair, count as extra rounds', () => {
  const { phaseOf } = require('../../../core');
  assert.equal(phaseOf({ event: 'round', benchmark: 'a', side: 'base, head', round: 6, extra: true }), 'extra rounds');
  assert.equal(phaseOf({ event: 'round', benchmark: 'a', side: 'base, head', round: 5, rounds: 6 }), 'timed rounds');
});
