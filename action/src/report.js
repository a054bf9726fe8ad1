// job: report. Runs after the measure job(s) with the write token: downloads the run folders of
// this workflow run, merges and judges shards, and delivers once: the check run completed, the
// sticky comment, the job summary.
import fs from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
import perfgate from 'perfgate';
import { artifactUrl, downloadRunFolders, readRunFolderFiles } from './artifacts.js';
import { describeThresholdsOrigin, thresholdsDigest } from './base-thresholds.js';
import { checkRunOutput, jobSummary, noVerdictReport } from './delivery.js';
import { checkRunName, runUrl } from './gate.js';
import { runName } from './settings.js';

// Who expects what of a run folder, in the words of a rejection: this job's inputs.
const BY_INPUTS = Object.freeze({
  pullRequest: (n) => `input pull-request is ${n === null ? 'empty' : n}`,
  commit: (sha) => `input head-sha is ${sha}`,
  suite: (s) => `input suite is ${s}`,
  options: (words) => `input options is ${words ? `'${words}'` : 'empty'}`,
});

/** One downloaded run folder read and checked against this job's inputs (core's reader, the bot's too). */
function checkedFolder(folder, settings, options) {
  let read;
  try {
    read = readRunFolderFiles(folder.dir);
  } catch (error) {
    if (error.name === 'RunFolderRejected') throw new perfgateCore.RunFolderRejected(`${folder.name}: ${error.message}`);
    throw error;
  }
  return perfgateCore.checkRunFolder(read, {
    name: folder.name, suite: settings.suite, options, prNumber: settings.pullRequest, headSha: settings.headSha ?? undefined, by: BY_INPUTS,
  });
}

/**
 * Why the limits in `dir` may not judge merged shards, or null. They came in an artifact from a
 * runner where the head's code ran, so they are used only when they are the limits the measure
 * job read before anything was built: those whose digest it gave as its output (`expected`,
 * this job's input thresholds-digest), which no sandboxed step can write.
 */
function untrustedLimits(dir, expected, name) {
  if (!expected) return "input thresholds-digest is empty; expected the measure job's output thresholds-digest, the digest of the limits it read before anything was built, without which shards are not merged";
  let actual;
  try {
    actual = thresholdsDigest(dir);
  } catch (error) {
    return `the limits the shards were measured with cannot be read (${name}: ${error.code || error.message})`;
  }
  if (actual === expected) return null;
  return `${name} holds other limits (digest ${actual}) than the measure job read before anything was built (input thresholds-digest ${expected}): its run folder was changed after they were read`;
}

/**
 * The verdict of this workflow run from its run folders.
 * @param options  the options the run folders must have been measured with (the check run's
 *                 name says them), or undefined: not compared
 * @returns {verdict, run, dir} or {problem, run: null}
 */
export function verdictOf(folders, { settings, into, options }) {
  let runs;
  try {
    runs = folders.map((folder) => ({ folder, ...checkedFolder(folder, settings, options) }));
  } catch (error) {
    if (error.name !== 'RunFolderRejected') throw error;
    return { problem: error.message, run: null };
  }
  const first = runs[0].actionRun;
  for (const { folder, actionRun: run } of runs) {
    for (const key of ['base_sha', 'head_sha']) {
      if (run[key] !== first[key]) return { problem: `the run folders disagree: ${folder.name} has ${key} ${run[key]}, ${folders[0].name} has ${key} ${first[key]}`, run: null };
    }
    if ((run.thresholds && run.thresholds.commit) !== (first.thresholds && first.thresholds.commit)) {
      return { problem: `the run folders read their limits from different commits (${folder.name}, ${folders[0].name})`, run: null };
    }
  }
  const expected = first.shard ? first.shard.count : 1;
  if (runs.length !== expected) {
    const have = new Set(runs.map(({ actionRun }) => actionRun.shard && actionRun.shard.index));
    const missing = Array.from({ length: expected }, (_, i) => i + 1).filter((i) => !have.has(i));
    return { problem: `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${expected} left no run folder`, run: null };
  }
  if (runs.length === 1) return { verdict: runs[0].verdict, run: first, dir: folders[0].dir };
  // Shards: merged and judged as `perfgate merge` does, with the limits the shards measured
  // with. The shards ran on different runners; each microbenchmark's pairs were measured on one
  // machine, so runners of a pool may differ.
  const limits = first.thresholds ? path.join(folders[0].dir, 'thresholds') : perfgateCore.SHIPPED_THRESHOLDS_DIR;
  const untrusted = untrustedLimits(limits, settings.thresholdsDigest, first.thresholds ? `${folders[0].name}/thresholds/` : "perfgate's shipped thresholds/");
  if (untrusted) return { problem: untrusted, run: null };
  const dir = path.join(into, `${runName({ ...settings, shard: null })}-merged`);
  const { verdict } = perfgate.mergeShardFolders({
    folders: folders.map((folder) => folder.dir),
    out: dir,
    thresholds: limits,
    allowDifferentMachines: true,
    thresholdsFrom: describeThresholdsOrigin(first.thresholds),
  });
  return { verdict, run: first, dir };
}

