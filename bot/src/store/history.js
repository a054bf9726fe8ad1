'use strict';
// The history: webhook deliveries and commands seen (idempotency keys), and the runs with
// their commits, machine, microbenchmarks, rounds and verdicts, stored from perfgate's own
// results.json and verdict.json.
const { sql } = require('kysely');
const { StoreError } = require('./connection');
const { VERDICT_SCHEMA } = require('@perfgate/core');

const SIDES = ['base', 'head'];
// Absolute per-round signals a series can follow, and the judged ratios.
// all_threads_instructions_per_query: each window's queries' own instructions and the
// background work drained after it, summed per window as the verdict's figure of all threads is.
const ROUND_SIGNALS = ['qps', 'cpu_per_query_us', 'cs_per_query', 'instructions_per_query', 'all_threads_instructions_per_query'];
// all_threads_per_query: instructions of the connection threads and the background work they
// left (purge, flushing), which decides a row where it proves more (core's process-pairs.js).
const VERDICT_SIGNALS = ['rqps', 'cpu_per_query', 'cs_per_query', 'instructions_per_query', 'all_threads_per_query'];

const toNumber = (v) => (v === null || v === undefined ? v : Number(v));
const timeOf = (iso) => {
  if (iso === null || iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
};

function required(value, name) {
  if (value === undefined || value === null || value === '') throw new StoreError(`store: missing '${name}'`);
  return value;
}

async function recordDelivery(store, { deliveryId, event, action = null }) {
  return insertOnce(store, store.db, 'deliveries', { delivery_id: String(required(deliveryId, 'deliveryId')) }, {
    event: required(event, 'event'),
    action,
    received_at: store.now(),
  });
}

// A command as the parser returned it, with where it came from. commentId is the key: the
// same comment delivered twice is one request. commentCreatedAt (ms) orders it against pushes;
// installationId is the App installation that received it (requests.js follows its state).
async function recordRequest(store, {
  commentId = null, deliveryId = null, repo, prNumber = null, author = null, command, headSha = null,
  commentCreatedAt = null, installationId = null,
}) {
  const now = store.now();
  const row = {
    delivery_id: deliveryId,
    repo: required(repo, 'repo'),
    pr_number: prNumber,
    author,
    command: required(command && command.name, 'command.name'),
    args: JSON.stringify(command.args || {}),
    line: command.line ?? null,
    head_sha: headSha,
    created_at: now,
    comment_created_at: commentCreatedAt,
    installation_id: installationId,
    updated_at: now,
  };
  if (commentId === null) {
    const r = await store.db.insertInto('requests').values({ comment_id: null, ...row }).executeTakeFirstOrThrow();
    return { id: Number(r.insertId), duplicate: false };
  }
  return insertOnce(store, store.db, 'requests', { comment_id: commentId }, row);
}

// The row with these unique key values: {id, duplicate: true} when it was there, else
// inserted with `row` ({id, duplicate: false}). Another process may insert the same key
// between our look and our insert (on SQLite writers take turns, so only on MySQL/MariaDB):
// InnoDB then rolls back just our statement, and the row the other committed is the answer.
async function insertOnce(store, db, table, key, row = {}) {
  const find = async () => {
    let q = db.selectFrom(table).select('id');
    for (const [k, v] of Object.entries(key)) q = q.where(k, '=', v);
    const seen = await q.executeTakeFirst();
    return seen ? { id: Number(seen.id), duplicate: true } : null;
  };
  const seen = await find();
  if (seen) return seen;
  try {
    const r = await db.insertInto(table).values({ ...key, ...row }).executeTakeFirstOrThrow();
    return { id: Number(r.insertId), duplicate: false };
  } catch (err) {
    const raced = store.behaviour.isUniqueViolation(err) ? await find() : null;
    if (!raced) throw err;
    return raced;
  }
}

const findOrInsert = async (store, tx, table, key, row) => (await insertOnce(store, tx, table, key, row)).id;

async function machineId(store, tx, machine) {
  if (!machine || !machine.id) return null;
  return findOrInsert(store, tx, 'machines', { fingerprint: machine.id }, {
    hardware_class: machine.hardware_class ?? null,
    cpu_model: machine.cpu_model ?? null,
    cores: machine.cores ?? null,
    memory_bytes: machine.memory_bytes ?? null,
    kernel: machine.kernel ?? null,
    details: JSON.stringify(machine),
    first_seen: store.now(),
  });
}

// A commit row, and its place on the main branch when the caller knows it.
async function commitId(store, tx, repo, commit) {
  if (!commit || !commit.sha) return null;
  const id = await findOrInsert(store, tx, 'commits', { repo, sha: commit.sha }, {
    main_seq: commit.mainSeq ?? null,
    committed_at: commit.committedAt ?? null,
    subject: commit.subject ? String(commit.subject).slice(0, 255) : null,
  });
  if (commit.mainSeq !== undefined && commit.mainSeq !== null) {
    await tx.updateTable('commits').set({ main_seq: commit.mainSeq }).where('id', '=', id).execute();
  }
  return id;
}

async function microbenchmarkIds(store, tx, benchmarks) {
  const ids = new Map();
  for (const b of benchmarks) {
    if (ids.has(b.name)) continue;
    ids.set(b.name, await findOrInsert(store, tx, 'microbenchmarks', { name: b.name }, {
      group_name: b.group ?? null, kind: b.kind ?? null, script: b.script ?? null, shape: b.shape ?? null,
    }));
  }
  return ids;
}

function roundRow(benchmarkResultId, r) {
  const latency = r.latency_ms || {};
  return {
    benchmark_result_id: benchmarkResultId,
    side: r.side,
    round_index: r.index,
    started_at: timeOf(r.started),
    seconds: r.seconds ?? null,
    qps: r.qps,
    tps: r.tps ?? null,
    queries: r.queries ?? null,
    latency_avg_ms: latency.avg ?? null,
    latency_p95_ms: latency.p95 ?? null,
    latency_max_ms: latency.max ?? null,
    errors: r.errors ?? null,
    reconnects: r.reconnects ?? null,
    cpu_per_query_us: r.cpu_per_query_us ?? null,
    cs_per_query: r.cs_per_query ?? null,
    instructions_per_query: r.instructions_per_query ?? null,
  };
}

// The callgrind windows of one side (results.json benchmarks[].instructions.<side>.windows).
function instructionWindowRows(benchmarkResultId, instructions) {
  const rows = [];
  for (const side of ['base', 'head']) {
    const windows = (instructions && instructions[side] && instructions[side].windows) || [];
    windows.forEach((w, index) => {
      const perQuery = w.connection && w.connection.per_query;
      if (typeof perQuery !== 'number' || !(perQuery > 0)) return;
      rows.push({
        benchmark_result_id: benchmarkResultId, side, window_index: index, events: w.events ?? null, queries: w.queries ?? null,
        seconds: w.seconds ?? null, per_query: perQuery, background_per_query: (w.background && w.background.per_query) ?? null,
      });
    });
  }
  return rows;
}

function checkDocuments(results, verdict) {
  if (!results || results.schema !== 'perfgate.results/v1') {
    throw new StoreError(`storeRun: results key 'schema' is ${JSON.stringify(results && results.schema)}, expected "perfgate.results/v1"`);
  }
  if (!Array.isArray(results.benchmarks)) throw new StoreError("storeRun: results key 'benchmarks' is not an array");
  if (verdict !== null && verdict !== undefined && verdict.schema !== VERDICT_SCHEMA) {
    throw new StoreError(`storeRun: verdict key 'schema' is ${JSON.stringify(verdict.schema)}, expected "${VERDICT_SCHEMA}"`);
  }
}

// The intervals of one judged item, by signal name.
function intervalsOf(item) {
  const out = [];
  for (const signal of [...VERDICT_SIGNALS, 'gain_ratio']) {
    const i = item[signal];
    if (i && typeof i === 'object' && 'estimate' in i) out.push({ signal, i });
  }
  return out;
}

async function storeVerdict(store, tx, runId, verdict, benchmarkIds, microIds) {
  const r = await tx.insertInto('verdicts').values({
    run_id: runId,
    verdict: verdict.verdict,
    exit_code: verdict.exit_code,
    headline: verdict.headline,
    confidence: verdict.confidence ?? null,
    document: JSON.stringify(verdict),
  }).executeTakeFirstOrThrow();
  const verdictId = Number(r.insertId);
  const items = [
    ...verdict.benchmarks.map((b) => ({ kind: 'benchmark', b, benchmarkResultId: benchmarkIds.get(b.id) ?? null })),
    ...(verdict.ahi || []).map((b) => ({ kind: 'ahi_cell', b, benchmarkResultId: null })),
  ];
  for (const { kind, b, benchmarkResultId } of items) {
    const micro = microIds.get(b.name) ?? await findOrInsert(store, tx, 'microbenchmarks', { name: b.name }, {
      group_name: b.group ?? null, kind: null, script: null, shape: null,
    });
    const item = await tx.insertInto('verdict_items').values({
      verdict_id: verdictId,
      item_key: b.id,
      kind,
      benchmark_result_id: benchmarkResultId,
      microbenchmark_id: micro,
      threads: b.threads ?? null,
      verdict: b.verdict,
      cpu_verdict: b.cpu_verdict ?? null,
      reason: b.reason,
      limit_warn: b.limits ? b.limits.warn : null,
      limit_fail: b.limits ? b.limits.fail : null,
      pairs: b.rounds ? b.rounds.pairs : null,
    }).executeTakeFirstOrThrow();
    const itemId = Number(item.insertId);
    const rows = intervalsOf(b).map(({ signal, i }) => ({
      verdict_item_id: itemId, signal, estimate: i.estimate, low: i.low, high: i.high, n: i.n, sd_log: i.sd_log ?? null,
    }));
    if (rows.length) await tx.insertInto('verdict_intervals').values(rows).execute();
  }
  return verdictId;
}

// storeRun(store, {request, results, verdict}) -> {runId, duplicate}
//   request: {id?, repo?, runKey?, base?: commit, head?: commit}
//     id      the recorded request (command) that asked for the run, if any
//     runKey  idempotency key (e.g. "<workflow run id>/<attempt>"): storing it again is a no-op
//     base, head {sha, mainSeq?, committedAt?, subject?}: the commits measured, when results'
//             sides carry none (mainSeq: position on the main branch, for series)
//   results: perfgate.results/v1 (one document; extensions are already merged by the engine)
//   verdict: perfgate.verdict/v2 judged from those results, or null (run folders' verdicts are
//            read as v2 by core's checkRunFolder)
async function storeRun(store, { request = {}, results, verdict = null }) {
  checkDocuments(results, verdict);
  const repo = request.repo ?? null;
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const storedAs = async () => {
      if (!request.runKey) return null;
      const seen = await tx.selectFrom('runs').select('id').where('run_key', '=', request.runKey).executeTakeFirst();
      return seen ? { runId: Number(seen.id), duplicate: true } : null;
    };
    const before = await storedAs();
    if (before) return before;
    const run = await tx.insertInto('runs').values({
      run_key: request.runKey ?? null,
      request_id: request.id ?? null,
      repo,
      suite: (results.plan && results.plan.suite) || (verdict && verdict.suite) || null,
      status: results.status,
      machine_id: await machineId(store, tx, results.machine),
      started_at: timeOf(results.started),
      finished_at: timeOf(results.finished),
      stored_at: store.now(),
      instructions_unavailable: results.instructions_unavailable ?? null,
      plan: results.plan ? JSON.stringify(results.plan) : null,
    }).executeTakeFirstOrThrow().catch(async (err) => {
      // The same run stored by another process since we looked (MySQL/MariaDB).
      const raced = store.behaviour.isUniqueViolation(err) ? await storedAs() : null;
      if (raced) return raced;
      throw err;
    });
    if (run.duplicate) return run;
    const runId = Number(run.insertId);

    for (const side of SIDES) {
      const s = (results.sides && results.sides[side]) || {};
      const commit = request[side] || (s.commit ? { sha: s.commit } : null);
      if (commit && !repo) throw new StoreError(`storeRun: request key 'repo' is missing: the ${side} commit ${commit.sha} needs its repository`);
      await tx.insertInto('run_sides').values({
        run_id: runId,
        side,
        commit_id: await commitId(store, tx, repo, commit),
        label: s.label ?? null,
        flavor: s.flavor ?? null,
        version: s.version ?? null,
        basedir: s.basedir ?? null,
      }).execute();
    }

    const microIds = await microbenchmarkIds(store, tx, results.benchmarks);
    const benchmarkIds = new Map();
    for (const b of results.benchmarks) {
      const r = await tx.insertInto('benchmark_results').values({
        run_id: runId,
        microbenchmark_id: microIds.get(b.name),
        bench_key: b.id,
        threads: b.threads ?? null,
        ahi: b.ahi ?? null,
        status: b.status,
        error: b.error ? JSON.stringify(b.error) : null,
        command: b.command ?? null,
      }).executeTakeFirstOrThrow();
      const benchmarkResultId = Number(r.insertId);
      benchmarkIds.set(b.id, benchmarkResultId);
      const rounds = (b.rounds || []).map((x) => roundRow(benchmarkResultId, x));
      if (rounds.length) await tx.insertInto('rounds').values(rounds).execute();
      const windows = instructionWindowRows(benchmarkResultId, b.instructions);
      if (windows.length) await tx.insertInto('instruction_windows').values(windows).execute();
    }
    if (verdict) await storeVerdict(store, tx, runId, verdict, benchmarkIds, microIds);
    return { runId, duplicate: false };
  });
}

