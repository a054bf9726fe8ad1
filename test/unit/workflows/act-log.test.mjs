// The reader of act's --json log that the workflow tests judge jobs by. act keeps one result
// per job, so a matrix leg that ends after another leg failed is logged "Job failed" though
// its own steps succeeded: each leg is judged by its own steps.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readActLog } from '../../support/act.mjs';

const line = (fields) => JSON.stringify({ level: 'info', msg: '', ...fields });

test('a matrix leg is judged by its own steps, not by the job result act shares between legs', () => {
  const quick = { jobID: 'report', matrix: { suite: 'quick' } };
  const ahi = { jobID: 'report', matrix: { suite: 'ahi-quick' } };
  const log = [
    line({ ...ahi, stepID: ['0'], stage: 'Main', stepResult: 'success' }),
    line({ ...quick, stepID: ['0'], stage: 'Main', stepResult: 'failure' }),
    line({ ...quick, jobResult: 'failure' }),
    line({ ...ahi, stepID: ['1'], stage: 'Post', stepResult: 'success' }),
    line({ ...ahi, jobResult: 'failure' }),
  ].join('\n');
  const { legs } = readActLog(log);
  assert.deepEqual(legs, { 'report (quick)': 'failure', 'report (ahi-quick)': 'success' });
});

test('a leg that ran no step keeps the result act gave it', () => {
  const { legs } = readActLog(line({ jobID: 'measure', matrix: { suite: 'quick' }, jobResult: 'failure' }));
  assert.deepEqual(legs, { 'measure (quick)': 'failure' });
});
