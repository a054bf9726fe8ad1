// job: bisect. Runs `perfgate bisect` (the cli's runBisection) on the self-hosted runner with a
// read-only token, between the good and bad commits the bot pinned. The job holds no token
// that can write to the pull request, so it reports through artifacts the bot reads: after
// every step that changed bisect.json, perfgate-bisect-progress-<N> (bisect.json then, N = its
// steps), and at the end perfgate-bisect (bisect.json and each step's verdict). Builds and
// servers never see the token (perfgate's processes drop it). The limits are read from the
// default branch, the maintainers' side, never from the commits being searched.
import fs from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
import perfgate from 'perfgate';
import { checkArtifactService, uploadFiles } from './artifacts.js';
import { copyThresholdsFrom, describeThresholdsOrigin, ensureCommit } from './base-thresholds.js';

export const RESULT_ARTIFACT = 'perfgate-bisect';
export const progressArtifact = (steps) => `perfgate-bisect-progress-${steps}`;
// The events after which bisect.json holds one more finished step.
const STEP_DONE = new Set(['confirm', 'decision', 'build-failed']);

/**
 * Uploads a copy of bisect.json as it is now, in the order the steps come; an upload that
 * fails is a warning (the bot then shows the next one), never the end of the bisection.
 */
export function progressUploader({ workDir, env }) {
  let chain = Promise.resolve();
  let uploaded = 0;
  return {
    onProgress(event, doc) {
      const line = perfgateCore.formatBisectProgress(event);
      if (line) core.info(`perfgate bisect: ${line}`);
      const steps = doc.steps.length;
      if (!STEP_DONE.has(event.type) || steps <= uploaded) return;
      uploaded = steps;
      const dir = path.join(workDir, 'progress', String(steps));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'bisect.json'), `${JSON.stringify(doc, null, 2)}\n`);
      chain = chain.then(() => uploadFiles({ name: progressArtifact(steps), dir, files: ['bisect.json'], env, retentionDays: 1 }))
        .catch((err) => core.warning(`perfgate bisect: the progress artifact of step ${steps} was not uploaded: ${err.message}`));
    },
    settled: () => chain,
  };
}

function resultFiles(outDir) {
  const files = ['bisect.json'];
  const steps = path.join(outDir, 'steps');
  if (fs.existsSync(steps)) {
    for (const step of fs.readdirSync(steps).sort()) {
      for (const name of ['verdict.json', 'comment.md']) if (fs.existsSync(path.join(steps, step, name))) files.push(path.join('steps', step, name));
    }
  }
  return files;
}

/**
 * The job summary of a bisection: its text in a fenced block, within GitHub's 1 MiB. The text
 * quotes commit subjects and function names: in the fence they are shown, never rendered (core's
 * summary.addCodeBlock would put them between <pre><code> tags unescaped).
 */
export function bisectSummary(text) {
  return perfgateCore.fitBytes(perfgateCore.markdownFence([text.trimEnd()]), perfgateCore.GITHUB_LIMITS.jobSummaryBytes, 'cut to fit the job summary; bisect.json in the perfgate-bisect artifact holds all of it');
}

/**
 * Whether every commit of the search is this repository's own: `good` and `bad` each on one of
 * its branches or tags in the checkout (then so is every commit between them, all ancestors of
 * bad). A fork's commits, which only refs/pull/<n>/head holds, are not: no writer of this
 * repository pushed them, and they are built only as the measure job builds an approved fork
 * head, in the sandbox.
 */
export function searchesOwnCommits(source, shas) {
  return shas.every((sha) => {
    const found = perfgate.runProcessSync('git', ['-C', source, 'for-each-ref', '--count=1', '--format=%(refname)', '--contains', sha, 'refs/heads', 'refs/remotes/origin', 'refs/tags']);
    return found.status === 0 && String(found.stdout).trim() !== '';
  });
}

/**
 * The sandbox of a bisection (cli's sandboxFor): a search of a fork's commits is untrusted code,
 * built and measured only in the sandbox, or refused (UsageError) where there is none, unless
 * the runner's owner turned it off. The builds and runs of the search take the same setting.
 */
export function bisectSandbox({ source, shas, env }) {
  return perfgate.sandboxFor({ untrusted: !searchesOwnCommits(source, shas), env });
}

export async function bisect(settings, octokit, jobEnv) {
  // The runner's settings (/etc/perfgate/runner.env, e.g. PERFGATE_SANDBOX), as perfgate reads them.
  const env = perfgate.runnerSettings(jobEnv);
  // Where its artifacts could not be uploaded, nothing is built or measured.
  checkArtifactService(env);
  const { good, bad } = settings.bisect;
  for (const sha of [good.sha, bad.sha]) {
    ensureCommit({ source: settings.source, sha, pullRequest: settings.pullRequest, token: settings.token, serverUrl: settings.serverUrl });
  }
  const sandbox = bisectSandbox({ source: settings.source, shas: [good.sha, bad.sha], env });
  if (sandbox.note) core.warning(`perfgate bisect: ${sandbox.note}`);
  const outDir = path.join(settings.workDir, RESULT_ARTIFACT);
  fs.rmSync(settings.workDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });

  let thresholdsDir = perfgateCore.SHIPPED_THRESHOLDS_DIR;
  let origin = null;
  if (settings.thresholds) {
    const { data: repo } = await octokit.rest.repos.get({ owner: settings.repository.owner, repo: settings.repository.repo });
    const branch = repo.default_branch;
    origin = copyThresholdsFrom({
      source: settings.source,
      folder: settings.thresholds,
      candidates: [{ ref: `refs/remotes/origin/${branch}`, label: `default branch ${branch}` }, { ref: `refs/heads/${branch}`, label: `default branch ${branch}` }],
      target: path.join(settings.workDir, 'thresholds'),
    });
    if (origin) thresholdsDir = path.join(settings.workDir, 'thresholds');
  }
  core.info(`perfgate bisect: ${good.ref} (${good.sha}) .. ${bad.ref} (${bad.sha}), suite ${settings.suite}, limits from ${describeThresholdsOrigin(origin).replace(/`/g, '')}`);
  const config = perfgateCore.loadThresholds(thresholdsDir);
  const { tests, ...measured } = settings.options;
  const uploader = progressUploader({ workDir: settings.workDir, env });
  const stopHandlingSignals = perfgate.cancelOnSignals();
  let outcome;
  try {
    outcome = await perfgate.runBisection({
      source: settings.source,
      good: good.sha,
      bad: bad.sha,
      tests: settings.bisect.tests,
      config,
      suiteName: settings.suite,
      overrides: perfgate.measureOverrides(measured, env),
      thresholds: thresholdsDir,
      outDir,
      io: { stdout: process.stdout, stderr: process.stderr },
      env,
      sandbox,
      onProgress: uploader.onProgress,
    });
  } finally {
    stopHandlingSignals();
    await uploader.settled();
  }
  const { doc, exitCode } = outcome;
  await uploadFiles({ name: RESULT_ARTIFACT, dir: outDir, files: resultFiles(outDir), env, retentionDays: 30 });
  const text = perfgateCore.renderBisect(doc);
  process.stdout.write(`\n${text}`);
  await core.summary.addRaw(bisectSummary(text), true).write().catch(() => {});
  // No culprit (exit 3) is an answer; an error (4) or a cancellation fails the step.
  if (exitCode !== 0 && exitCode !== 3) throw new Error(`perfgate bisect: ${doc.status}: ${doc.message}`);
  return { culprit: doc.culprit ? doc.culprit.commit : '', 'report-dir': outDir, verdict: doc.status };
}