// Records the main branch's first-parent order: commits[i] = {sha, committedAt?, subject?}
// gets main_seq = firstSeq + i.
async function recordMainline(store, { repo, commits, firstSeq }) {
  required(repo, 'repo');
  if (!Number.isInteger(firstSeq)) throw new StoreError(`recordMainline: 'firstSeq' must be an integer, got ${JSON.stringify(firstSeq)}`);
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    for (const [i, c] of commits.entries()) await commitId(store, tx, repo, { ...c, mainSeq: firstSeq + i });
  });
}

const geometricMean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

// Both series select one microbenchmark on the main branch, in commit order (main_seq), then
// run start. threads and ahi pick one variant (AHI cells run several); machine (a results
// machine.id fingerprint) keeps one runner, since timings of different machines do not compare.
// fromSeq: only commits from that position on (a window of the latest main commits).
function seriesQuery(from, { repo, microbenchmark, machine, threads, ahi, fromSeq }) {
  required(repo, 'repo');
  required(microbenchmark, 'microbenchmark');
  const q = from
    .innerJoin('runs as r', 'r.id', 'br.run_id')
    .innerJoin('microbenchmarks as m', 'm.id', 'br.microbenchmark_id')
    .leftJoin('machines as mc', 'mc.id', 'r.machine_id');
  return (joinCommit) => {
    let out = joinCommit(q).where('c.repo', '=', repo).where('c.main_seq', 'is not', null).where('m.name', '=', microbenchmark);
    if (machine != null) out = out.where('mc.fingerprint', '=', machine);
    if (threads != null) out = out.where('br.threads', '=', threads);
    if (ahi != null) out = out.where('br.ahi', '=', ahi);
    if (fromSeq != null) {
      // The runs of those commits first (commits and run_sides are indexed by them), so that a
      // window of the latest commits reads only its own rounds and intervals, however long the
      // history is.
      out = out.where('c.main_seq', '>=', fromSeq).where('br.run_id', 'in', (eb) => eb.selectFrom('run_sides as ws')
        .innerJoin('commits as wc', 'wc.id', 'ws.commit_id').select('ws.run_id').where('wc.repo', '=', repo).where('wc.main_seq', '>=', fromSeq));
    }
    return out;
  };
}

