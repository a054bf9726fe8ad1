'use strict';
// How the rounds of one index share the machine (measure.side_schedule; the harness's
// schedule.py runs them), and the words the reports use for each.
const SIDE_SCHEDULES = Object.freeze({
  'in-turn': 'the sides in turn, A B B A',
  together: 'both sides at the same time',
  alternating: 'the sides alternating every 50 ms',
});

function sideScheduleWords(schedule) {
  return SIDE_SCHEDULES[schedule || 'in-turn'];
}

module.exports = { SIDE_SCHEDULES, sideScheduleWords };
