'use strict';
// @perfgate/bot: perfgate's GitHub App.
//
// Commands (pure):
//   parseCommand(commentBody, {benchmarks}) -> {command} | {error} | null
//     One /perf command per comment, at the start of a line outside code, quotes and lists.
//     command = {name, needsWrite, args, line}; error = one line to answer in the pull request.
//   helpText() -> the /perf help reply (Markdown), from the same table as the parser.
//   COMMANDS, LIMITS, usage(command): that table.
//
// History and job queue (SQLite file or mysql://user:pass@host:port/db, see store/connection.js):
//   openStore(target, {clock?}) -> store          migrates to the latest schema; store.close()
//   schemaVersion(store) -> applied migration names
//   recordDelivery(store, {deliveryId, event, action?}) -> {id, duplicate}
//   recordRequest(store, {commentId, repo, prNumber, author, command, headSha, deliveryId})
//     -> {id, duplicate}
//   storeRun(store, {request, results, verdict}) -> {runId, duplicate}
//   recordMainline(store, {repo, commits, firstSeq})   main-branch order of commits
//   mainSeries / verdictSeries(store, {repo, microbenchmark, signal, machine?, threads?, ahi?})
//   recordWaiver(store, {...}), waiversFor(store, {repo, prNumber})
//   enqueue(store, job, uniqueKey), claim(store, workerId, leaseSeconds),
//   complete(store, jobId, {workerId?}), fail(store, jobId, error, retryAt, {workerId?}), getJob,
//   keep(store, jobId) (a job too early, never claimed), requeue(store, uniqueKey, {attempts}),
//   keptJobs, jobByKey, hurryRetries (GitHub answers again); writeHeartbeat (GET /healthz)
//   Command requests (requests.js): getRequest, requestForComment, requestForRun,
//   transition(store, id, to, {by, ...fields}) along REQUEST_LIFECYCLE, updateRequest(store,
//   id, changes) for other fields, cancelRequests({..., by}), requestsAwaitingRun,
//   requestsIn, requestsOfPull, latestRequest, inTransaction(store, work); extendLease, queueDepth
// Every store function takes the store first; none keeps state of its own.
//
// The GitHub App (src/app/, needs GitHub):
//   readBotConfig({file, env, port}) -> config      a YAML file and the environment, checked
//   startBot(config) -> {url, port, store, worker, close()}
//     POST /api/github/webhooks, GET /healthz; the jobs run from the durable queue
//   contract: the workflow_dispatch inputs, run-name and artifact name perf-command.yml follows
//   bisectContract: the same for /perf bisect and perf-bisect.yml (inputs, run-name, artifacts)
//   Bisections (store/bisections.js): openBisection, getBisection, advanceProgress, finishBisection
//   Pull request heads (store/pull-heads.js): recordPullHead, pullHeads: what a /perf approves
const commands = require('./commands');
const store = require('./store');

// The App is loaded when first used, so that the grammar and the store need no Octokit.
module.exports = {
  ...commands,
  ...store,
  get startBot() { return require('./app').startBot; },
  get readBotConfig() { return require('./app').readBotConfig; },
  get describeBotConfig() { return require('./app').describeBotConfig; },
  get contract() { return require('./app').contract; },
  get bisectContract() { return require('./app/bisect-contract'); },
  get WEBHOOK_PATH() { return require('./app').WEBHOOK_PATH; },
};