// mainSeries(store, {repo, microbenchmark, signal, machine?, threads?, ahi?, fromSeq?}) -> points
//   signal: qps | cpu_per_query_us | cs_per_query (per timed round) | instructions_per_query |
//   all_threads_instructions_per_query (per callgrind window)
// Every side of every run whose commit is on main gives a point {seq, sha, runId, side,
// machine, n, value, values}: value is the geometric mean of that side's rounds.
async function mainSeries(store, { signal, ...select }) {
  if (!ROUND_SIGNALS.includes(signal)) {
    throw new StoreError(`mainSeries: unknown signal ${JSON.stringify(signal)}: expected one of ${ROUND_SIGNALS.join(', ')}`);
  }
  // Instructions per query are counted in callgrind windows, apart from the timed rounds.
  const windows = signal.endsWith('instructions_per_query');
  const [table, column, order] = windows ? ['instruction_windows', 'per_query', 'window_index'] : ['rounds', signal, 'round_index'];
  const value = signal === 'all_threads_instructions_per_query'
    ? sql`rd.per_query + coalesce(rd.background_per_query, 0)`.as('value')
    : `rd.${column} as value`;
  const rows = await seriesQuery(store.db.selectFrom(`${table} as rd`)
    .innerJoin('benchmark_results as br', 'br.id', 'rd.benchmark_result_id'), select)((q) => q
    .innerJoin('run_sides as s', (j) => j.onRef('s.run_id', '=', 'r.id').onRef('s.side', '=', 'rd.side'))
    .innerJoin('commits as c', 'c.id', 's.commit_id'))
    .where('br.status', '=', 'ok')
    .where(`rd.${column}`, 'is not', null)
    .select(['c.main_seq as seq', 'c.sha as sha', 'r.id as runId', 'rd.side as side', 'mc.fingerprint as machine', value])
    .orderBy('c.main_seq').orderBy('r.started_at').orderBy('r.id').orderBy('rd.side').orderBy(`rd.${order}`)
    .execute();
  const points = [];
  for (const row of rows) {
    const last = points.at(-1);
    if (last && last.runId === Number(row.runId) && last.side === row.side) {
      last.values.push(Number(row.value));
      continue;
    }
    points.push({ seq: Number(row.seq), sha: row.sha, runId: Number(row.runId), side: row.side,
      machine: row.machine ?? null, values: [Number(row.value)] });
  }
  return points.map((p) => ({ ...p, n: p.values.length, value: geometricMean(p.values) }));
}

