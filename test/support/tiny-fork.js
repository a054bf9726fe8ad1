'use strict';
// A scratch fork of the tiny CMake project (test/fixtures/tiny-cmake) for the build tests:
// tag `base`, and branches `one-file` (a one-line change), `broken` (does not compile) and
// `no-sql` (builds, but installs without a required file).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { buildCommit } = require('../../cli/src/source-build/build-commit');
const { loadRecipe } = require('../../core/src/config/build-recipe');

const FIXTURE = path.resolve(__dirname, '../fixtures/tiny-cmake');
const haveTools = ['cmake', 'ninja', 'git', 'c++'].every((t) => spawnSync(t, ['--version'], { stdio: 'ignore' }).status === 0);

// The tiny project's recipe, as a fork would write it: it replaces targets/install/required
// and adds one flag the project uses, on top of the shipped MariaDB flags (which it ignores).
const RECIPE_FILE = `
flavors:
  mariadb:
    cmake_flags: {TINY_GREETING: from-recipe}
    targets: [tinyd, tiny_print_defaults]
    install:
      - {dir: ., component: Server}
      - {dir: tools, component: Client}
    required: [[bin/tinyd], [bin/tiny_print_defaults], [share/tiny_tables.sql]]
`;

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function gitIn(repo, ...args) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim();
}

// A scratch fork: base = the fixture; branches on top of it for each case.
function makeFork(root) {
  const repo = path.join(root, 'fork');
  fs.cpSync(FIXTURE, repo, { recursive: true });
  gitIn(repo, 'init', '-q', '-b', 'main');
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'base');
  gitIn(repo, 'tag', 'base');
  const commitOnBranch = (branch, file, edit) => {
    gitIn(repo, 'checkout', '-q', '-b', branch, 'base');
    const p = path.join(repo, file);
    fs.writeFileSync(p, edit(fs.readFileSync(p, 'utf8')));
    gitIn(repo, 'commit', '-q', '-am', branch);
    gitIn(repo, 'checkout', '-q', 'main');
  };
  commitOnBranch('one-file', 'core/plan.cc', (t) => t.replace('"scan"', '"index scan"'));
  commitOnBranch('broken', 'core/plan.cc', (t) => t.replace('return rows', 'this_does_not_compile;\n  return rows'));
  commitOnBranch('no-sql', 'CMakeLists.txt', (t) => t.replace('install(FILES share/tiny_tables.sql DESTINATION share COMPONENT Server)', ''));
  // A pull request that writes the environment its build sees, at configure time and at build
  // time, into the installed prefix: what a hostile CMakeLists.txt could send anywhere.
  commitOnBranch('env-report', 'CMakeLists.txt', (t) => `${t}
execute_process(COMMAND env OUTPUT_FILE \${CMAKE_BINARY_DIR}/configure.env)
add_custom_target(envreport COMMAND env > \${CMAKE_BINARY_DIR}/build.env BYPRODUCTS \${CMAKE_BINARY_DIR}/build.env)
add_dependencies(tinyd envreport)
install(FILES \${CMAKE_BINARY_DIR}/configure.env \${CMAKE_BINARY_DIR}/build.env DESTINATION share COMPONENT Server)
`);
  // A configure step that takes long enough to be cancelled in the middle of it.
  commitOnBranch('slow-configure', 'CMakeLists.txt', (t) => `${t}\nexecute_process(COMMAND sleep 127.31)\n`);
  return repo;
}

function setup(t) {
  assert.ok(haveTools, 'the build tests need cmake, ninja, git and a C++ compiler: run make setup');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-build-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const cacheDir = path.join(root, 'cache');
  const recipeFile = path.join(root, 'tiny-build.yml');
  fs.writeFileSync(recipeFile, RECIPE_FILE);
  const env = { ...process.env, PERFGATE_CACHE: cacheDir };
  const recipe = loadRecipe({ buildConfigs: [recipeFile], cacheDir });
  const repo = makeFork(root);
  const events = [];
  const build = (ref) => buildCommit({ source: repo, ref, recipe, cacheDir, env, onProgress: (e) => events.push(e) });
  return { root, cacheDir, recipeFile, env, recipe, repo, build, events };
}

module.exports = { RECIPE_FILE, gitIn, makeFork, setup, haveTools, FIXTURE };
