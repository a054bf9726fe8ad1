// job: measure. Runs with a read-only token on the self-hosted runner: takes the trust decision
// again (nothing is built for a refused pull request, even in a workflow without a gate job),
// reads the limits from the base commit, builds (or takes the prefixes given), measures, judges
// and leaves the run folder, uploaded as an artifact for the report job. An approved head (a
// fork's, or an author's without write access) is built and run only in the sandbox.
import fs from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
import perfgate from 'perfgate';
import { checkArtifactService, uploadRunFolder } from './artifacts.js';
import { copyThresholdsFrom, describeThresholdsOrigin, ensureCommit, resolveCommit, thresholdsDigest } from './base-thresholds.js';
import { admission, mainCommitAdmission, releaseAdmission } from './pull-request.js';
import { runName } from './settings.js';

export class Refused extends Error {
  constructor(message) {
    super(message);
    this.name = 'Refused';
  }
}

// The suite (narrowed to `options.tests` when given); a shard's part of it is chosen by the plan
// (overrides.shard), the same split `perfgate compare --shard K/N` makes.
function narrowed(config, settings) {
  perfgateCore.findSuite(config, settings.suite);
  if (!settings.options.tests) return config;
  return perfgateCore.narrowSuite(config, settings.suite, settings.options.tests.split(','), 'input options: tests');
}

// `options` holds perfgate compare's option names; measureOverrides checks the values.
function overridesFrom(settings, env) {
  const { tests, ...measured } = settings.options;
  const overrides = perfgate.measureOverrides(measured, env);
  return settings.shard ? { ...overrides, shard: settings.shard } : overrides;
}

function writeRun(runDir, fields) {
  perfgate.writeDocument(path.join(runDir, 'action-run.json'), 'action-run', { schema: 'perfgate.action-run/v1', ...fields });
}

// Whose code this is decides the rule: a pull request's, a tagged release pair's, or a commit of
// the default branch's.
function admitted(settings, octokit) {
  if (settings.release) return releaseAdmission(settings);
  if (settings.pullRequest === null) return mainCommitAdmission(settings);
  return admission(octokit, settings);
}

