// Runs a workflow file under act (nektos/act) on this host, with no Docker, against a GitHub
// double, and reads back what GitHub would show: step outputs, job summaries, step and job results.
//
// The command it runs (see README.md beside this file for why each flag is there):
//   act <event> -e event.json -W <workflow> --json
//     -P self-hosted=-self-hosted -P perf=-self-hosted -P ubuntu-latest=-self-hosted
//     --env GITHUB_API_URL=<double> --env GITHUB_REPOSITORY=<owner/name> --env GITHUB_RUN_ID=<id>
//     --secret-file <file with GITHUB_TOKEN=…>
//     --artifact-server-path <dir> --artifact-server-addr 127.0.0.1 --artifact-server-port <port>
//     --no-cache-server --action-cache-path <tmp> --env-file/--var-file/--input-file <tmp, absent>
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startArtifactShim } from './act-artifact-shim.mjs';
import { ciTool } from './ci-tools.mjs';
import { freePort } from './free-port.js';

const DEFAULT_PLATFORMS = ['self-hosted', 'perf', 'ubuntu-latest'];

// act's artifact server cannot be told to pick a port: one free right now is handed to it.
export { freePort };

function quoteDotenv(value) {
  if (/[\n\r]/.test(value)) throw new Error('act secrets cannot contain line breaks');
  return value;
}

/**
 * act's --json log: one JSON object per line. Step outputs arrive as "set-output" commands,
 * job summaries as "summary" commands, one per step that wrote $GITHUB_STEP_SUMMARY (act
 * removes the job's folder, summary file included, when the job ends).
 */
export function readActLog(stdout) {
  const entries = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // A step's own output that happens to start with "{" is carried inside msg, never bare.
    }
  }
  const outputs = {};
  const summaries = [];
  const steps = {};
  const jobs = {};
  // A matrix job's legs, each by itself: "<job> (<matrix values>)". act keeps one result per
  // job: a leg that ends after another leg failed is logged "Job failed" though its own steps
  // all succeeded. A leg's own result is therefore read from its steps (any main step act
  // logged as failed fails it), and from act's job result only where a leg ran no step.
  const legs = {};
  const legSteps = {};
  for (const entry of entries) {
    const stepId = Array.isArray(entry.stepID) ? entry.stepID[0] : undefined;
    if (entry.command === 'set-output') {
      outputs[stepId] ??= {};
      outputs[stepId][entry.name] = entry.arg;
    } else if (entry.command === 'summary') {
      summaries.push({ job: entry.jobID, step: stepId, content: entry.content });
    }
    if (entry.stepResult && stepId !== undefined && entry.stage === 'Main') steps[stepId] = entry.stepResult;
    if (entry.jobResult) jobs[entry.jobID] = entry.jobResult;
    const values = Object.values(entry.matrix || {});
    if (!values.length) continue;
    const leg = `${entry.jobID} (${values.join(', ')})`;
    if (entry.jobResult) legs[leg] = entry.jobResult;
    if (entry.stepResult && entry.stage === 'Main') {
      legSteps[leg] ??= [];
      legSteps[leg].push(entry.stepResult);
    }
  }
  for (const [leg, results] of Object.entries(legSteps)) {
    legs[leg] = results.includes('failure') ? 'failure' : 'success';
  }
  return { entries, outputs, summaries, steps, jobs, legs };
}

/**
 * Runs one workflow. Options:
 *   workdir      the repository act runs in; `actions/checkout` copies it into the workspace
 *   workflow     the workflow file (relative to workdir, or absolute)
 *   event        the event name ("pull_request", "workflow_dispatch", …)
 *   payload      the event payload (for workflow_dispatch, inputs go in payload.inputs as strings)
 *   apiUrl       GITHUB_API_URL, the double's URL
 *   repository   GITHUB_REPOSITORY, "owner/name" (act otherwise reads the git remote or says nektos/act)
 *   runId        GITHUB_RUN_ID; artifacts land in <artifactsDir>/<runId>/<name>/<name>.zip
 *   actor        GITHUB_ACTOR (default: the payload's sender, else act's "nektos/act")
 *   artifactsDir where act's artifact server stores uploads
 *   secrets      { NAME: value }, e.g. { GITHUB_TOKEN: '…' }
 *   env          extra --env variables
 *   vars         repository variables ({ NAME: value }: vars.NAME in the workflow)
 *   localRepositories  { 'owner/name@ref': folder }: remote `uses:` of that repository and ref
 *                run from the folder (act --local-repository), so nothing is fetched
 *   scratchParent folder for act's scratch (action cache, RUNNER_TEMP); default the system's temp
 *   timeoutMs    act is killed after this (default 180 s)
 * Returns { exitCode, durationMs, stdout, stderr, entries, outputs, summaries, steps, jobs, legs }
 * (jobs: the last result of each job; legs: each leg of a matrix job, "<job> (<values>)").
 */
