'use strict';
// Builds one commit of a fork into an installed prefix, cached by commit + recipe.
//
// Layout under the perfgate cache folder:
//   builds/<sha>-<recipe>/prefix/      the installed server (what --base/--head take)
//   builds/<sha>-<recipe>/build.json   what was built, how, and how long it took
//   builds/<sha>-<recipe>/build.log    the output of the build that made it
//   trees/<source>/src/                a git worktree of the fork, moved from commit to commit
//   trees/<source>/build/              its cmake/ninja build tree
//   ccache/                            compiler cache shared by all trees
// A prefix is installed into builds/.tmp-* and renamed into place only when it is complete
// and verified, so a failed or interrupted build never leaves a cache entry behind.
//
// cmake and ninja run the fork's code. In the sandbox (sandbox.js) they see the system
// read-only, the worktree read-only (its .git names the checkout, whose config may hold a
// token, and git later runs in it outside the sandbox), and write only the build tree, the
// compiler cache and the prefix being installed. git runs outside: it only moves files.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');
const { runProcess, runProcessSync, startProcess, cancellation, Cancelled, sandboxFor } = require('../processes');
const { writeDocument, readDocument, readOwnText } = require('../own-files');

const { cacheKey, treeKey, cmakeArgs, NINJA_STATUS, parseNinjaStatus, BuildError, classifyCommandFailure, classifyIoFailure, UsageError, buildRecord } = core;

const BUILD_SCHEMA = 'perfgate.build/v1';
const LOG_KEEP_BYTES = 256 * 1024; // output of one step kept in memory for its failure tail