// verdictSeries(store, {repo, microbenchmark, signal, machine?, threads?, ahi?, fromSeq?}) -> points
//   signal: rqps | cpu_per_query | cs_per_query | instructions_per_query | all_threads_per_query
//   (judged head/base ratios)
// Every judged run whose head commit is on main gives {seq, sha, runId, machine, estimate, low,
// high, n}.
async function verdictSeries(store, { signal, ...select }) {
  if (!VERDICT_SIGNALS.includes(signal)) {
    throw new StoreError(`verdictSeries: unknown signal ${JSON.stringify(signal)}: expected one of ${VERDICT_SIGNALS.join(', ')}`);
  }
  const rows = await seriesQuery(store.db.selectFrom('verdict_intervals as vi')
    .innerJoin('verdict_items as it', 'it.id', 'vi.verdict_item_id')
    .innerJoin('benchmark_results as br', 'br.id', 'it.benchmark_result_id'), select)((q) => q
    .innerJoin('run_sides as s', (j) => j.onRef('s.run_id', '=', 'r.id').on('s.side', '=', 'head'))
    .innerJoin('commits as c', 'c.id', 's.commit_id')
    // Redundant for the result; it gives the planner an indexed way from the commits to the
    // intervals (run → verdict → items → intervals), so the cost follows the commits asked for.
    .innerJoin('verdicts as v', (j) => j.onRef('v.run_id', '=', 'r.id').onRef('v.id', '=', 'it.verdict_id')))
    .where('vi.signal', '=', signal)
    .select(['c.main_seq as seq', 'c.sha as sha', 'r.id as runId', 'mc.fingerprint as machine',
      'vi.estimate', 'vi.low', 'vi.high', 'vi.n'])
    .orderBy('c.main_seq').orderBy('r.started_at').orderBy('r.id')
    .execute();
  return rows.map((r) => ({
    seq: Number(r.seq), sha: r.sha, runId: Number(r.runId), machine: r.machine ?? null,
    estimate: toNumber(r.estimate), low: toNumber(r.low), high: toNumber(r.high), n: Number(r.n),
  }));
}

