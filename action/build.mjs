// Bundles the action (src/index.js and everything it imports: @actions/*, @octokit/*, and the
// perfgate engine) into one ES module, dist/index.js, which action.yml runs with no
// node_modules. `node build.mjs [outfile]`; the test suite builds into a temp folder and
// compares it with the checked-in dist/index.js.
//
// The engine finds perfgate's files beside its own source: core reads thresholds/ and
// the build recipe, the cli starts the Python harness in harness/ (both from __dirname). The
// bundle runs from perfgate's repository (uses: owner/perfgate/action@sha fetches all of it),
// so each engine module's __dirname becomes its own folder in that checkout, computed from
// where the bundle is: the same files, found the same way, bundled or not.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ACTION_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(ACTION_DIR, '..');
const ENGINE_DIRS = ['core', 'cli'].map((name) => path.join(REPO_ROOT, name) + path.sep);
export const DEFAULT_OUTFILE = path.join(ACTION_DIR, 'dist', 'index.js');

const engineDirname = {
  name: 'engine-dirname',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!ENGINE_DIRS.some((dir) => args.path.startsWith(dir))) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('__dirname')) return undefined;
      // Relative to dist/, the bundle's own folder, with forward slashes on every system.
      const fromBundle = path.relative(path.dirname(DEFAULT_OUTFILE), path.dirname(args.path)).split(path.sep).join('/');
      return { contents: source.replace(/\b__dirname\b/g, `__perfgateBundleDir(${JSON.stringify(fromBundle)})`), loader: 'js' };
    });
  },
};

// ESM output: the engine's require() of Node's own modules and its __dirname need these.
const BANNER = [
  "import { createRequire as __perfgateCreateRequire } from 'node:module';",
  "import { dirname as __perfgateDirname, join as __perfgateJoin } from 'node:path';",
  "import { fileURLToPath as __perfgateFileURLToPath } from 'node:url';",
  'const require = __perfgateCreateRequire(import.meta.url);',
  'const __perfgateBundleDir = (relative) => __perfgateJoin(__perfgateDirname(__perfgateFileURLToPath(import.meta.url)), relative);',
].join('\n');

export async function bundle(outfile = DEFAULT_OUTFILE) {
  await esbuild.build({
    entryPoints: [path.join(ACTION_DIR, 'src', 'index.js')],
    outfile,
    bundle: true,
    platform: 'node',
    // action.yml runs it on node24 on GitHub; act runs it with the host's node, 20 here.
    target: 'node20',
    format: 'esm',
    banner: { js: BANNER },
    plugins: [engineDirname],
    legalComments: 'none',
    logLevel: 'warning',
    // Paths inside the bundle relative to the repository, so it is the same on every machine.
    absWorkingDir: REPO_ROOT,
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundle(process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_OUTFILE);
}
