'use strict';
/**
 * @perfgate/core — the decisions of perfgate, as pure functions of data. No process is
 * started and nothing is sent over a network here; the only files read are a thresholds
 * folder and a build recipe, once, at the edge (loadThresholds, loadRecipe). The one exception
 * is explicit: the writes to GitHub the action and the bot share (github-writes.js) go through
 * the Octokit client the caller passes in.
 *
 * The data flow, one function per arrow:
 *
 *   thresholds folder ──loadThresholds──▶ config ──resolvePlan──▶ plan.json (perfgate.plan/v1)
 *   results.json (perfgate.results/v1, from the harness) ──judge──▶ verdict.json (perfgate.verdict/v2)
 *   verdict ──renderReports──▶ comment.md · summary.md · report.html · results.csv · results.tsv
 *
 * and around them, what the compare loop decides between measurements:
 *
 *   nextStep(verdict, budget, spent)  → measure more rounds, confirm fails, or stop
 *   extensionPlan(plan, ids, rounds, firstRound), instructionExtensionPlan(plan, ids, windows),
 *   mergeResults(docs, {extension})
 *
 * Configuration
 *   loadThresholds(dir?)         thresholds folder → config {dir, catalogue, profiles, suites};
 *                                every problem is a ConfigError naming `file:line: key.path`
 *   findSuite(config, name)      one suite, or a ConfigError listing the suites there are
 *   narrowSuite(config, name, names)  the same config with that suite limited to some names
 *   limitsFor(suite, name)       the limits that apply to one microbenchmark
 *   parsePinCpus, pinFromSettings, splitCpus, planPinCpus, expandCpuList
 *                               CPU sets for server and load generator
 *   loadRecipe({...}), parseBuildConfig, parseDefine, resolveBuild, cmakeArgs, cacheKey, treeKey
 *                                build recipes (thresholds/build.yml + overrides) and cache keys
 * Plans and results
 *   resolvePlan(config, suite, overrides, sides, created), extensionPlan(...)
 *   parseShard('K/N'), shardPlan(benchmarks, n), shardOf(benchmarks, k, n): one runner's part of
 *                                a suite (overrides.shard); isPre(name), twinName(name): `.pre` names
 *   mergeResults(docs, {allowDifferentMachines, extension}), nextRoundIndex(results)
 * Decisions
 *   judge(results | [results], {limits} | suite, {allowDifferentMachines}) → verdict (VERDICT_SCHEMA)
 *   signalVerdict(item, signal), REGRESSION_SIGNALS: what one signal of a judged row decided
 *   signoffDecision({verdict | suites: [{suite, verdict, problem}], waivers, runFailed}) → the commit
 *   status perfgate/signoff (state, description); SIGNOFF_CONTEXT (the commit status),
 *   SIGNOFF_ARTIFACT (the report's artifact), signoffArtifact(suite) (a suite's merged run folder's),
 *   suiteWideNames(suite) (what a suite as a whole is waived by)
 *   stepBudget(suite budget, {rounds, windows}) → what the steps below may measure (docs/usage.md, "Budget")
 *   nextStep(verdict, stepBudget, spent), planIdsFor(ids, verdict, plan)
 *   parseExplainAsk(text, option), rowsToExplain(verdict, suite.explain, ask), unknownRows(ask, plan):
 *   the rows the explanation step looks at (explain-rows.js)
 *   judgeRow(record, suite) → one row; roundsNow(row, budget, spent) → 1: one more pair on its servers
 *   timeCouldChange(row, rounds, marginSe?) → whether that many more pairs could move its verdict
 *   threadScaling(benchmarks) → null | {threads, rows}: judged rows of one microbenchmark at several
 *                                client thread counts side by side, each side's QPS against threads
 * Chains (one base, several heads measured in the same interleaved rounds; see chain.js)
 *   chainSides(base, heads, key), headSide(k), headSides(sides), isChain(sides), MAX_HEADS
 *   judgeChain(results, suite) → perfgate.chain/v2 (each head judged by judge() on its view)
 *   chainStep(chain, budget, spent, plan): nextStep of every head, joined into one step
 *   chainTable(chain), renderChainReports(chain) → {'comment.md', 'summary.md', 'report.html',
 *   'chain.csv', 'chain.tsv'}: the posts' layout, one column per version
 *   phaseOf(event, stage), phaseClock(now), formatPhaseProfile(totals): where a run's time went
 *   calibrate([results], suite) → calibration (A/A noise of each signal, suggested limits per
 *                                microbenchmark); suggestedSuiteText(suite file, calibration, {date}),
 *                                suggestedLimitsText(calibration): those limits as a suite file
 *   noiseRows(results), conditionNoise({condition: [results]}) and their renderers: A/A noise tables
 *   seriesFromVerdicts(main's verdicts, {suite}) → {series, runner, runs}; learnLimits(series) →
 *                                limits learned from main's history per row and signal (or unstable);
 *                                learnedFileText(...) → learned/<suite>.yml; checkLearnedText(text, file, suite)
 *   statistics: pairedRatios, ratioInterval, binomialUpperBound, studentTQuantile, …
 *   diagnose(fingerprint), warnings(checks), describeMachine(fingerprint): runner checks
 *   build failures: BuildError, classifyCommandFailure, classifyIoFailure, describeFailure, …
 *   buildRecord(CMakeCache.txt text, CMakeCXXCompiler.cmake text) → {compiler, cmakeCache} of build.json
 * Watching main (regressions found on the main branch, filed once)
 *   watchDecisions({repo, base, head, verdict, open, recorded, confirmation, changePoints}) → actions,
 *   dedupeKey({repo, benchKey, signal, firstBad}); regressionIssue(...) → {title, body},
 *   sightingComment, recoveryComment
 * Bisection (the commit behind a regression: perfgate bisect)
 *   parseCommitLog(text), firstParentRange({good, bad, log}) → the commits to search
 *   startBisection(commits, {repeats}), nextCommit(state), recordDecision(state, i, decision, why),
 *   searchProgress(state): the search; shortCommit(sha): a commit as its words name it
 *   beginBisect(commits, {ids, repeats}), nextBisectStep(course), recordBisectStep(course, step,
 *   measured): the course (the ends, the search, the culprit): which step next, what it decides, when done
 *   regressionAtBadEnd(verdict, ids), decideStep(verdict, watched): what a measurement decides
 *   stepMeasurement({...}), configForStep(config, suite, ids, {windows}): what a step measures
 *   summarizeMeasurement(verdict), describeCulprit(state, {...}): bisect.json's figures (the
 *   culprit's rows with their causes); formatBisectProgress(event), renderBisect(doc): its words
 *   renderBisectComment(doc, {intro, final}), bisectStepLine(doc, step), bisectRangeLeft(doc):
 *   a bisection as a pull request comment (the bot's /perf bisect)
 * Rendering
 *   renderReports(verdict, {reportLink, thresholdsFrom}) → {'comment.md', 'summary.md', 'report.html', 'results.csv', 'results.tsv'}
 *   renderComment, renderSummary, renderReasons, renderReport, renderVerdictTable, renderTerminal, renderCsv, renderTsv,
 *   renderCalibration, commentMarker(suite), GITHUB_COMMENT_LIMIT
 *   renderSignoff(verdict | [{suite, verdict, problem}], {candidate, previous, waivers, runUrl}) → {decision, files: {'signoff.md', 'signoff.html'}}
 *   checkRunOutput(verdict, {reportLink, thresholdsFrom, failOn}) → {conclusion, output},
 *   conclusionOf(word, failOn), jobFails(word, failOn), FAIL_ON: which verdicts block (blocking.js),
 *   jobSummary(verdict, {...}): what GitHub is told about a verdict
 *   markdownText(s), markdownCode(s, {table}), markdownFence(lines): the only way text from a run
 *   folder (or any untrusted text) enters markdown: shown as its characters, nothing live
 *   GITHUB_LIMITS, fitCharacters, fitBytes, fitComment, fitCheckRunOutput: GitHub's size limits
 *   (comment 65,536; check run summary and text 65,535; 50 annotations per request; job summary
 *   1 MiB) and the one way a text is cut to them, with a note
 *   stickyComments(comments, {marker, author}) → {kept, duplicates}: which comment is the sticky one
 * Writing to GitHub (the action and the bot; through the caller's Octokit, bodies fitted first)
 *   upsertStickyComment(octokit, {owner, repo, number}, {marker, author, body, note}) → {id, url, action}
 *   createCheckRun(octokit, {owner, repo}, fields), updateCheckRun(octokit, {owner, repo}, id, fields)
 *   formatHarnessProgress, formatBuildProgress, formatDuration, parseNinjaStatus, progressThrottle,
 *   formatCount (43.1k, 6.38M)
 * Run folders from a runner (hostile until checked; the action's report and signoff jobs, the bot)
 *   runFolderListing({maxBytes, documents, count}) → {add(entry), document(path, bytes), …}: the
 *   rules of names, sizes and documents as the entries are listed; entryPath(name)
 *   checkRunFolder({documents}, {name, suite, prNumber, baseSha, headSha, options, by}) → {actionRun,
 *   results, verdict, plan} or RunFolderRejected; isRunArtifact(name, suite), RUN_FOLDER_DOCUMENTS
 *   checkRunName(suite, options), optionWords(options): the check run a suite's run completes
 * Why it got slower (docs/explain.md)
 *   readExplain(bytes, {entries, rowIds, maxBytes}) → perfgate.explain/v1 or RunFolderRejected;
 *   explainProblem(doc, {entries, rowIds}) → null | one line; EXPLAIN_FILE
 *   withCauses(verdict, explainDoc, {results}) → the verdict with benchmarks[].cause (nothing else changed)
 * Schemas (schema/*.schema.json)
 *   schemaProblem(kind, doc) → null | one line; assertValid(kind, doc); fragmentProblems(kind, def, value)
 *   readVerdict(doc) → {verdict: perfgate.verdict/v2} | {problem}: a verdict of any version, checked
 *   against its own schema, as v2; outcomeWord(word): a verdict word of any version as v2 says it
 * Errors and exit codes
 *   EXIT {ok, fail, usage, undecided, error}, UsageError, ConfigError
 */
