// job: signoff: the run folders it merges must be the pinned release pair's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { releaseMismatch } from '../../../action/src/signoff.js';

const release = { candidate: { ref: 'mariadb-10.11.19', sha: '1'.repeat(40) }, previous: { ref: 'mariadb-10.11.18', sha: '8'.repeat(40) } };

describe('releaseMismatch', () => {
  it('accepts the pinned pair and names the side that differs', () => {
    assert.equal(releaseMismatch({ head_sha: '1'.repeat(40), base_sha: '8'.repeat(40) }, release), null);
    assert.equal(releaseMismatch({ head_sha: '2'.repeat(40), base_sha: '8'.repeat(40) }, release),
      `the run folders measured head_sha ${'2'.repeat(40)}, but the candidate mariadb-10.11.19 is ${'1'.repeat(40)}`);
    assert.equal(releaseMismatch({ head_sha: '1'.repeat(40), base_sha: null }, release),
      `the run folders measured base_sha null, but the previous release mariadb-10.11.18 is ${'8'.repeat(40)}`);
  });
});
