// The action's entry point: read the inputs once, run the job this step is, set its outputs.
// The only place that fails the step.
import fs from 'node:fs';
import * as core from '@actions/core';
import { jobFails } from './delivery.js';
import { bisect } from './bisect.js';
import { gate } from './gate.js';
import { makeOctokit } from './github.js';
import { measure } from './measure.js';
import { report } from './report.js';
import { readSettings } from './settings.js';
import { signoff } from './signoff.js';

const JOB = { gate, measure, report, bisect, signoff };
// The jobs that deliver a judgement, and so fail the step as fail-on says.
const JUDGING_JOBS = new Set(['report', 'signoff']);
// Errors that say what is wrong and what to do: the message alone, no stack.
const EXPLAINED = new Set(['InputError', 'UsageError', 'ConfigError', 'Refused', 'ArtifactServiceError']);

function readEvent(env) {
  if (!env.GITHUB_EVENT_PATH) return {};
  return JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
}

export async function main(env = process.env) {
  try {
    const settings = readSettings({ input: (name) => core.getInput(name), env, event: readEvent(env) });
    core.setSecret(settings.token);
    const octokit = makeOctokit(settings);
    const outputs = await JOB[settings.job](settings, octokit, env);
    for (const [name, value] of Object.entries(outputs)) if (value !== undefined) core.setOutput(name, value);
    if (JUDGING_JOBS.has(settings.job) && jobFails(outputs.verdict, settings.failOn)) {
      const what = settings.job === 'signoff' ? `perfgate sign-off of ${settings.release.candidate.ref}: ${outputs.decision}` : `perfgate ${settings.suite}: ${outputs.verdict}`;
      core.setFailed(`${what} (fail-on: ${settings.failOn})`);
    }
  } catch (error) {
    core.setFailed(EXPLAINED.has(error.name) ? error.message : error.stack || String(error));
  }
}