const { EXIT, UsageError, ConfigError } = require('./errors');
const { schemaProblem, assertValid, fragmentProblems, SCHEMA_KINDS } = require('./schemas');
const { readVerdict, outcomeWord } = require('./verdict-versions');
const { loadThresholds, findSuite, narrowSuite, limitsFor, checkLearnedText, SHIPPED_DIR } = require('./config/thresholds');
const { learnLimits, learnSignal, seriesFromVerdicts, learnedFileText, learnedSignalWord, LEARN, LEARNED_SIGNALS } = require('./learned-limits');
const recipe = require('./config/build-recipe');
const { parsePinCpus, pinFromSettings, splitCpus, planPinCpus, expandCpuList } = require('./pin-cpus');
const { resolvePlan, extensionPlan, instructionExtensionPlan, suiteRowIds, OVERRIDE_KEYS } = require('./plan');
const { mergeResults, nextRoundIndex } = require('./merge-results');
const { parseShard, shardPlan, shardOf, isPre, twinName } = require('./shards');
const { judge, judgeRow, PRECEDENCE, EXIT_OF, CONFIDENCE, VERDICT_SCHEMA } = require('./verdict');
const { nextStep, roundsNow, planIdsFor, timeCouldChange, stepBudget, PROJECTION_MARGIN_SE } = require('./next-step');
const { parseExplainAsk, rowsToExplain, unknownRows, EXPLAIN_FORM } = require('./explain-rows');
const { SIDE_SCHEDULES, sideScheduleWords } = require('./side-schedules');
const chain = require('./chain');
const { phaseOf, phaseClock, formatPhaseProfile } = require('./phase-profile');
const { threadScaling } = require('./thread-scaling');
const { calibrate, renderCalibration, suggestedSuiteText, suggestedLimitsText } = require('./calibration');
const { noiseRows, renderNoiseTable, conditionNoise, renderConditionNoise } = require('./aa-noise');
const statistics = require('./statistics');
const { diagnose, warnings, describeMachine } = require('./runner-checks');
const buildFailure = require('./build-failure');
const { buildRecord } = require('./cmake-cache');
const render = require('./render');
const { stickyComments } = require('./sticky-comment');
const githubWrites = require('./github-writes');
const untrustedRunFolder = require('./untrusted-run-folder');
const progress = require('./progress');
const { count: formatCount } = require('./render/format');
const bisect = require('./bisect');
const bisectCourse = require('./bisect-course');
const bisectComment = require('./render/bisect-comment');
const bisectText = require('./render/bisect-text');
const watch = require('./watch');
const { signalVerdict, signalFigure, decidingInstructions, REGRESSION_SIGNALS } = require('./signals');
const signoff = require('./signoff');
const blocking = require('./blocking');
const regressionIssue = require('./render/regression-issue');
const { withCauses } = require('./explain/cause');
const { readExplain, explainProblem, EXPLAIN_FILE } = require('./explain/untrusted-explain');

