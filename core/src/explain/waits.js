'use strict';
// Waits per query from performance_schema (switched on for the explanation step only): the
// wait, stage and statement summaries of the workload's user, deltas over windows of the same
// events on both sides. An instrument whose waits per query grew is a finding. Pure.
//
// The rule (docs/explain.md#the-rules): counts as the counters' InnoDB class; times only where
// the ranges lie apart by more than the floors below, because times of one build spread far
// more between A/A windows than counts do (figures in docs/explain.md).
const { perQuery, differs, mean } = require('./windows');

const MIN_WINDOWS = 2;
const PS_PER_US = 1e6;

// The summaries compared, in the order findings are listed. `cause`: whether a growth names
// where the time went (a wait, a stage) or only restates the slowdown (a statement's own time).
const SUMMARIES = Object.freeze({
  waits: { cause: true },
  stages: { cause: true },
  statements: { cause: false },
});
const COUNT_FLOOR = { share: 0.10, least: 0.05 };
const TIME_FLOOR = { share: 0.5, least: 5, ofStatementTime: 0.05 };

// Never compared: a thread idle between commands, background threads' condition waits, the
// client's socket, and the observer's own statements where the summaries are not by user.
const SKIP = /^(idle|wait\/synch\/cond\/|wait\/io\/socket\/sql\/(server_unix_socket|server_tcpip_socket|client_connection)|statement\/sql\/(show_status|select)$|statement\/com\/(Quit|Prepare|Close stmt)$|stage\/sql\/Filling schema table$)/;

const usable = (windows) => (windows || []).filter((w) => w && w.queries > 0);
const names = (windows, summary) => [...new Set(windows.flatMap((w) => Object.keys(w[summary] || {})))].filter((n) => !SKIP.test(n)).sort();
// An instrument a window does not list did not fire in it.
const figureOf = (summary, name, field) => (w) => ((w[summary] || {})[name] || {})[field] || 0;

// The base's statement time per query, in µs: the floor of a time is a share of it.
function statementTime(windows) {
  const per = names(windows, 'statements').map((name) => perQuery(windows, figureOf('statements', name, 'ps')));
  return per.reduce((sum, values) => sum + (values ? mean(values) : 0), 0) / PS_PER_US;
}

/**
 * @param base, head  waits windows of each side: [{queries, waits, stages, statements}], each
 *                    summary {instrument: {count, ps}} of the window
 * @returns {findings: [{kind: 'waits', summary, name, measure: 'time'|'count', base, head, gap,
 *          floor, cause}], problem}: time figures in µs per query; by summary (waits, stages,
 *          statements), times before counts, the largest growth first
 */
function waitFindings(base, head) {
  const b = usable(base);
  const h = usable(head);
  if (b.length < MIN_WINDOWS || h.length < MIN_WINDOWS) {
    return { findings: [], problem: `${Math.min(b.length, h.length)} performance_schema windows a side, ${MIN_WINDOWS} needed` };
  }
  const more = TIME_FLOOR.ofStatementTime * statementTime(b);
  const findings = [];
  for (const [summary, { cause }] of Object.entries(SUMMARIES)) {
    for (const name of names([...b, ...h], summary)) {
      const us = (side) => perQuery(side, figureOf(summary, name, 'ps')).map((ps) => ps / PS_PER_US);
      const time = differs(us(b), us(h), { ...TIME_FLOOR, more });
      if (time) findings.push({ kind: 'waits', summary, name, measure: 'time', ...time, cause });
      const count = differs(perQuery(b, figureOf(summary, name, 'count')), perQuery(h, figureOf(summary, name, 'count')), COUNT_FLOOR);
      if (count) findings.push({ kind: 'waits', summary, name, measure: 'count', ...count, cause });
    }
  }
  const order = Object.keys(SUMMARIES);
  findings.sort((x, y) => order.indexOf(x.summary) - order.indexOf(y.summary) || (x.measure === y.measure ? 0 : x.measure === 'time' ? -1 : 1)
    || (y.head - y.base) - (x.head - x.base));
  return { findings, problem: null };
}

module.exports = { waitFindings, SKIP, MIN_WINDOWS, COUNT_FLOOR, TIME_FLOOR };
