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

const JOB = { gate, measure, report, bisect };

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
    if (settings.job === 'report' && jobFails(outputs.verdict, settings.failOn)) {
      core.setFailed(`perfgate ${settings.suite}: ${outputs.verdict} (fail-on: ${settings.failOn})`);
    }
  } catch (error) {
    core.setFailed(error.name === 'InputError' || error.name === 'UsageError' || error.name === 'ConfigError' || error.name === 'Refused' ? error.message : error.stack || String(error));
  }
}
