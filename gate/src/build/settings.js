'use strict';
// Reads the build config files at the edge and resolves the recipe for one flavor.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseBuildConfig, resolveBuild } = require('./config');
const { UsageError } = require('../errors');

const SHIPPED_THRESHOLDS = path.resolve(__dirname, '..', '..', '..', 'thresholds');

function cacheDirFrom(env) {
  return path.resolve(env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate'));
}

function readConfigFile(file, option, partial) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${option} '${file}': cannot read it (${err.code || err.message}); expected a build config YAML file`);
  }
  return parseBuildConfig(text, file, { partial });
}

// thresholds/build.yml of the given thresholds folder (a fork's copy may hold only a few
// keys: it is then an override of the shipped file), then each --build-config file.
function loadRecipe({ thresholdsDir = SHIPPED_THRESHOLDS, buildConfigs = [], defines = [], undefines = [], flavor = 'mariadb', env = process.env }) {
  const shippedFile = path.join(SHIPPED_THRESHOLDS, 'build.yml');
  const defaults = readConfigFile(shippedFile, 'shipped build config', false);
  const overrides = [];
  const forkFile = path.join(thresholdsDir, 'build.yml');
  if (path.resolve(forkFile) !== shippedFile && fs.existsSync(forkFile)) overrides.push(readConfigFile(forkFile, '--thresholds', true));
  for (const file of buildConfigs) overrides.push(readConfigFile(file, '--build-config', true));
  return resolveBuild({ defaults, overrides, defines, undefines, flavor, cacheDir: cacheDirFrom(env) });
}

module.exports = { loadRecipe, cacheDirFrom, SHIPPED_THRESHOLDS };
