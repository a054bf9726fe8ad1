'use strict';
// @perfgate/bot: the parts of perfgate's GitHub App that need no GitHub.
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
//   complete(store, jobId, {workerId?}), fail(store, jobId, error, retryAt, {workerId?}), getJob
// Every store function takes the store first; none keeps state of its own.
const commands = require('./commands');
const store = require('./store');

module.exports = { ...commands, ...store };