export async function runAct(options) {
  const act = ciTool('act');
  const { workdir, workflow, event, payload = {}, apiUrl, repository, runId = 1, artifactsDir, secrets = {}, env = {}, vars = {}, localRepositories = {}, scratchParent = os.tmpdir(), timeoutMs = 180_000 } = options;
  const actor = options.actor ?? payload.sender?.login;
  for (const [key, value] of Object.entries({ workdir, workflow, event, apiUrl, repository, artifactsDir })) {
    if (!value) throw new Error(`runAct: option ${key} is missing`);
  }
  const scratch = mkdtempSync(path.join(scratchParent, 'perfgate-act-'));
  const eventFile = path.join(scratch, 'event.json');
  writeFileSync(eventFile, JSON.stringify(payload));
  // Secrets go through a file, not act's environment: act copies its own environment into
  // every step, and a GITHUB_TOKEN variable there would hide an action that forgot its input.
  const secretFile = path.join(scratch, 'secrets.env');
  writeFileSync(secretFile, Object.entries(secrets).map(([name, value]) => `${name}=${quoteDotenv(String(value))}\n`).join(''));
  const varFile = path.join(scratch, 'vars.env');
  writeFileSync(varFile, Object.entries(vars).map(([name, value]) => `${name}=${quoteDotenv(String(value))}\n`).join(''));

  const artifactPort = await freePort();
  const shim = await startArtifactShim({ targetPort: artifactPort });
  const args = [
    event,
    '-e', eventFile,
    '-W', workflow,
    '--json',
    ...(actor ? ['--actor', actor] : []),
    ...DEFAULT_PLATFORMS.flatMap((label) => ['-P', `${label}=-self-hosted`]),
    '--env', `GITHUB_API_URL=${apiUrl}`,
    '--env', `GITHUB_REPOSITORY=${repository}`,
    '--env', `GITHUB_RUN_ID=${runId}`,
    ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    '--secret-file', secretFile,
    '--env-file', path.join(scratch, 'absent.env'),
    '--var-file', varFile,
    ...Object.entries(localRepositories).flatMap(([repository, folder]) => ['--local-repository', `${repository}=${folder}`]),
    '--input-file', path.join(scratch, 'absent.input'),
    '--artifact-server-path', artifactsDir,
    '--artifact-server-addr', '127.0.0.1',
    '--artifact-server-port', String(artifactPort),
    '--no-cache-server',
    '--action-cache-path', path.join(scratch, 'act-cache'),
  ];
  // A clean environment, as on a runner: act hands its own environment to every step.
  const childEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: process.env.LANG || 'C.UTF-8',
    XDG_CONFIG_HOME: path.join(scratch, 'config'),
    XDG_CACHE_HOME: path.join(scratch, 'cache'),
    ACTIONS_RUNTIME_URL: shim.url,
  };

  const started = performance.now();
  try {
    const result = await new Promise((resolve, reject) => {
      const child = spawn(act, args, { cwd: workdir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill(-child.pid, 'SIGKILL');
      }, timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) reject(new Error(`act ${event} -W ${workflow} did not finish within ${timeoutMs} ms; its log:\n${stderr}\n${stdout.slice(-4000)}`));
        else resolve({ exitCode: code, stdout, stderr });
      });
    });
    return { ...result, durationMs: Math.round(performance.now() - started), ...readActLog(result.stdout) };
  } finally {
    await shim.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The lines a workflow's steps printed, for a failure message. */
export function stepLog(result) {
  return result.entries
    .filter((entry) => entry.msg)
    .map((entry) => {
      // A matrix job's legs share their job id: the leg's values tell them apart.
      const values = Object.values(entry.matrix || {});
      const leg = values.length ? ` (${values.join(', ')})` : '';
      return `[${entry.jobID ?? '-'}${leg}${entry.stepID ? `/${entry.stepID[0]}` : ''}] ${String(entry.msg).trimEnd()}`;
    })
    .join('\n');
}
