// job: signoff. Runs after the measure jobs of a release sign-off (no pull request): for each
// of its suites, downloads their run folders, merges and judges the shards and uploads the
// judged folder as perfgate-signoff-<suite>, which the perfgate bot takes to set the commit
// status with its waivers; writes the sign-off report of all suites (signoff.md, signoff.html)
// as the job summary and the artifact perfgate-signoff.
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

// One suite's run folders of this workflow run, merged and judged: {suite, verdict, problem, dir}.
async function judgedSuite(settings, suite) {
  let problem;
  let judged;
  try {
    ({ judged, problem } = await judgedRunFolders({ ...settings, suite }, {
      into: path.join(settings.workDir, 'downloads', suite), noFolders: `the measure jobs left no run folder of the ${suite} suite`,
    }));
    problem ||= releaseMismatch(judged.run, settings.release);
  } catch (error) {
    problem = `the run folders could not be downloaded (${error.message})`;
  }
  return problem ? { suite, verdict: null, problem, dir: null } : { suite, verdict: judged.verdict, problem: null, dir: judged.dir };
}

export async function signoff(settings, octokit, env) {
  const { candidate, previous } = settings.release;
  const parts = [];
  for (const suite of settings.suites) parts.push(await judgedSuite(settings, suite));
  const url = runUrl(settings);
  const { decision, files } = perfgateCore.renderSignoff(parts, { candidate, previous, waivers: [], runUrl: url });
  // Each suite's judged folder is what the bot decides from; the report has an artifact of its own.
  for (const part of parts) {
    if (part.dir) await uploadRunFolder({ name: perfgateCore.signoffArtifact(part.suite), dir: part.dir, env });
  }
  const reportDir = path.join(settings.workDir, perfgateCore.SIGNOFF_ARTIFACT);
  fs.rmSync(reportDir, { recursive: true, force: true });
  fs.mkdirSync(reportDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) perfgate.writeText(path.join(reportDir, name), text);
  core.info(`perfgate signoff: ${decision.state}: ${decision.description}`);
  await uploadRunFolder({ name: perfgateCore.SIGNOFF_ARTIFACT, dir: reportDir, env });
  if (settings.commitStatus) {
    await createCommitStatus(octokit, settings.repository, candidate.sha, {
      state: decision.state,
      context: perfgateCore.SIGNOFF_CONTEXT,
      description: decision.description.slice(0, perfgateCore.STATUS_DESCRIPTION_LIMIT),
      target_url: url,
    });
  }
  const summary = perfgateCore.fitBytes(files['signoff.md'], perfgateCore.JOB_SUMMARY_LIMIT_BYTES, `the report is cut here; signoff.md in the ${perfgateCore.SIGNOFF_ARTIFACT} artifact holds all of it`);
  await core.summary.addRaw(summary, true).write();
  return { verdict: VERDICT_OF_DECISION[decision.state], decision: decision.state, 'report-dir': reportDir };
}
