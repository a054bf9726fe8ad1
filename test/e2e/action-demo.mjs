// The action's demo: perf-pr.yml run by act, as in the act tests, on a pull request of a fork
// whose thresholds folder holds perfgate's shipped quick suite, measuring Debian's MariaDB
// 10.11.18 (base) against 10.11.19 (head) at the suite's defaults (about 15 minutes here).
// Writes the sticky comment GitHub would show, the check run and the job summary to OUT.
//
//   node test/e2e/action-demo.mjs [OUT]        (default runs/action-demo)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAct, stepLog } from '../support/act.mjs';
import {
  BASE_BASEDIR, HEAD_BASEDIR, REPOSITORY, ROOT, doublePullRequest, exportPerfgate, makeFork, pinnedAction, pullRequestEvent,
} from '../support/action-fork.mjs';
import { startGitHubDouble } from '../support/github-api/index.mjs';

const out = path.resolve(process.argv[2] || path.join(ROOT, 'runs', 'action-demo'));
const GITHUB_TOKEN = 'ghs_perfgateActionDemoTokenForTheDouble01';
const scratch = mkdtempSync(path.join(os.tmpdir(), 'perfgate-action-demo-'));
let gh;
try {
  // Every suite perf-pr.yml runs, as perfgate ships it.
  const shipped = ['quick', 'ahi-quick', 'ddl-quick', 'contention-quick'];
  const fork = makeFork(scratch, { baseSuites: Object.fromEntries(shipped.map((suite) => [suite, readFileSync(path.join(ROOT, `thresholds/suites/${suite}.yml`), 'utf8')])) });
  const pull = { number: 1, baseSha: fork.baseSha, headSha: fork.headSha, author: 'maintainer', association: 'MEMBER' };
  const artifactsDir = path.join(scratch, 'artifacts');
  gh = await startGitHubDouble({ repositories: [REPOSITORY], githubToken: GITHUB_TOKEN, artifactsDir, permissions: { [REPOSITORY]: { maintainer: 'write' } }, pullRequests: [doublePullRequest(pull)] });
  const started = Date.now();
  const result = await runAct({
    workdir: fork.repo,
    workflow: '.github/workflows/perf-pr.yml',
    event: 'pull_request_target',
    payload: pullRequestEvent(pull),
    apiUrl: gh.url,
    repository: REPOSITORY,
    runId: 1,
    artifactsDir,
    secrets: { GITHUB_TOKEN },
    vars: { PERFGATE_BASE_BASEDIR: BASE_BASEDIR, PERFGATE_HEAD_BASEDIR: HEAD_BASEDIR },
    localRepositories: { [pinnedAction()]: exportPerfgate(path.join(scratch, 'perfgate')) },
    scratchParent: scratch,
    timeoutMs: 60 * 60 * 1000,
  });
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'act.log'), stepLog(result));
  const [comment] = gh.state.comments(REPOSITORY, 1);
  const [check] = gh.state.checkRuns(REPOSITORY);
  if (comment) writeFileSync(path.join(out, 'comment.md'), comment.body);
  writeFileSync(path.join(out, 'check-run.json'), `${JSON.stringify({ conclusion: check?.conclusion, output: check?.output }, null, 2)}\n`);
  const summary = result.summaries.find((entry) => entry.job === 'report');
  if (summary) writeFileSync(path.join(out, 'summary.md'), summary.content);
  execFileSync('cp', ['-r', path.join(artifactsDir, '1'), path.join(out, 'artifacts')]);
  console.log(`act exit ${result.exitCode}, jobs ${JSON.stringify(result.jobs)}, ${Math.round((Date.now() - started) / 1000)} s; comment, check run and summary in ${out}`);
  process.exitCode = result.exitCode === 0 && comment ? 0 : 1;
} finally {
  await gh?.close();
  rmSync(scratch, { recursive: true, force: true });
}