function cacheDirFrom(env) {
  return path.resolve(env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate'));
}

function git(cwd, args) {
  const r = runProcessSync('git', ['-C', cwd, ...args]);
  if (r.error) throw new BuildError({ step: 'source', reason: 'tool-missing', message: `could not run git: ${r.error.code || r.error.message}` });
  return { ok: r.status === 0, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

// The compiler and the flags of a configured tree (build.json's compiler and cmakeCache),
// read from what cmake wrote there; {} when the tree holds no CMakeCache.txt.
// The build tree was written in the sandbox: a link there (CMakeCache.txt -> a secret, or
// CMakeFiles -> another folder) is not followed, or its target would be copied into build.json.
function treeBuildRecord(buildDir) {
  let cacheText;
  try { cacheText = readOwnText(path.join(buildDir, 'CMakeCache.txt')); } catch { return {}; }
  let compilerText = null;
  try {
    const cmakeFiles = path.join(buildDir, 'CMakeFiles');
    if (!fs.lstatSync(cmakeFiles).isDirectory()) throw new Error('not a folder');
    const versions = fs.readdirSync(cmakeFiles, { withFileTypes: true }).filter((d) => d.isDirectory() && /^\d+\.\d+/.test(d.name)).map((d) => d.name).sort();
    for (const v of versions.reverse()) {
      const file = path.join(cmakeFiles, v, 'CMakeCXXCompiler.cmake');
      if (fs.existsSync(file)) { compilerText = readOwnText(file); break; }
    }
  } catch { /* no CMakeFiles: the compiler stays unrecorded */ }
  const { compiler, cmakeCache } = buildRecord(cacheText, compilerText);
  return { ...(compiler ? { compiler } : {}), cmakeCache };
}

function pidAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try { process.kill(pid, 0); return true; } catch (err) { return err.code === 'EPERM'; }
}

// The source checkout a build reads commits from. A bad --source is bad input (exit 2); a
// dirty one is a build error, because the commits would not be what the user is looking at.
function openSource(source) {
  if (!source || !fs.existsSync(source) || !fs.statSync(source).isDirectory()) {
    throw new UsageError(`--source '${source}': not a directory; expected a git checkout of the server source`);
  }
  const top = git(source, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new UsageError(`--source '${source}': not a git checkout (${top.stderr.split('\n')[0]})`);
  const toplevel = fs.realpathSync(top.stdout);
  const status = git(toplevel, ['status', '--porcelain', '--untracked-files=no']);
  if (!status.ok) throw new BuildError({ step: 'source', reason: 'git-failed', message: `git status failed in ${toplevel}: ${status.stderr}` });
  if (status.stdout) {
    const files = status.stdout.split('\n');
    throw new BuildError({ step: 'source', reason: 'dirty-tree', logTail: files.slice(0, 20).join('\n'),
      message: `source tree ${toplevel} has uncommitted changes in ${files.length} file(s); commit or stash them: perfgate builds commits, not working trees` });
  }
  return toplevel;
}

function resolveCommit(toplevel, ref) {
  if (!ref || ref.startsWith('-')) throw new UsageError(`--ref '${ref}': expected a git revision (branch, tag or SHA)`);
  const r = git(toplevel, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!r.ok || !/^[0-9a-f]{40}$/.test(r.stdout)) {
    throw new BuildError({ step: 'ref', reason: 'unknown-ref', message: `ref '${ref}' does not name a commit in ${toplevel}` });
  }
  return r.stdout;
}

function readJsonIfExists(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; }
}

/**
 * The cache entry of `key`: {entry: {dir, prefix, manifest, logFile}} when it is complete,
 * {corrupt: why} when something is there but cannot be trusted (a manifest that does not
 * parse or match its schema, a prefix that lacks a required file), or null.
 */
function cachedBuild(cacheDir, key, required) {
  const dir = path.join(cacheDir, 'builds', key);
  if (!fs.existsSync(dir)) return null;
  let manifest;
  try {
    manifest = readDocument(path.join(dir, 'build.json'), 'build');
  } catch (err) {
    return { corrupt: err.message };
  }
  if (manifest.key !== key) return { corrupt: `build.json names ${manifest.key}` };
  const prefix = path.join(dir, 'prefix');
  const missing = missingFromPrefix(prefix, required);
  if (missing.length) return { corrupt: `the prefix lacks ${missing.map((a) => a.join(' or ')).join(', ')}` };
  return { entry: { dir, prefix, manifest, logFile: path.join(dir, 'build.log') } };
}

// One build at a time per tree: a second perfgate waits rather than checking out another
// commit under a running ninja. The lock is the kernel's (flock(1) on <tree>/lock, held by a
// child that lives until we release it or die), so two waiters can never both take it and a
// dead owner's lock is gone with the owner.
function lockTree(treeDir, onWait) {
  fs.mkdirSync(treeDir, { recursive: true });
  const lockFile = path.join(treeDir, 'lock');
  return new Promise((resolve, reject) => {
    let holder;
    try {
      holder = startProcess('flock', ['--exclusive', lockFile, 'sh', '-c', 'echo locked; exec cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      reject(err);
      return;
    }
    let taken = false;
    let stderr = '';
    const waitTimer = setTimeout(() => { if (!taken && onWait) onWait(readTextIfExists(path.join(treeDir, 'lock.owner')).trim() || 'another perfgate'); }, 1000);
    holder.stderr.on('data', (chunk) => { stderr += chunk; });
    holder.stdout.on('data', (chunk) => {
      if (taken || !String(chunk).includes('locked')) return;
      taken = true;
      clearTimeout(waitTimer);
      fs.writeFileSync(path.join(treeDir, 'lock.owner'), `${process.pid}\n`);
      resolve(() => new Promise((done) => {
        // The holder may be gone already (a cancelled run stops every child).
        if (holder.exitCode !== null || holder.signalCode !== null) { done(); return; }
        holder.once('close', done);
        holder.stdin.end();
      }));
    });
    holder.on('error', (err) => { clearTimeout(waitTimer); reject(classifyIoFailure('worktree', err)); });
    holder.on('close', (code, signal) => {
      clearTimeout(waitTimer);
      if (taken) return;
      if (cancellation()) reject(new Cancelled(cancellation()));
      else reject(new BuildError({ step: 'worktree', reason: 'lock-failed', message: `could not lock the build tree ${treeDir} (flock exited ${code === null ? signal : code}: ${stderr.trim()})` }));
    });
  });
}

function readTextIfExists(file) {
  try { return fs.readFileSync(file, 'utf8'); } catch { return ''; }
}

// Leftovers of builds that died mid-install: never a cache entry, removed on sight.
function removeStaleTemps(buildsDir) {
  let names = [];
  try { names = fs.readdirSync(buildsDir); } catch { return; }
  for (const name of names) {
    const m = /^\.tmp-.*-(\d+)$/.exec(name);
    if (m && !pidAlive(Number(m[1]))) fs.rmSync(path.join(buildsDir, name), { recursive: true, force: true });
  }
}

// Runs one command, appending its output to the build log; resolves with the exit code and
// the (bounded) output of this step, for the failure tail.
async function runLogged({ command, args, cwd, env, sandbox, log, onLine }) {
  log.write(`\n$ ${[command, ...args].join(' ')}\n`);
  let kept = '';
  const r = await runProcess(command, args, {
    cwd,
    env,
    sandbox,
    onLine: (line) => {
      log.write(`${line}\n`);
      kept = (kept + line + '\n').slice(-LOG_KEEP_BYTES);
      if (onLine) onLine(line);
    },
  });
  log.write(`[exit ${r.code === null ? r.signal || 'not started' : r.code}]\n`);
  return { exitCode: r.spawnError ? null : r.code === null ? 128 : r.code, output: kept, spawnError: r.spawnError };
}

// PERFGATE_BUILD_NICE=<n> runs cmake and ninja at that niceness, so a build can share the
// machine with measurements without disturbing them much; git steps are too short to matter.
function niced(spec, env) {
  const level = env.PERFGATE_BUILD_NICE;
  if (level === undefined || level === '' || spec.command === 'git') return spec;
  if (!/^-?\d+$/.test(level)) throw new UsageError(`PERFGATE_BUILD_NICE '${level}': expected an integer niceness, e.g. 19`);
  return { ...spec, command: 'nice', args: ['-n', level, spec.command, ...spec.args] };
}

async function step(name, spec, ctx) {
  const r = await runLogged({ ...niced(spec, ctx.env), log: ctx.log });
  // A command stopped because the run was cancelled did not fail: nothing to report.
  if (cancellation()) throw new Cancelled(cancellation());
  if (r.exitCode !== 0) {
    const logText = ctx.logError ? `${r.output}\n(build log: ${ctx.logError.message})` : r.output;
    throw classifyCommandFailure({ step: name, command: [spec.command, ...spec.args].join(' '), exitCode: r.exitCode,
      logText, logFile: ctx.logFile, spawnError: r.spawnError, freeBytes: freeBytes(ctx.cacheDir) });
  }
  return r;
}

// Puts the tree's worktree at `commit`. git rewrites only the files that differ, so their
// mtimes move and ninja rebuilds just what the change touches.
async function checkoutWorktree(toplevel, srcDir, commit, ctx) {
  const valid = fs.existsSync(path.join(srcDir, '.git'))
    && git(srcDir, ['rev-parse', '--git-common-dir']).ok
    && fs.realpathSync(path.resolve(srcDir, git(srcDir, ['rev-parse', '--git-common-dir']).stdout))
      === fs.realpathSync(path.resolve(toplevel, git(toplevel, ['rev-parse', '--git-common-dir']).stdout));
  if (!valid) {
    fs.rmSync(srcDir, { recursive: true, force: true });
    await step('worktree', { command: 'git', args: ['-C', toplevel, 'worktree', 'prune'], env: ctx.env }, ctx);
    await step('worktree', { command: 'git', args: ['-C', toplevel, 'worktree', 'add', '--detach', '--force', srcDir, commit], env: ctx.env }, ctx);
    return;
  }
  await step('worktree', { command: 'git', args: ['-C', srcDir, 'checkout', '--detach', '--force', '--quiet', commit], env: ctx.env }, ctx);
  // Anything left in the worktree that the commit does not have would be built as if it were.
  await step('worktree', { command: 'git', args: ['-C', srcDir, 'clean', '-ffdq'], env: ctx.env }, ctx);
}

function freeBytes(dir) {
  try {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return null;
  }
}

function hasCcache() {
  const r = runProcessSync('ccache', ['--version']);
  return !r.error && r.status === 0;
}

function missingFromPrefix(prefix, required) {
  return required.filter((alternatives) => !alternatives.some((p) => fs.existsSync(path.join(prefix, p))));
}

function verifyPrefix(prefix, required) {
  const missing = missingFromPrefix(prefix, required);
  if (missing.length) {
    throw new BuildError({ step: 'verify', reason: 'incomplete-prefix',
      message: `the installed prefix lacks ${missing.map((a) => a.join(' or ')).join(', ')}; check the install steps of the build config` });
  }
}

// Builds `ref` of the git checkout `source` with `recipe` (from resolveBuild) and returns
// {prefix, commit, key, cache: 'hit'|'warm'|'cold', seconds, logFile, manifest}.
// Throws UsageError for a bad --source, BuildError for everything that makes the build fail.
// onProgress({phase, done, total, elapsedSeconds, cache}) reports the phases and ninja steps.
// sandbox: sandboxFor() of the run; by default cmake and ninja run in it when this host has it.
async function buildCommit({ source, ref, recipe, cacheDir, logFile = null, jobs = null, onProgress = () => {}, env = process.env, sandbox = sandboxFor({ env }) }) {
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const toplevel = openSource(source);
  const commit = resolveCommit(toplevel, ref);
  try {
    return await buildResolved({ toplevel, commit, ref, recipe, cacheDir, logFile, jobs, onProgress, env, elapsed, sandboxed: sandbox.sandboxed });
  } catch (err) {
    if (err instanceof BuildError) err.commit = commit;
    throw err;
  }
}

async function buildResolved({ toplevel, commit, ref, recipe, cacheDir, logFile, jobs, onProgress, env, elapsed, sandboxed }) {
  const key = cacheKey(commit, recipe.flagsHash);
  const report = (phase, cache, extra = {}) => onProgress({ phase, cache, commit, elapsedSeconds: elapsed(), done: 0, total: 0, ...extra });

  const hit = cachedBuild(cacheDir, key, recipe.required);
  if (hit && hit.entry) {
    report('cached', 'hit');
    return { prefix: hit.entry.prefix, commit, key, cache: 'hit', seconds: elapsed(), logFile: hit.entry.logFile, manifest: hit.entry.manifest };
  }

  const buildsDir = path.join(cacheDir, 'builds');
  const treeDir = path.join(cacheDir, 'trees', treeKey(toplevel));
  const srcDir = path.join(treeDir, 'src');
  const buildDir = path.join(treeDir, 'build');
  const treeStateFile = path.join(treeDir, 'tree.json');
  try {
    fs.mkdirSync(buildsDir, { recursive: true });
    fs.mkdirSync(path.join(cacheDir, 'logs'), { recursive: true });
  } catch (err) { throw classifyIoFailure('worktree', err); }
  const log_ = logFile || path.join(cacheDir, 'logs', `${key}.log`);
  fs.mkdirSync(path.dirname(log_), { recursive: true });
  const log = fs.createWriteStream(log_);
  // A full disk fails the log too: keep the error for the failure report instead of crashing.
  log.on('error', (err) => { ctx.logError = err; });
  // C locale: compiler messages in plain ASCII, the same on every runner.
  const ctx = { log, logFile: log_, cacheDir, env: { ...env, LC_ALL: 'C' } };
  log.write(`perfgate build: ${ref} = ${commit} of ${toplevel}, flavor ${recipe.flavor}, recipe ${recipe.flagsHash.slice(0, 16)}\n`);
  if (sandboxed) log.write('perfgate build: cmake and ninja run in the sandbox (bubblewrap)\n');

  let unlock;
  try {
    unlock = await lockTree(treeDir, (owner) => report(`waiting for the build tree (used by pid ${owner})`, 'miss'));
  } catch (err) {
    await new Promise((resolve) => log.end(resolve));
    throw err;
  }
  // tmpDir: where the install step writes the prefix (writable in the sandbox); entryDir: the
  // cache entry, made by perfgate alone. Both are removed on sight once this process is gone.
  const tmpDir = path.join(buildsDir, `.tmp-${key}-${process.pid}`);
  const entryDir = path.join(buildsDir, `.tmp-entry-${key}-${process.pid}`);
  try {
    // Another perfgate may have built this commit while we waited for the tree.
    const late = cachedBuild(cacheDir, key, recipe.required);
    if (late && late.entry) {
      report('cached', 'hit');
      return { prefix: late.entry.prefix, commit, key, cache: 'hit', seconds: elapsed(), logFile: late.entry.logFile, manifest: late.entry.manifest };
    }
    if (late && late.corrupt) {
      // A half-deleted or hand-edited entry would fail every later build of this commit:
      // discard it (under the lock, so no other build is reading it) and build again.
      log.write(`perfgate build: discarding the cache entry ${key}: ${late.corrupt}\n`);
      report('discarding a corrupt cache entry', 'miss');
      fs.rmSync(path.join(buildsDir, key), { recursive: true, force: true });
    }
    removeStaleTemps(buildsDir);
    const treeState = readJsonIfExists(treeStateFile);
    const warm = Boolean(treeState && treeState.flagsHash === recipe.flagsHash && fs.existsSync(path.join(buildDir, 'build.ninja')));
    const cache = warm ? 'warm' : 'cold';

    report('checkout', cache);
    await checkoutWorktree(toplevel, srcDir, commit, ctx);

    const ccache = hasCcache();
    const ccacheDir = path.join(cacheDir, 'ccache');
    const ccacheEnv = ccache ? {
      CCACHE_DIR: ccacheDir,
      // Paths below the tree are hashed relative to it, so a rebuilt tree reuses the objects.
      CCACHE_BASEDIR: treeDir,
      CCACHE_NOHASHDIR: '1',
      CCACHE_MAXSIZE: ctx.env.CCACHE_MAXSIZE || '20G',
    } : {};
    Object.assign(ctx.env, ccacheEnv);
    if (!ccache) log.write('ccache not found: building without a compiler cache\n');
    // What each step may write in the sandbox (null: it runs outside).
    const sandboxWriting = (...folders) => (sandboxed ? { readOnly: [srcDir], writable: [...folders, ...(ccache ? [ccacheDir] : [])], cwd: buildDir } : null);

    if (!warm) {
      // A new recipe starts from an empty build tree: cmake keeps removed -D values in its
      // cache, so reconfiguring in place could silently keep an old flag.
      report('configure', cache);
      fs.rmSync(treeStateFile, { force: true });
      fs.rmSync(buildDir, { recursive: true, force: true });
      fs.mkdirSync(buildDir, { recursive: true });
      const launcher = ccache ? ['-DCMAKE_C_COMPILER_LAUNCHER=ccache', '-DCMAKE_CXX_COMPILER_LAUNCHER=ccache'] : [];
      await step('configure', { command: 'cmake', args: ['-G', 'Ninja', '-S', srcDir, '-B', buildDir, ...cmakeArgs(recipe), ...launcher], env: ctx.env, sandbox: sandboxWriting(buildDir) }, ctx);
      fs.writeFileSync(treeStateFile, JSON.stringify({ flagsHash: recipe.flagsHash, flavor: recipe.flavor, source: toplevel }, null, 2) + '\n');
    }

    report('compile', cache);
    const ninjaArgs = ['-C', buildDir, ...(jobs ? ['-j', String(jobs)] : []), ...recipe.targets];
    await step('compile', {
      command: 'ninja', args: ninjaArgs, env: { ...ctx.env, NINJA_STATUS }, sandbox: sandboxWriting(buildDir),
      onLine: (line) => {
        const s = parseNinjaStatus(line);
        if (s) report('compile', cache, s);
      },
    }, ctx);

    report('install', cache);
    const prefix = path.join(tmpDir, 'prefix');
    fs.rmSync(entryDir, { recursive: true, force: true });
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.mkdirSync(prefix, { recursive: true });
    for (const { dir, component } of recipe.install) {
      const script = path.join(buildDir, dir, 'cmake_install.cmake');
      if (!fs.existsSync(script)) {
        throw new BuildError({ step: 'install', reason: 'no-install-rules', logFile: log_,
          message: `install failed: the build tree has no ${dir}/cmake_install.cmake; check the install steps of the build config` });
      }
      await step('install', { command: 'cmake', args: [`-DCMAKE_INSTALL_PREFIX=${prefix}`, `-DCMAKE_INSTALL_COMPONENT=${component}`, '-P', script], env: ctx.env, sandbox: sandboxWriting(buildDir, tmpDir) }, ctx);
    }
    // The install step could write anything in tmpDir, a link named build.log to a file of
    // its choosing included. The cache entry is put together in a folder perfgate makes after
    // the last sandboxed step, into which only the prefix moves; nothing is written in tmpDir.
    report('verify', cache);
    if (!fs.lstatSync(prefix).isDirectory()) {
      throw new BuildError({ step: 'verify', reason: 'prefix-not-a-folder', logFile: log_,
        message: `the install step left ${prefix} as something other than a folder (a symbolic link?); check the install steps of the build config` });
    }
    fs.mkdirSync(entryDir);
    fs.renameSync(prefix, path.join(entryDir, 'prefix'));
    verifyPrefix(path.join(entryDir, 'prefix'), recipe.required);

    const manifest = {
      schema: BUILD_SCHEMA, key, commit, ref, source: toplevel, flavor: recipe.flavor,
      cmakeFlags: recipe.cmakeFlags, targets: recipe.targets, install: recipe.install,
      flagsHash: recipe.flagsHash, tree: cache, seconds: Math.round(elapsed() * 10) / 10, builtAt: new Date().toISOString(),
      ...treeBuildRecord(buildDir),
    };
    try {
      await new Promise((resolve) => log.end(resolve));
      fs.copyFileSync(log_, path.join(entryDir, 'build.log'), fs.constants.COPYFILE_EXCL);
      writeDocument(path.join(entryDir, 'build.json'), 'build', manifest);
      fs.renameSync(entryDir, path.join(buildsDir, key));
    } catch (err) {
      throw classifyIoFailure('cache', err);
    }
    report('done', cache);
    return { prefix: path.join(buildsDir, key, 'prefix'), commit, key, cache, seconds: elapsed(), logFile: log_, manifest };
  } catch (err) {
    // System errors of perfgate's own file work (a full disk above all) fail the build like a
    // failed command; anything else is a defect and keeps its stack.
    if (err instanceof BuildError || err instanceof UsageError || err instanceof Cancelled || !err || !err.code) throw err;
    throw Object.assign(classifyIoFailure('install', err), { logFile: log_ });
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(entryDir, { recursive: true, force: true });
    if (!log.writableEnded) await new Promise((resolve) => log.end(resolve));
    await unlock();
  }
}

module.exports = { buildCommit, cacheDirFrom, openSource, resolveCommit, lockTree, BUILD_SCHEMA };
