'use strict';
// The sandbox shows the harness perfgate's tools folder, where go-tpc (the TPC-C suite's client)
// is found when PATH has none, and only when it exists.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { toolsFolders } = require('../../../cli/src/harness-process');
const { scratchDir } = require('../../support/scratch-dir');

test('the tools folder under PERFGATE_CACHE is shown to the sandbox when it exists', () => {
  const cache = scratchDir('perfgate-cache-');
  assert.deepEqual(toolsFolders({ PERFGATE_CACHE: cache }), []);
  fs.mkdirSync(path.join(cache, 'tools', 'bin'), { recursive: true });
  assert.deepEqual(toolsFolders({ PERFGATE_CACHE: cache }), [path.join(cache, 'tools', 'bin')]);
});
