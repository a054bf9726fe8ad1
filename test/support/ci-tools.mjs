// Where scripts/install-ci-tools.sh puts act and actionlint, for the tests that run them.
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CI_TOOL_VERSIONS = Object.freeze({ act: 'v0.2.89', actionlint: 'v1.7.12' });

export function ciToolsBin() {
  const cache = process.env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate');
  return path.join(cache, 'tools', 'bin');
}

/** The path of an installed CI tool; throws, naming the fix, when it is missing. */
export function ciTool(name) {
  if (!(name in CI_TOOL_VERSIONS)) throw new Error(`unknown CI tool ${JSON.stringify(name)}; expected one of ${Object.keys(CI_TOOL_VERSIONS).join(', ')}`);
  const binary = path.join(ciToolsBin(), name);
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(`${name} ${CI_TOOL_VERSIONS[name]} is not installed at ${binary}: run make setup (or bash scripts/install-ci-tools.sh)`);
  }
  return binary;
}
