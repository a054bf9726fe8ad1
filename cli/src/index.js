'use strict';
/**
 * perfgate (the command line and its orchestration) as a library, for the GitHub Action and
 * the bot: everything here starts processes or touches files; every decision it takes comes
 * from @perfgate/core.
 *
 *   main(argv, io)                       the `perfgate` command itself (io: {stdout, stderr, env, signals})
 *   runnerSettings(env)                  env with the runner's settings (/etc/perfgate/runner.env) under it
 *   runComparison({...})                 one comparison: plan, harness, judge, extra and confirmation rounds
 *   sidesFromSource({settings, config, io, env})  build --base/--head refs of a fork before comparing
 *   runBisection({source, good, bad, tests, config, suiteName, overrides, outDir, io, env, onProgress})
 *                                        find the commit behind a regression (perfgate bisect): bisect.json
 *                                        and one run folder per step; onProgress(event, doc) after each step
 *   buildCommit({source, ref, recipe, cacheDir, ...}), cacheDirFrom(env)
 *   runHarness({...}), machineFingerprint({env})   the Python harness
 *   mergeShardFolders({folders, out, thresholds, allowPartial, allowDifferentMachines, reportLink})
 *                                        shards of one comparison into one judged run folder
 *   writeDocument(file, kind, data), readDocument(file, kind), writeText(file, text),
 *   writeReports(dir, verdict, {reportLink})       the one writer (schema-checked, atomic)
 *   startProcess, runProcess, runProcessSync, childEnvironment   the one way to start a process
 *   sandboxFor({untrusted, env})         whether builds, servers and sysbench run in the sandbox
 *   cancel(signal), cancelOnSignals(), cancellation(), Cancelled, EXIT_ON_SIGNAL
 *   parseCommandLine(command, argv, options), MEASURE_OPTIONS, measureOverrides(values, env)
 *                                        the option parsing every perfgate command uses
 */
const { main, COMMANDS } = require('./main');
const { runnerSettings } = require('./runner-settings');
const { runComparison } = require('./compare-loop');
const { runBisection } = require('./bisect');
const { sidesFromSource } = require('./source-build/build-sides');
const { buildCommit, cacheDirFrom } = require('./source-build/build-commit');
const { runHarness, machineFingerprint } = require('./harness-process');
const ownFiles = require('./own-files');
const processes = require('./processes');
const { checkBasedir } = require('./basedir');
const { parseCommandLine } = require('./command-line');
const { MEASURE_OPTIONS, measureOverrides } = require('./measure-options');
const { mergeShardFolders } = require('./commands/merge');

module.exports = {
  main, COMMANDS, runnerSettings,
  runComparison, runBisection, sidesFromSource, buildCommit, cacheDirFrom, mergeShardFolders,
  runHarness, machineFingerprint, checkBasedir, parseCommandLine, MEASURE_OPTIONS, measureOverrides,
  ...ownFiles,
  ...processes,
};
