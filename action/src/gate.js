// job: gate. Runs before anything is checked out: decides whether this pull request's code may
// be built on the self-hosted runner, then starts the check run (allowed) or says in the check
// run and the sticky comment how a maintainer approves it (refused).
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
import { admission } from './pull-request.js';
import { refusalComment } from './trust.js';

export function runUrl(settings) {
  return `${settings.serverUrl}/${settings.repository.fullName}/actions/runs/${settings.runId}`;
}

export function checkRunName(settings) {
  return perfgateCore.checkRunName(settings.suite, settings.options);
}

export async function gate(settings, octokit) {
  const { headSha, baseRef, decision } = await admission(octokit, settings);
  core.info(`perfgate gate: ${decision.allowed ? 'allowed' : 'refused'} (${decision.reason}): ${decision.why}`);
  const marker = perfgateCore.commentMarker(settings.suite);
  const outputs = { allowed: String(decision.allowed), 'base-sha': baseRef || '', 'head-sha': headSha || '' };
  if (decision.allowed) {
    const run = await perfgateCore.createCheckRun(octokit, settings.repository, {
      name: checkRunName(settings),
      head_sha: headSha,
      status: 'in_progress',
      started_at: new Date().toISOString(),
      details_url: runUrl(settings),
      output: { title: `perfgate ${settings.suite}: measuring`, summary: `Measuring head \`${headSha}\` against base \`${baseRef}\` (${decision.why}).` },
    });
    return { ...outputs, 'check-run-id': String(run.id), verdict: '' };
  }
  const body = refusalComment({ marker, suite: settings.suite, decision, headSha });
  const run = await perfgateCore.createCheckRun(octokit, settings.repository, {
    name: checkRunName(settings),
    head_sha: headSha,
    conclusion: 'action_required',
    completed_at: new Date().toISOString(),
    details_url: runUrl(settings),
    output: { title: `perfgate ${settings.suite}: waiting for a maintainer`, summary: body.slice(body.indexOf('\n') + 1) },
  });
  let commentUrl = '';
  if (settings.comment === 'sticky') {
    const comment = await perfgateCore.upsertStickyComment(octokit, { ...settings.repository, number: settings.pullRequest }, { marker, author: settings.commentAuthor, body });
    commentUrl = comment.url;
  }
  await core.summary.addRaw(body.slice(body.indexOf('\n') + 1), true).write();
  return { ...outputs, 'check-run-id': String(run.id), 'comment-url': commentUrl, verdict: 'refused' };
}
