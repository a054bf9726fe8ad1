'use strict';
// `perfgate limits learn`: the verdicts of 120 drawn runs of main in, learned/quick.yml out, read
// back by the loader and by `perfgate judge`'s limits; bad input refused with exit 2.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const core = require('../../../core/src');
const { runMain } = require('../../support/cli-main');
const { limitsConfig } = require('../../../cli/src/commands/judge');
const { thresholdsWith } = require('../../support/thresholds-copy');
const { scratchDir } = require('../../support/scratch-dir');
const { mainRuns } = require('../../support/main-runs');

const cli = (args) => runMain(args);

const QUICK = core.findSuite(core.loadThresholds(), 'quick');

test('perfgate limits learn writes learned/<suite>.yml from main\'s verdicts; judge reads it', async () => {
  const runsDir = scratchDir('perfgate-main-runs-');
  const folders = mainRuns(120).map((results, k) => {
    const dir = path.join(runsDir, `run-${String(k).padStart(3, '0')}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'verdict.json'), JSON.stringify(core.judge(results, QUICK)));
    return dir;
  });
  const thresholds = thresholdsWith();
  const out = path.join(thresholds, 'learned', 'quick.yml');
  // Run folders or their verdict.json: the same.
  const r = await cli(['limits', 'learn', '--suite', 'quick', '--out', out, ...folders.slice(0, 60), ...folders.slice(60).map((d) => path.join(d, 'verdict.json'))]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^scan_range=100 rQPS: unstable: spread \d+\.\d% over 120 runs, not judged by rQPS$/m);
  assert.match(r.stdout, /^point-query rQPS: warn 0\.9\d, fail 0\.9\d \(spread \d\.\d\d% over 120 runs\)$/m);
  assert.match(r.stderr, /^perfgate limits learn: 120 runs of main on runner sim-2c; wrote .*learned\/quick\.yml$/m);
  const suite = core.findSuite(core.loadThresholds(thresholds), 'quick');
  assert.deepEqual(Object.keys(suite.learned.byName).sort(), ['point-query', 'scan_range=100', 'update-index_range=100']);
  assert.equal(suite.learned.byName['scan_range=100'].rqps.unstable, true);
  // perfgate judge and merge judge with it.
  const config = limitsConfig({ thresholds }, [{ plan: { suite: 'quick' } }]);
  assert.deepEqual(config.learned, suite.learned);
  assert.equal(limitsConfig({ thresholds, flat: { warn: 0.9, fail: 0.8 } }, [{ plan: { suite: 'quick' } }]).learned, undefined, '--warn/--fail replace every rQPS limit');
});

test('perfgate limits: bad input is exit 2 with one line naming it', async () => {
  const dir = scratchDir('perfgate-limits-bad-');
  const notVerdict = path.join(dir, 'verdict.json');
  fs.writeFileSync(notVerdict, '{"schema": "perfgate.results/v1"}');
  const out = path.join(dir, 'learned.yml');
  const cases = [
    [['limits'], "perfgate limits: no subcommand; expected perfgate limits learn (see perfgate limits --help)\n"],
    [['limits', 'teach'], "perfgate limits: unknown subcommand 'teach'; expected perfgate limits learn (see perfgate limits --help)\n"],
    [['limits', 'learn', '--suite', 'quick', dir], 'perfgate limits: --out is missing; expected --out <file>\n'],
    [['limits', 'learn', '--suite', 'quick', '--out', out], "perfgate limits: no verdicts given; expected the verdict.json files (or run folders) of main's runs, oldest first\n"],
    [['limits', 'learn', '--suite', 'nope', '--out', out, dir], null],
    [['limits', 'learn', '--suite', 'quick', '--out', out, dir], null],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(' '));
    if (message) assert.equal(r.stderr, message);
    else assert.match(r.stderr, /^perfgate limits: (--suite 'nope': no suites\/nope\.yml|verdict '.*verdict\.json': )/);
  }
  assert.equal(fs.existsSync(out), false, 'nothing written');
});