async function recordWaiver(store, { requestId = null, repo, prNumber, microbenchmark, reason, author = null }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const micro = await findOrInsert(store, tx, 'microbenchmarks', { name: required(microbenchmark, 'microbenchmark') },
      { group_name: null, kind: null, script: null, shape: null });
    const r = await tx.insertInto('waivers').values({
      request_id: requestId, repo: required(repo, 'repo'), pr_number: required(prNumber, 'prNumber'),
      microbenchmark_id: micro, reason: required(reason, 'reason'), author, created_at: store.now(),
    }).executeTakeFirstOrThrow();
    return { id: Number(r.insertId) };
  });
}

async function waiversFor(store, { repo, prNumber }) {
  const rows = await store.db.selectFrom('waivers as w').innerJoin('microbenchmarks as m', 'm.id', 'w.microbenchmark_id')
    .select(['w.id', 'm.name as microbenchmark', 'w.reason', 'w.author', 'w.request_id as requestId', 'w.created_at as createdAt'])
    .where('w.repo', '=', repo).where('w.pr_number', '=', prNumber).orderBy('w.id').execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), createdAt: Number(r.createdAt), requestId: toNumber(r.requestId) }));
}

module.exports = {
  // commitId and findOrInsert are shared with the other history modules (regressions.js).
  commitId, findOrInsert,
  recordDelivery, recordRequest, storeRun, recordMainline, mainSeries, verdictSeries, recordWaiver, waiversFor,
  ROUND_SIGNALS, VERDICT_SIGNALS,
};
