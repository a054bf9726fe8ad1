// job: signoff. Runs after the measure jobs of a release sign-off (no pull request): downloads
// their run folders, merges and judges the shards, writes the sign-off report (signoff.md,
// signoff.html) into the merged folder and the job summary, and uploads that folder as
// perfgate-signoff, which the perfgate bot takes to set the commit status with its waivers.
// Only for a pushed release tag (no bot, no waivers) does this job set perfgate/signoff
// itself (commit-status: true).
import fs from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
import perfgate from 'perfgate';
import { uploadRunFolder } from './artifacts.js';
import { runUrl } from './gate.js';
import { createCommitStatus } from './github.js';
import { judgedRunFolders } from './report.js';

/**
 * Why the run folders do not belong to this sign-off, or null: every shard measured the pinned
 * candidate (head) against the pinned previous release (base). Pure.
 */
export function releaseMismatch(run, { candidate, previous }) {
  for (const [key, side, role] of [['head_sha', candidate, 'candidate'], ['base_sha', previous, 'previous release']]) {
    if (run[key] !== side.sha) return `the run folders measured ${key} ${run[key]}, but the ${role} ${side.ref} is ${side.sha}`;
  }
  return null;
}

// A sign-off decision as the verdict word fail-on judges: failure fails, error fails always.
const VERDICT_OF_DECISION = { success: 'pass', failure: 'fail', error: 'error' };

export async function signoff(settings, octokit, env) {
  const { candidate, previous } = settings.release;
  let problem;
  let judged;
  try {
    ({ judged, problem } = await judgedRunFolders(settings, { into: path.join(settings.workDir, 'downloads'), noFolders: 'the measure jobs left no run folder' }));
    problem ||= releaseMismatch(judged.run, settings.release);
  } catch (error) {
    problem = `the run folders could not be downloaded (${error.message})`;
  }
  const url = runUrl(settings);
  const verdict = problem ? null : judged.verdict;
  const { decision, files } = perfgateCore.renderSignoff(verdict, { candidate, previous, waivers: [], runUrl: url, runFailed: problem });
  const reportDir = problem ? path.join(settings.workDir, perfgateCore.SIGNOFF_ARTIFACT) : judged.dir;
  fs.mkdirSync(reportDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) perfgate.writeText(path.join(reportDir, name), text);
  core.info(`perfgate signoff: ${decision.state}: ${decision.description}`);
  // Only a judged folder is uploaded: the bot takes it as the sign-off's result.
  if (!problem) await uploadRunFolder({ name: perfgateCore.SIGNOFF_ARTIFACT, dir: reportDir, env });
  if (settings.commitStatus) {
    await createCommitStatus(octokit, settings.repository, candidate.sha, {
      state: decision.state,
      context: perfgateCore.SIGNOFF_CONTEXT,
      description: decision.description.slice(0, perfgateCore.STATUS_DESCRIPTION_LIMIT),
      target_url: url,
    });
  }
  const summary = perfgateCore.fitBytes(files['signoff.md'], perfgateCore.JOB_SUMMARY_LIMIT_BYTES, 'the report is cut here; signoff.md in the perfgate-signoff artifact holds all of it');
  await core.summary.addRaw(summary, true).write();
  return { verdict: VERDICT_OF_DECISION[decision.state], decision: decision.state, 'report-dir': reportDir };
}