export async function measure(settings, octokit, jobEnv) {
  // The runner's settings (/etc/perfgate/runner.env, e.g. PERFGATE_SANDBOX), as perfgate reads them.
  const env = perfgate.runnerSettings(jobEnv);
  // Where the run folder could not be uploaded, nothing is built or measured.
  checkArtifactService(env);
  const { headSha, baseRef, facts, decision } = await admitted(settings, octokit);
  if (!decision.allowed) throw new Refused(`refused before building: ${decision.why}`);
  core.info(`perfgate measure: ${decision.why}`);
  const sandbox = perfgate.sandboxFor({ untrusted: decision.reason === 'approved', env });
  if (sandbox.note) core.warning(`perfgate measure: ${sandbox.note}`);

  const name = runName(settings);
  const runDir = path.join(settings.workDir, name);
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true });

  if (isGitCheckout(settings.source)) {
    // The base commit and (for a source build) the head must be in the checkout.
    for (const sha of [baseRef, settings.basedirs ? null : headSha]) {
      if (sha && /^[0-9a-f]{40}$/.test(sha)) ensureCommit({ source: settings.source, sha, pullRequest: settings.pullRequest, token: settings.token, serverUrl: settings.serverUrl });
    }
  }

  // The limits are read into a folder beside the run folder, not in it: the harness runs with
  // the run folder writable in the sandbox, beside the head's server. They join the run folder
  // (for the report job, which merges shards with them) only once nothing sandboxed runs.
  const limitsDir = `${runDir}.thresholds`;
  fs.rmSync(limitsDir, { recursive: true, force: true });
  let origin = null;
  let thresholdsDir = perfgateCore.SHIPPED_THRESHOLDS_DIR;
  if (settings.thresholds) {
    const defaultBranch = facts.defaultBranch || settings.event.repository?.default_branch;
    origin = copyThresholdsFrom({
      source: settings.source,
      folder: settings.thresholds,
      candidates: [
        { ref: baseRef, label: 'base commit' },
        ...(defaultBranch ? [{ ref: `refs/remotes/origin/${defaultBranch}`, label: `default branch ${defaultBranch}` }, { ref: `refs/heads/${defaultBranch}`, label: `default branch ${defaultBranch}` }] : []),
      ],
      target: limitsDir,
    });
    if (origin) thresholdsDir = limitsDir;
  }
  const thresholdsFrom = describeThresholdsOrigin(origin);
  core.info(`perfgate measure: limits from ${thresholdsFrom.replace(/`/g, '')}`);
  const config = narrowed(perfgateCore.loadThresholds(thresholdsDir), settings);
  // Taken now, before anything is built or run, and handed on as this step's output, which no
  // sandboxed step can write: the report and signoff jobs merge shards only with limits of
  // this digest, never with limits merely found in a run folder.
  const digest = thresholdsDigest(thresholdsDir);
  const outputs = (verdict) => ({ verdict, 'report-dir': runDir, 'thresholds-digest': digest });
  const overrides = overridesFrom(settings, env);
  // A shard count the suite cannot be split into is bad input: said before anything is built.
  if (overrides.shard) perfgateCore.resolvePlan(config, settings.suite, overrides, { base: { basedir: 'base' }, head: { basedir: 'head' } });

  const base = { sha: baseRef ? resolveCommitOrNull(settings.source, baseRef) : null };
  const run = {
    suite: settings.suite,
    shard: settings.shard,
    options: settings.options,
    pull_request: settings.pullRequest,
    base_sha: base.sha,
    head_sha: headSha,
    thresholds: origin,
  };
  // Uploads the run folder with the limits it was judged with, copied in anew: whatever the
  // harness left under thresholds/ is removed first, not written through.
  const upload = () => {
    const copy = path.join(runDir, 'thresholds');
    fs.rmSync(copy, { recursive: true, force: true });
    if (origin) fs.cpSync(limitsDir, copy, { recursive: true, errorOnExist: true, force: false });
    return uploadRunFolder({ name, dir: runDir, env });
  };
  const io = { stdout: process.stdout, stderr: process.stderr };
  const stopHandlingSignals = perfgate.cancelOnSignals();
  try {
    let sides;
    if (settings.basedirs) {
      sides = {
        base: { basedir: perfgate.checkBasedir('input base-basedir', settings.basedirs.base), label: 'base', commit: base.sha },
        head: { basedir: perfgate.checkBasedir('input head-basedir', settings.basedirs.head), label: 'head', commit: headSha },
      };
    } else {
      if (!base.sha) throw new perfgateCore.UsageError(`input base-ref: '${baseRef}' names no commit in ${settings.source}; expected the base commit in the fork's checkout (fetch-depth: 0)`);
      const built = await perfgate.sidesFromSource({
        settings: { source: settings.source, base: base.sha, head: headSha, thresholds: thresholdsDir, suite: settings.suite, overrides, out: runDir },
        config,
        io,
        env,
        sandbox,
      });
      if (built.cancelled) {
        writeRun(runDir, { ...run, status: 'cancelled', message: `cancelled by ${built.cancelled} while building` });
        return outputs('cancelled');
      }
      if (built.verdict) {
        writeRun(runDir, { ...run, status: 'judged', message: null });
        // A failed build is an error verdict; the build/ logs say why.
        perfgate.writeReports(runDir, built.verdict, { thresholdsFrom });
        await upload();
        return outputs(built.verdict.verdict);
      }
      sides = built.sides;
    }
    const outcome = await perfgate.runComparison({ config, suiteName: settings.suite, overrides, sides, outDir: runDir, judge: perfgateCore.judge, explain: settings.explain, io, env, sandbox });
    if (outcome.cancelled) {
      writeRun(runDir, { ...run, status: 'cancelled', message: outcome.message });
      return outputs('cancelled');
    }
    if (outcome.verdict) {
      perfgate.writeReports(runDir, outcome.verdict, { thresholdsFrom });
      writeRun(runDir, { ...run, status: 'judged', message: outcome.message });
      io.stdout.write(`\n${perfgateCore.renderVerdictTable(outcome.verdict)}`);
    } else {
      writeRun(runDir, { ...run, status: 'error', message: outcome.message || 'the run broke off before a verdict' });
    }
    await upload();
    return outputs(outcome.verdict ? outcome.verdict.verdict : 'error');
  } finally {
    stopHandlingSignals();
  }
}

function isGitCheckout(source) {
  return fs.existsSync(path.join(source, '.git'));
}

function resolveCommitOrNull(source, ref) {
  return isGitCheckout(source) ? resolveCommit(source, ref) : (/^[0-9a-f]{40}$/.test(ref) ? ref : null);
}
