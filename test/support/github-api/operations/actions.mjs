// GitHub Actions: workflow dispatch, workflow runs, a run's artifacts.
import * as shape from '../objects.mjs';
import { findRepo, HttpError, noContent, notFound, ok, paginate } from './common.mjs';

// GitHub's limit of 25 inputs per workflow_dispatch is in its description: request
// validation refuses more.

export const operations = {
  'actions/create-workflow-dispatch': (call) => {
    const repo = findRepo(call, { write: true });
    const workflow = call.state.workflow(repo, call.params.workflow_id);
    if (!workflow) throw notFound();
    const inputs = call.body.inputs || {};
    const dispatch = {
      repository: repo.fullName,
      workflow: workflow.file,
      workflowId: workflow.id,
      ref: call.body.ref,
      inputs,
      actor: call.identity.user.login,
    };
    call.state.dispatches.push(dispatch);
    if (!call.state.dispatchStartsRun) return noContent();
    const run = call.state.addWorkflowRun({
      repository: repo.fullName,
      workflow: workflow.file,
      event: 'workflow_dispatch',
      headBranch: call.body.ref.replace(/^refs\/heads\//, ''),
      actor: call.identity.user.login,
      inputs,
    });
    dispatch.runId = run.id;
    if (!call.body.return_run_details) return noContent();
    return ok({
      workflow_run_id: run.id,
      run_url: `${call.urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`,
      html_url: `${call.urls.html}/${repo.fullName}/actions/runs/${run.id}`,
    });
  },

  'actions/get-workflow-run': (call) => {
    const repo = findRepo(call);
    const run = repo.runs.get(Number(call.params.run_id));
    if (!run) throw notFound();
    return ok(shape.workflowRun(call.urls, repo, run));
  },

  // GitHub answers 202 and the run ends `cancelled` soon after; the double cancels it at once.
  'actions/cancel-workflow-run': (call) => {
    const repo = findRepo(call, { write: true });
    const run = repo.runs.get(Number(call.params.run_id));
    if (!run) throw notFound();
    if (run.status === 'completed') throw new HttpError(409, 'Cannot cancel a workflow run that is completed.');
    call.state.updateWorkflowRun(repo.fullName, run.id, { status: 'completed', conclusion: 'cancelled' });
    return { status: 202, body: {} };
  },

  'actions/list-workflow-runs-for-repo': (call) => {
    const repo = findRepo(call);
    const filters = {
      actor: (run) => run.actor.login === call.query.actor,
      branch: (run) => run.headBranch === call.query.branch,
      event: (run) => run.event === call.query.event,
      status: (run) => run.status === call.query.status || run.conclusion === call.query.status,
      head_sha: (run) => run.headSha === call.query.head_sha,
    };
    let runs = [...repo.runs.values()];
    for (const [name, keep] of Object.entries(filters)) if (call.query[name] !== undefined) runs = runs.filter(keep);
    runs.sort((a, b) => b.id - a.id);
    const { items, headers } = paginate(call, runs);
    return ok({ total_count: runs.length, workflow_runs: items.map((run) => shape.workflowRun(call.urls, repo, run)) }, headers);
  },

  'actions/list-workflow-run-artifacts': (call) => {
    const repo = findRepo(call);
    const runId = Number(call.params.run_id);
    let artifacts = call.artifacts.listRun(runId);
    if (!artifacts.length && !repo.runs.has(runId)) throw notFound();
    if (call.query.name !== undefined) artifacts = artifacts.filter((entry) => entry.name === call.query.name);
    if ((call.query.direction || 'desc') === 'desc') artifacts.reverse();
    const { items, headers } = paginate(call, artifacts);
    return ok({ total_count: artifacts.length, artifacts: items.map((entry) => shape.artifact(call.urls, repo, entry)) }, headers);
  },

  'actions/download-artifact': (call) => {
    findRepo(call);
    if (!call.identity) throw new HttpError(401, 'Requires authentication');
    if (call.params.archive_format !== 'zip') throw notFound();
    const entry = call.artifacts.get(call.params.artifact_id);
    if (!entry) throw notFound();
    return { status: 302, headers: { location: `${call.urls.api}${call.artifacts.signDownload(entry)}` } };
  },
};
