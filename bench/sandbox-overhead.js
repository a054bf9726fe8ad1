#!/usr/bin/env node
'use strict';
// What the sandbox (bubblewrap) costs: a server's start, a short sysbench run against it, and a
// tiny CMake build, each with and without the sandbox, in alternating pairs so that drift of a
// shared machine hits both alike. The server part runs the harness's own Server and sysbench
// code in one Python process, started the way perfgate starts the harness (in the sandbox, or
// not), so the server and sysbench are where they are in a real run.
//
//   flock /tmp/perfgate-measure.lock node bench/sandbox-overhead.js [--basedir <prefix>] [--pairs 5]
//         [--seconds 10] [--rows 10000]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { runProcess, runProcessSync, probeSandbox } = require('../cli/src/processes');
const { HARNESS_DIR } = require('../cli/src/harness-process');
const { buildCommit } = require('../cli/src/source-build/build-commit');
const { loadRecipe } = require('../core/src/config/build-recipe');
const { makeFork, RECIPE_FILE } = require('../test/support/tiny-fork');

const { values: opt } = parseArgs({
  options: {
    basedir: { type: 'string', default: path.join(os.homedir(), '.cache/perfgate/servers/mariadb-10.11.19/usr') },
    pairs: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    rows: { type: 'string', default: '10000' },
  },
});

// One measurement inside one Python process: start the server on an initialized datadir, run
// oltp_point_select for --seconds, stop it; prints {start_s, qps, cpu_us_per_query} as JSON.
const MEASURE = `
import json, sys, time
from pathlib import Path
from perfgate_harness import procstat, server, sysbench
basedir, run, seconds, rows = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
profile = {"innodb_buffer_pool_size": "1G", "innodb_flush_log_at_trx_commit": 2, "skip_name_resolve": "ON", "performance_schema": "OFF"}
binary = server.find_server_binary(basedir)
flavor, version = server.detect_version(binary)
srv = server.Server("base", basedir, binary, flavor, version, server.layout_for(run, "base"), profile)
if not srv.layout.datadir.exists():
    srv.initialize()
    srv.start()
    c = srv.connect(); c.cursor().execute("CREATE DATABASE IF NOT EXISTS sbtest"); c.close()
    prep = sysbench.Invocation(script_path=sysbench.resolve_script("oltp_point_select"), socket=srv.layout.socket, tables=1, rows=rows, threads=1, command="prepare")
    assert sysbench.execute(sysbench.build_command(prep), timeout=600).returncode == 0
    srv.shutdown()
started = time.monotonic()
srv.start()
start_s = time.monotonic() - started
inv = sysbench.Invocation(script_path=sysbench.resolve_script("oltp_point_select"), socket=srv.layout.socket, tables=1, rows=rows, threads=2, seconds=seconds)
before = procstat.sample(srv.pid)
out = sysbench.execute(sysbench.build_command(inv), timeout=seconds + 60)
after = procstat.sample(srv.pid)
parsed = sysbench.parse_run_output(out.output)
cpu, _ = procstat.per_query(before, after, parsed["queries"])
srv.shutdown()
print(json.dumps({"start_s": start_s, "qps": parsed["qps"], "cpu_us_per_query": cpu}))
`;

async function measureServer(sandboxed, runDir) {
  const python = JSON.parse(runProcessSync('python3', ['-c', 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, *sys.path]))'],
    { extraEnv: { PYTHONPATH: HARNESS_DIR } }).stdout);
  const folders = python.filter((p) => path.isAbsolute(p) && fs.existsSync(p));
  let stdout = '';
  const r = await runProcess(python[0], ['-c', MEASURE, opt.basedir, runDir, opt.seconds, opt.rows], {
    extraEnv: { PYTHONPATH: HARNESS_DIR },
    sandbox: sandboxed ? { readOnly: [HARNESS_DIR, ...folders, opt.basedir], writable: [runDir], cwd: runDir } : null,
    onLine: (line, stream) => { if (stream === 'stdout') stdout += line; else process.stderr.write(`${line}\n`); },
  });
  if (r.code !== 0) throw new Error(`the measurement exited ${r.code}`);
  return JSON.parse(stdout);
}

async function measureBuild(sandboxed, root, n) {
  const cacheDir = path.join(root, `cache-${sandboxed ? 'sandbox' : 'open'}-${n}`);
  const recipeFile = path.join(root, 'tiny-build.yml');
  fs.writeFileSync(recipeFile, RECIPE_FILE);
  const recipe = loadRecipe({ buildConfigs: [recipeFile], cacheDir });
  const started = process.hrtime.bigint();
  await buildCommit({ source: path.join(root, 'fork'), ref: 'base', recipe, cacheDir, env: { ...process.env, PERFGATE_CACHE: cacheDir },
    sandbox: { sandboxed, note: null } });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function bwrapStart(sandboxed) {
  const started = process.hrtime.bigint();
  const r = runProcessSync('true', [], { sandbox: sandboxed ? { cwd: '/' } : null });
  if (r.status !== 0) throw new Error(`true exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

(async () => {
  const probe = probeSandbox();
  if (!probe.available) throw new Error(`no sandbox here: ${probe.why}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-sandbox-bench-'));
  makeFork(root);
  const runs = { open: path.join(root, 'run-open'), sandbox: path.join(root, 'run-sandbox') };
  const rows = { open: [], sandbox: [] };
  try {
    // Initialize and load both datadirs first (not measured).
    for (const [mode, dir] of Object.entries(runs)) await measureServer(mode === 'sandbox', dir);
    for (let i = 0; i < Number(opt.pairs); i++) {
      const order = i % 2 === 0 ? ['open', 'sandbox'] : ['sandbox', 'open'];
      for (const mode of order) {
        const sandboxed = mode === 'sandbox';
        const server = await measureServer(sandboxed, runs[mode]);
        const build = await measureBuild(sandboxed, root, i);
        const spawnMs = median([1, 2, 3, 4, 5].map(() => bwrapStart(sandboxed)));
        rows[mode].push({ ...server, build_s: build, spawn_ms: spawnMs });
        process.stderr.write(`pair ${i + 1} ${mode}: start ${server.start_s.toFixed(2)} s, ${server.qps.toFixed(0)} QPS, cpu/o ${server.cpu_us_per_query.toFixed(1)} us, tiny build ${build.toFixed(1)} s, spawn ${spawnMs.toFixed(1)} ms\n`);
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const summary = {};
  for (const key of ['start_s', 'qps', 'cpu_us_per_query', 'build_s', 'spawn_ms']) {
    const open = median(rows.open.map((r) => r[key]));
    const boxed = median(rows.sandbox.map((r) => r[key]));
    summary[key] = { open, sandbox: boxed, ratio: boxed / open };
  }
  console.log(JSON.stringify({ machine: `${os.cpus().length} CPUs, ${os.cpus()[0].model}`, pairs: Number(opt.pairs), seconds: Number(opt.seconds), rows: Number(opt.rows), medians: summary, runs: rows }, null, 2));
})().catch((err) => { console.error(err); process.exitCode = 1; });