module.exports = {
  EXIT, UsageError, ConfigError,
  schemaProblem, assertValid, fragmentProblems, SCHEMA_KINDS, readVerdict, outcomeWord,
  loadThresholds, findSuite, narrowSuite, limitsFor, SHIPPED_THRESHOLDS_DIR: SHIPPED_DIR,
  checkLearnedText, learnLimits, learnSignal, seriesFromVerdicts, learnedFileText, learnedSignalWord, LEARN, LEARNED_SIGNALS,
  loadRecipe: recipe.loadRecipe, parseBuildConfig: recipe.parseBuildConfig, parseDefine: recipe.parseDefine,
  resolveBuild: recipe.resolveBuild, cmakeArgs: recipe.cmakeArgs, cacheKey: recipe.cacheKey, treeKey: recipe.treeKey,
  FLAVORS: recipe.FLAVORS,
  parsePinCpus, pinFromSettings, splitCpus, planPinCpus, expandCpuList,
  resolvePlan, extensionPlan, instructionExtensionPlan, suiteRowIds, OVERRIDE_KEYS,
  mergeResults, nextRoundIndex,
  parseShard, shardPlan, shardOf, isPre, twinName,
  judge, judgeRow, VERDICT_PRECEDENCE: PRECEDENCE, EXIT_OF, CONFIDENCE, VERDICT_SCHEMA,
  parseExplainAsk, rowsToExplain, unknownRows, EXPLAIN_FORM,
  nextStep, roundsNow, planIdsFor, timeCouldChange, stepBudget, PROJECTION_MARGIN_SE, SIDE_SCHEDULES, sideScheduleWords, phaseOf, phaseClock, formatPhaseProfile,
  threadScaling,
  MAX_HEADS: chain.MAX_HEADS, headSide: chain.headSide, chainSides: chain.chainSides, headSides: chain.headSides, isChain: chain.isChain,
  judgeChain: chain.judgeChain, chainStep: chain.chainStep,
  calibrate, renderCalibration, suggestedSuiteText, suggestedLimitsText, noiseRows, renderNoiseTable, conditionNoise, renderConditionNoise,
  statistics,
  diagnose, warnings, describeMachine,
  ...buildFailure,
  buildRecord,
  ...render,
  stickyComments,
  ...githubWrites,
  ...untrustedRunFolder,
  ...progress,
  formatCount,
  BISECT_SCHEMA: bisect.BISECT_SCHEMA, DEFAULT_BISECT_REPEATS: bisect.DEFAULT_REPEATS,
  parseCommitLog: bisect.parseCommitLog, firstParentRange: bisect.firstParentRange,
  startBisection: bisect.startBisection, nextCommit: bisect.nextCommit, recordDecision: bisect.recordDecision,
  searchProgress: bisect.searchProgress, shortCommit: bisect.shortCommit,
  beginBisect: bisectCourse.beginBisect, nextBisectStep: bisectCourse.nextBisectStep, recordBisectStep: bisectCourse.recordBisectStep,
  regressionAtBadEnd: bisect.regressionAtBadEnd, decideStep: bisect.decideStep,
  stepMeasurement: bisect.stepMeasurement, configForStep: bisect.configForStep,
  summarizeMeasurement: bisect.summarizeMeasurement, describeCulprit: bisect.describeCulprit,
  formatBisectProgress: bisectText.formatBisectProgress, renderBisect: bisectText.renderBisect,
  renderBisectComment: bisectComment.renderBisectComment, bisectStepLine: bisectComment.bisectStepLine, bisectRangeLeft: bisectComment.bisectRangeLeft,
  ...watch,
  signalVerdict, signalFigure, decidingInstructions, REGRESSION_SIGNALS,
  ...regressionIssue,
  withCauses, readExplain, explainProblem, EXPLAIN_FILE,
  jobFails: blocking.jobFails, conclusionOf: blocking.conclusionOf, FAIL_ON: blocking.FAIL_ON,
  signoffDecision: signoff.signoffDecision, SIGNOFF_CONTEXT: signoff.SIGNOFF_CONTEXT,
  SIGNOFF_ARTIFACT: signoff.SIGNOFF_ARTIFACT, STATUS_DESCRIPTION_LIMIT: signoff.STATUS_DESCRIPTION_LIMIT,
  signoffArtifact: signoff.signoffArtifact, suiteWideNames: signoff.suiteWideNames,
};
