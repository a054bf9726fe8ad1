'use strict';
// `perfgate compare --source`: build the base and head refs into prefixes before measuring,
// keeping the build logs in the run folder; a failed build becomes an "error" run folder.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { buildCommit } = require('./runner');
const { BuildError, describeFailure } = require('./failure');
const { formatProgress, progressThrottle, formatDuration } = require('./progress');
const { HARNESS_DIR } = require('../harness');
const { writeJsonAtomic } = require('../files');
const { schemaProblem } = require('../schemas');

const SIDES = ['base', 'head'];

function copyLog(from, to, header) {
  try {
    fs.writeFileSync(to, `${header}\n${fs.readFileSync(from, 'utf8')}`);
  } catch {
    fs.writeFileSync(to, `${header}\n(the log of that build is no longer in the cache)\n`);
  }
}

/**
 * Builds refs.base then refs.head (in that order: the head build then reuses the base's tree
 * and objects). Logs go to <outDir>/build/<side>.log, a summary to <outDir>/build/builds.json.
 * @returns {sides, failure: null} or {sides, failure: {side, error: BuildError}}; sides holds
 *          {basedir, label, commit, ref} for each side built.
 */
async function buildSides({ source, refs, recipe, cacheDir, outDir, io, env }) {
  const buildDir = path.join(outDir, 'build');
  fs.mkdirSync(buildDir, { recursive: true });
  const sides = {};
  const summary = { schema: 'perfgate.builds/v1', source, flavor: recipe.flavor, cmake_flags: recipe.cmakeFlags, recipe: recipe.flagsHash.slice(0, 16), sides: {} };
  const writeSummary = () => {
    const problem = schemaProblem('builds', summary);
    if (problem) throw new Error(`build/builds.json does not match schema/builds.schema.json: ${problem}`);
    writeJsonAtomic(path.join(buildDir, 'builds.json'), summary);
  };
  for (const side of SIDES) {
    const logFile = path.join(buildDir, `${side}.log`);
    const due = progressThrottle(15);
    try {
      const built = await buildCommit({ source, ref: refs[side], recipe, cacheDir, logFile, env,
        onProgress: (e) => { if (due(e, e.elapsedSeconds)) io.stderr.write(`perfgate compare: ${formatProgress({ label: `${side} (${refs[side]})`, ...e })}\n`); } });
      if (built.cache === 'hit') copyLog(built.logFile, logFile, `perfgate: ${refs[side]} (${built.commit}) was found in the build cache; this is the log of the build that made it.`);
      io.stderr.write(`perfgate compare: ${side} ${refs[side]} = ${built.commit.slice(0, 12)}: ${built.cache === 'hit' ? 'cached build' : `built in ${formatDuration(built.seconds)} (${built.cache} tree)`}\n`);
      sides[side] = { basedir: built.prefix, label: side, commit: built.commit, ref: refs[side] };
      summary.sides[side] = { ref: refs[side], commit: built.commit, prefix: built.prefix, cache: built.cache, seconds: Math.round(built.seconds * 10) / 10, status: 'ok', log: `build/${side}.log` };
      writeSummary();
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      for (const line of describeFailure(err)) io.stderr.write(`perfgate compare: ${side}: ${line}\n`);
      summary.sides[side] = { ref: refs[side], commit: err.commit || null, status: 'error', log: `build/${side}.log`, error: err.toJSON() };
      writeSummary();
      return { sides, failure: { side, error: err } };
    }
  }
  return { sides, failure: null };
}

// The machine fingerprint for an error run folder, from the harness; the bare minimum the
// results schema needs when the harness cannot say.
function machineFingerprint(env) {
  const existing = env.PYTHONPATH ? `${path.delimiter}${env.PYTHONPATH}` : '';
  const r = spawnSync(env.PERFGATE_PYTHON || 'python3', ['-m', 'perfgate_harness', 'fingerprint'],
    { env: { ...env, PYTHONPATH: `${HARNESS_DIR}${existing}` }, encoding: 'utf8', timeout: 60000 });
  try {
    if (r.status === 0) return JSON.parse(r.stdout);
  } catch { /* fall through */ }
  return { cpu_model: (os.cpus()[0] || {}).model || 'unknown', cores: os.cpus().length, memory_bytes: os.totalmem(), kernel: os.release() };
}

/**
 * The results of a run whose build failed: status "error", no benchmarks, one error naming the
 * side, the build step and the log tail. Judged like any results, it gives an "error" verdict.
 * Pure.
 */
function buildErrorResults({ plan, failure, built, refs, flavor, machine, started, finished }) {
  const { side, error } = failure;
  const server = (s) => {
    const b = built[s];
    return b
      ? { basedir: b.basedir, label: s, commit: b.commit, flavor, version: `built from ${refs[s]}` }
      : { basedir: '', label: s, commit: error.commit || null, flavor, version: `not built: ${refs[s]}` };
  };
  const where = error.target ? ` at ${error.target}` : '';
  return {
    schema: 'perfgate.results/v1',
    plan,
    status: 'error',
    errors: [{
      side,
      benchmark: null,
      step: `build: ${error.step}${where}`,
      message: `the ${side} ref '${refs[side]}' did not build: ${error.message}`,
      log_tail: error.logTail || '',
    }],
    started,
    finished,
    machine,
    sides: { base: server('base'), head: server('head') },
    benchmarks: [],
  };
}

module.exports = { buildSides, buildErrorResults, machineFingerprint };
