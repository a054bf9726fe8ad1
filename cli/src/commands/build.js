'use strict';
// `perfgate build`: one commit of a fork's source → an installed prefix (printed on stdout).
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { buildCommit, cacheDirFrom } = require('../source-build/build-commit');
const { Cancelled, EXIT_ON_SIGNAL, sandboxFor } = require('../processes');

const { UsageError, EXIT, BuildError } = core;

const OPTIONS = {
  source: { type: 'string' },
  ref: { type: 'string' },
  flavor: { type: 'string', default: 'mariadb' },
  thresholds: { type: 'string' },
  'build-config': { type: 'string', multiple: true },
  define: { type: 'string', short: 'D', multiple: true },
  undefine: { type: 'string', short: 'U', multiple: true },
  log: { type: 'string' },
  jobs: { type: 'string', short: 'j' },
  json: { type: 'boolean' },
  untrusted: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate build --source <git checkout> --ref <rev> [options]

Builds one commit of a server source tree and prints its installed prefix (a basedir for
perfgate compare --base/--head). Prefixes are cached by commit and build recipe: building the
same commit again costs seconds, and every ref of one source shares one build tree, so a
commit close to one built before rebuilds only what changed.

  --source <dir>          git checkout of the server source (must have no uncommitted changes)
  --ref <rev>             commit to build: branch, tag or SHA
  --flavor <name>         mariadb (default), mysql or percona: picks the default recipe
  --thresholds <dir>      thresholds folder whose build.yml overrides the shipped one
  --build-config <file>   more overrides, same shape as thresholds/build.yml (repeatable)
  -D, --define NAME=VALUE set a cmake flag (repeatable)
  -U, --undefine NAME     drop a default cmake flag (repeatable)
  --log <file>            build log (default: <cache>/logs/<commit>-<recipe>.log)
  -j, --jobs <n>          ninja parallelism (default: ninja's own)
  --json                  print the build record as JSON instead of the prefix
  --untrusted             the commit is code nobody with write access wrote: refuse to build
                          it unless cmake and ninja run in the sandbox (bubblewrap), as they
                          do whenever this host has it (PERFGATE_SANDBOX=off: never)

Cache: $PERFGATE_CACHE (default ~/.cache/perfgate)/builds, trees, ccache.
Exit codes: 0 built or cached, 2 bad input, 4 the build failed (the step and log tail on stderr).
`;


function readSettings(argv) {
  const v = parseCommandLine('build', argv, OPTIONS).values;
  if (v.help) return { help: true };
  if (!v.source) throw new UsageError('--source is missing; expected --source <git checkout>');
  if (!v.ref) throw new UsageError('--ref is missing; expected --ref <branch, tag or SHA>');
  if (v.jobs !== undefined && !/^[1-9]\d*$/.test(v.jobs)) throw new UsageError(`--jobs '${v.jobs}': expected a positive integer`);
  for (const name of v.undefine || []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--undefine '${name}': expected a cmake variable name`);
  }
  return {
    help: false,
    source: path.resolve(v.source),
    ref: v.ref,
    flavor: v.flavor,
    thresholds: v.thresholds ? path.resolve(v.thresholds) : undefined,
    buildConfigs: (v['build-config'] || []).map((f) => path.resolve(f)),
    defines: (v.define || []).map((d) => core.parseDefine(d, '--define')),
    undefines: v.undefine || [],
    log: v.log ? path.resolve(v.log) : null,
    jobs: v.jobs ? Number(v.jobs) : null,
    json: Boolean(v.json),
    untrusted: Boolean(v.untrusted),
  };
}

// Progress lines for a person watching a long build (stderr), throttled.
function progressPrinter(stream, label, everySeconds = 10) {
  const due = core.progressThrottle(everySeconds);
  return (event) => {
    if (due(event, event.elapsedSeconds)) stream.write(`${core.formatBuildProgress({ label, ...event })}\n`);
  };
}

async function execute(settings, io) {
  const env = io.env || process.env;
  const sandbox = sandboxFor({ untrusted: settings.untrusted, env });
  if (sandbox.note) io.stderr.write(`perfgate build: ${sandbox.note}\n`);
  const cacheDir = cacheDirFrom(env);
  const recipe = core.loadRecipe({ thresholdsDir: settings.thresholds, buildConfigs: settings.buildConfigs,
    defines: settings.defines, undefines: settings.undefines, flavor: settings.flavor, cacheDir });
  try {
    const built = await buildCommit({ source: settings.source, ref: settings.ref, recipe, cacheDir,
      logFile: settings.log, jobs: settings.jobs, env, sandbox, onProgress: progressPrinter(io.stderr, settings.ref) });
    io.stderr.write(`perfgate build: ${settings.ref} (${built.commit.slice(0, 12)}) ${built.cache === 'hit' ? 'found in the cache' : `built (${built.cache} tree)`} in ${core.formatDuration(built.seconds)}\n`);
    io.stdout.write(settings.json ? `${JSON.stringify({ prefix: built.prefix, ...built.manifest, cache: built.cache, seconds: built.seconds }, null, 2)}\n` : `${built.prefix}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof Cancelled) {
      io.stderr.write(`perfgate build: cancelled by ${err.signal}; nothing was cached\n`);
      return EXIT_ON_SIGNAL[err.signal];
    }
    if (!(err instanceof BuildError)) throw err;
    for (const line of core.describeFailure(err)) io.stderr.write(`${line}\n`);
    if (settings.json) io.stdout.write(`${JSON.stringify({ status: 'error', error: err.toJSON() }, null, 2)}\n`);
    return EXIT.error;
  }
}

module.exports = { readSettings, execute, HELP };