/**
 * This workflow run's run folders, downloaded into `into` (emptied first) and judged together.
 * @param noFolders  the problem when the measure jobs uploaded none
 * @param options    as verdictOf takes them
 * @returns {folders, judged: verdictOf's answer or null, problem: why there is no verdict, or null}
 */
export async function judgedRunFolders(settings, { into, noFolders, options }) {
  fs.rmSync(into, { recursive: true, force: true });
  let folders;
  try {
    folders = await downloadRunFolders({ suite: settings.suite, into, token: settings.token, repository: settings.repository, runId: settings.runId, serverUrl: settings.serverUrl });
  } catch (error) {
    const problem = error.name === 'ArtifactServiceError' ? error.message : `the run folders could not be downloaded (${error.message})`;
    return { folders: [], judged: null, problem };
  }
  if (!folders.length) return { folders, judged: null, problem: noFolders };
  const judged = verdictOf(folders, { settings, into, options });
  return { folders, judged, problem: judged.problem || null };
}

async function completeCheckRun(octokit, settings, headSha, fields) {
  // Named again on completion, from the options the run folders were checked against: whatever
  // name the gate gave it, a narrowed run never completes the suite's own check.
  const completed = { name: checkRunName(settings), status: 'completed', completed_at: new Date().toISOString(), details_url: runUrl(settings), ...fields };
  const note = "Cut to fit GitHub's check run size; the run's artifacts hold all of it.";
  if (settings.checkRunId) return perfgateCore.updateCheckRun(octokit, settings.repository, settings.checkRunId, completed, { note });
  return perfgateCore.createCheckRun(octokit, settings.repository, { head_sha: headSha, ...completed }, { note });
}

export async function report(settings, octokit) {
  const { measureResult } = settings;
  const marker = perfgateCore.commentMarker(settings.suite);
  const headSha = settings.headSha;
  if (measureResult === 'cancelled') {
    // A newer push cancelled this run; its own run reports. The comment is left as it is.
    const run = await completeCheckRun(octokit, settings, headSha, { conclusion: 'cancelled', output: { title: `perfgate ${settings.suite}: cancelled`, summary: 'The measurement was cancelled (a newer push, or by hand).' } });
    return { verdict: 'cancelled', 'check-run-id': String(run.id) };
  }
  const into = path.join(settings.workDir, 'downloads');
  const { folders, judged, problem } = await judgedRunFolders(settings, {
    into, noFolders: `the measure job ${measureResult ? `ended (${measureResult}) ` : ''}without a run folder`, options: settings.options,
  });

  let comment;
  let summary;
  let check;
  let verdictWord;
  let reportDir = into;
  if (problem) {
    ({ comment, summary, check } = noVerdictReport({ marker, suite: settings.suite, headSha, why: problem }));
    verdictWord = 'error';
  } else {
    const { verdict, run, dir } = judged;
    reportDir = dir;
    const reportLink = folders.length === 1 ? artifactUrl(settings, folders[0].id) : `the artifacts of ${runUrl(settings)}`;
    const thresholdsFrom = describeThresholdsOrigin(run.thresholds);
    comment = perfgateCore.renderComment(verdict, { reportLink, thresholdsFrom });
    summary = jobSummary(verdict, { reportLink, thresholdsFrom });
    check = checkRunOutput(verdict, { reportLink, thresholdsFrom, failOn: settings.failOn });
    verdictWord = verdict.verdict;
  }
  const run = await completeCheckRun(octokit, settings, headSha, check);
  let commentUrl = '';
  if (settings.comment === 'sticky') {
    const sticky = await perfgateCore.upsertStickyComment(octokit, { ...settings.repository, number: settings.pullRequest }, { marker, author: settings.commentAuthor, body: comment });
    core.info(`perfgate report: comment ${sticky.action}: ${sticky.url}`);
    commentUrl = sticky.url;
  }
  await core.summary.addRaw(summary, true).write();
  return { verdict: verdictWord, 'report-dir': reportDir, 'comment-url': commentUrl, 'check-run-id': String(run.id) };
}
