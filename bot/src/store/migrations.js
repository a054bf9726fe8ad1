'use strict';
// The schema, as an ordered list of migrations shared by SQLite and MySQL/MariaDB. A
// migration, once released, never changes: a new column or table is a new entry.
//
// Conventions that keep one schema valid on both databases:
//   times are BIGINT milliseconds since the epoch (no DATETIME time-zone differences);
//   JSON documents are MEDIUMTEXT (TEXT on MySQL stops at 64 KiB; SQLite takes any name);
//   indexed strings are VARCHAR of at most 255 characters (utf8mb4 index key limits);
//   ids are INTEGER autoincrement primary keys.
const { sql } = require('kysely');
const { watch, watchSuites } = require('./migrations-watch');

const id = (col) => col.primaryKey().autoIncrement();
const json = sql`mediumtext`;
const dbl = 'double precision';

const history = {
  async up(db) {
    await db.schema.createTable('deliveries')
      .addColumn('id', 'integer', id)
      .addColumn('delivery_id', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('event', 'varchar(64)', (c) => c.notNull())
      .addColumn('action', 'varchar(64)')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema.createTable('requests')
      .addColumn('id', 'integer', id)
      .addColumn('comment_id', 'bigint', (c) => c.unique())
      .addColumn('delivery_id', 'varchar(64)')
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('pr_number', 'integer')
      .addColumn('author', 'varchar(100)')
      .addColumn('command', 'varchar(32)', (c) => c.notNull())
      .addColumn('args', json, (c) => c.notNull())
      .addColumn('head_sha', 'varchar(64)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema.createTable('machines')
      .addColumn('id', 'integer', id)
      .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('hardware_class', 'varchar(32)')
      .addColumn('cpu_model', 'varchar(255)')
      .addColumn('cores', 'integer')
      .addColumn('memory_bytes', 'bigint')
      .addColumn('kernel', 'varchar(255)')
      .addColumn('details', json)
      .addColumn('first_seen', 'bigint', (c) => c.notNull())
      .execute();

    // main_seq: the commit's position on the repository's main branch (first-parent order);
    // null for commits that are not on it. Series for change-point detection follow it.
    await db.schema.createTable('commits')
      .addColumn('id', 'integer', id)
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('main_seq', 'integer')
      .addColumn('committed_at', 'bigint')
      .addColumn('subject', 'varchar(255)')
      .addUniqueConstraint('commits_repo_sha', ['repo', 'sha'])
      .addUniqueConstraint('commits_repo_main_seq', ['repo', 'main_seq'])
      .execute();

    await db.schema.createTable('microbenchmarks')
      .addColumn('id', 'integer', id)
      .addColumn('name', 'varchar(200)', (c) => c.notNull().unique())
      .addColumn('group_name', 'varchar(32)')
      .addColumn('kind', 'varchar(16)')
      .addColumn('script', 'varchar(100)')
      .addColumn('shape', 'text')
      .execute();

    // run_key: the caller's idempotency key for a run (e.g. the workflow run id and attempt).
    await db.schema.createTable('runs')
      .addColumn('id', 'integer', id)
      .addColumn('run_key', 'varchar(191)', (c) => c.unique())
      .addColumn('request_id', 'integer', (c) => c.references('requests.id'))
      .addColumn('repo', 'varchar(200)')
      .addColumn('suite', 'varchar(64)')
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('machine_id', 'integer', (c) => c.references('machines.id'))
      .addColumn('started_at', 'bigint')
      .addColumn('finished_at', 'bigint')
      .addColumn('stored_at', 'bigint', (c) => c.notNull())
      .addColumn('instructions_unavailable', 'text')
      .addColumn('plan', json)
      .execute();

    await db.schema.createTable('run_sides')
      .addColumn('id', 'integer', id)
      .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('side', 'varchar(8)', (c) => c.notNull())
      .addColumn('commit_id', 'integer', (c) => c.references('commits.id'))
      .addColumn('label', 'varchar(200)')
      .addColumn('flavor', 'varchar(16)')
      .addColumn('version', 'varchar(100)')
      .addColumn('basedir', 'text')
      .addUniqueConstraint('run_sides_run_side', ['run_id', 'side'])
      .execute();

    // One row per benchmark of a run's results; bench_key is the results' benchmark id,
    // which varies with threads and AHI state.
    await db.schema.createTable('benchmark_results')
      .addColumn('id', 'integer', id)
      .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('bench_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('threads', 'integer')
      .addColumn('ahi', 'varchar(8)')
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('command', 'text')
      .addUniqueConstraint('benchmark_results_run_key', ['run_id', 'bench_key'])
      .execute();

    await db.schema.createTable('rounds')
      .addColumn('id', 'integer', id)
      .addColumn('benchmark_result_id', 'integer', (c) => c.notNull().references('benchmark_results.id').onDelete('cascade'))
      .addColumn('side', 'varchar(8)', (c) => c.notNull())
      .addColumn('round_index', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('seconds', dbl)
      .addColumn('qps', dbl, (c) => c.notNull())
      .addColumn('tps', dbl)
      .addColumn('queries', 'bigint')
      .addColumn('latency_avg_ms', dbl)
      .addColumn('latency_p95_ms', dbl)
      .addColumn('latency_max_ms', dbl)
      .addColumn('errors', 'integer')
      .addColumn('reconnects', 'integer')
      .addColumn('cpu_per_query_us', dbl)
      .addColumn('cs_per_query', dbl)
      .addColumn('instructions_per_query', dbl)
      .addUniqueConstraint('rounds_benchmark_side_index', ['benchmark_result_id', 'side', 'round_index'])
      .execute();

    await db.schema.createTable('verdicts')
      .addColumn('id', 'integer', id)
      .addColumn('run_id', 'integer', (c) => c.notNull().unique().references('runs.id').onDelete('cascade'))
      .addColumn('verdict', 'varchar(16)', (c) => c.notNull())
      .addColumn('exit_code', 'integer', (c) => c.notNull())
      .addColumn('headline', 'text', (c) => c.notNull())
      .addColumn('confidence', dbl)
      .addColumn('document', json, (c) => c.notNull())
      .execute();

    // A judged item: a benchmark (benchmark_result_id set) or an AHI cell (gain ratio).
    await db.schema.createTable('verdict_items')
      .addColumn('id', 'integer', id)
      .addColumn('verdict_id', 'integer', (c) => c.notNull().references('verdicts.id').onDelete('cascade'))
      .addColumn('item_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('kind', 'varchar(16)', (c) => c.notNull())
      .addColumn('benchmark_result_id', 'integer', (c) => c.references('benchmark_results.id'))
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('threads', 'integer')
      .addColumn('verdict', 'varchar(16)', (c) => c.notNull())
      .addColumn('cpu_verdict', 'varchar(16)')
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('limit_warn', dbl)
      .addColumn('limit_fail', dbl)
      .addColumn('pairs', 'integer')
      .addUniqueConstraint('verdict_items_verdict_key', ['verdict_id', 'item_key'])
      .execute();

    // One interval per judged signal (rqps, cpu_per_query, cs_per_query, gain_ratio, and
    // instructions_per_query once the engine judges it): a new signal needs no new column.
    await db.schema.createTable('verdict_intervals')
      .addColumn('id', 'integer', id)
      .addColumn('verdict_item_id', 'integer', (c) => c.notNull().references('verdict_items.id').onDelete('cascade'))
      .addColumn('signal', 'varchar(32)', (c) => c.notNull())
      .addColumn('estimate', dbl)
      .addColumn('low', dbl)
      .addColumn('high', dbl)
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('sd_log', dbl)
      .addUniqueConstraint('verdict_intervals_item_signal', ['verdict_item_id', 'signal'])
      .execute();

    await db.schema.createTable('waivers')
      .addColumn('id', 'integer', id)
      .addColumn('request_id', 'integer', (c) => c.references('requests.id'))
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('pr_number', 'integer', (c) => c.notNull())
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('author', 'varchar(100)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema.createIndex('requests_repo_pr').on('requests').columns(['repo', 'pr_number']).execute();
    await db.schema.createIndex('runs_request').on('runs').column('request_id').execute();
    await db.schema.createIndex('run_sides_commit').on('run_sides').column('commit_id').execute();
    await db.schema.createIndex('benchmark_results_micro').on('benchmark_results').columns(['microbenchmark_id', 'threads']).execute();
    await db.schema.createIndex('waivers_repo_pr').on('waivers').columns(['repo', 'pr_number']).execute();
  },
};

// The durable job queue. unique_key makes enqueueing idempotent for good: a key once used
// (even by a finished job) is never queued again.
const queue = {
  async up(db) {
    await db.schema.createTable('jobs')
      .addColumn('id', 'integer', id)
      .addColumn('unique_key', 'varchar(191)', (c) => c.notNull().unique())
      .addColumn('kind', 'varchar(64)', (c) => c.notNull())
      .addColumn('payload', json, (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_by', 'varchar(100)')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();
    await db.schema.createIndex('jobs_status_locked_until').on('jobs').columns(['status', 'locked_until']).execute();
  },
};

// What the GitHub App does with a command: its state, the SHAs it pinned, and the ids of what
// it made on GitHub (reply, check run, workflow run), so that a job run again after a crash
// finds them instead of making them twice.
//   status  received → refused | invalid | answered (no measurement), or
//           received → pinned → dispatching → dispatched → completed | failed;
//           cancelled (a push, /perf cancel) from any of received … dispatched
const requestState = {
  async up(db) {
    const columns = [
      ['status', 'varchar(16)', (c) => c.notNull().defaultTo('received')],
      ['line', 'text'],
      ['suite', 'varchar(64)'],
      ['detail', 'text'],
      ['base_sha', 'varchar(64)'],
      ['installation_id', 'bigint'],
      ['comment_created_at', 'bigint'],
      ['reply_id', 'bigint'],
      ['check_run_id', 'bigint'],
      ['run_id', 'bigint'],
      ['run_url', 'text'],
      ['updated_at', 'bigint'],
    ];
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    for (const [name, type, build] of columns) {
      await db.schema.alterTable('requests').addColumn(name, type, build).execute();
    }
    await db.schema.createIndex('requests_repo_run').on('requests').columns(['repo', 'run_id']).execute();
    await db.schema.createIndex('requests_repo_status').on('requests').columns(['repo', 'status']).execute();
  },
};

// The life of a regression on the main branch and of a release sign-off:
//   change_points  where a series (repo, microbenchmark, signal, machine) moved, as the
//                  change-point detector found it over consecutive main commits;
//   regressions    a confirmed regression, filed once in the tracker: dedupe_key is
//                  repo + microbenchmark + signal + first bad commit; later sightings count
//                  up, a recovery closes it with the fixing commit;
//   signoffs       a release candidate judged against the previous release (full suite);
//   signoff_waivers a microbenchmark a maintainer accepted for one sign-off, who and why.
const lifecycle = {
  async up(db) {
    await db.schema.createTable('change_points')
      .addColumn('id', 'integer', id)
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('bench_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('signal', 'varchar(32)', (c) => c.notNull())
      .addColumn('machine_id', 'integer', (c) => c.references('machines.id'))
      .addColumn('commit_id', 'integer', (c) => c.notNull().references('commits.id'))
      .addColumn('previous_commit_id', 'integer', (c) => c.references('commits.id'))
      .addColumn('mean_before', dbl)
      .addColumn('mean_after', dbl)
      .addColumn('ratio', dbl)
      .addColumn('pvalue', dbl)
      .addColumn('method', 'varchar(64)', (c) => c.notNull())
      .addColumn('detected_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('change_points_series_commit', ['repo', 'bench_key', 'signal', 'machine_id', 'commit_id'])
      .execute();
    await db.schema.createTable('regressions')
      .addColumn('id', 'integer', id)
      .addColumn('dedupe_key', 'varchar(191)', (c) => c.notNull().unique())
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('bench_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('signal', 'varchar(32)', (c) => c.notNull())
      .addColumn('first_bad_commit_id', 'integer', (c) => c.notNull().references('commits.id'))
      .addColumn('last_good_commit_id', 'integer', (c) => c.references('commits.id'))
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('estimate', dbl)
      .addColumn('low', dbl)
      .addColumn('high', dbl)
      .addColumn('tracker', 'varchar(16)')
      .addColumn('issue_key', 'varchar(100)')
      .addColumn('issue_url', 'text')
      .addColumn('sightings', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('opened_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('closed_at', 'bigint')
      .addColumn('fixed_by_commit_id', 'integer', (c) => c.references('commits.id'))
      .addColumn('document', json)
      .execute();
    await db.schema.createTable('signoffs')
      .addColumn('id', 'integer', id)
      .addColumn('request_id', 'integer', (c) => c.unique().references('requests.id'))
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('candidate_ref', 'varchar(255)')
      .addColumn('candidate_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('previous_ref', 'varchar(255)')
      .addColumn('previous_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('state', 'varchar(16)')
      .addColumn('workflow_run_id', 'bigint')
      .addColumn('run_id', 'integer', (c) => c.references('runs.id'))
      .addColumn('summary', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createTable('signoff_waivers')
      .addColumn('id', 'integer', id)
      .addColumn('signoff_id', 'integer', (c) => c.notNull().references('signoffs.id').onDelete('cascade'))
      .addColumn('microbenchmark_id', 'integer', (c) => c.notNull().references('microbenchmarks.id'))
      .addColumn('request_id', 'integer', (c) => c.references('requests.id'))
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('author', 'varchar(100)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('signoff_waivers_signoff_micro', ['signoff_id', 'microbenchmark_id'])
      .execute();
    await db.schema.createIndex('regressions_repo_status').on('regressions').columns(['repo', 'status']).execute();
    await db.schema.createIndex('change_points_repo_series').on('change_points').columns(['repo', 'bench_key', 'signal']).execute();
    await db.schema.createIndex('signoffs_repo_candidate').on('signoffs').columns(['repo', 'candidate_sha']).execute();
  },
};

// A /perf bisect and what came of it: one row per command (request_id), created when the
// bot dispatches the bisection; progress_steps is the count of steps the bot last showed
// (progress artifacts only move it forward); at the end the outcome, the culprit and its
// first parent, the steps and the whole bisect.json as the run left it (checked).
const bisections = {
  async up(db) {
    await db.schema.createTable('bisections')
      .addColumn('id', 'integer', id)
      .addColumn('request_id', 'integer', (c) => c.notNull().unique().references('requests.id'))
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('pr_number', 'integer')
      .addColumn('good_ref', 'varchar(255)')
      .addColumn('good_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('bad_ref', 'varchar(255)')
      .addColumn('bad_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('tests', json, (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('workflow_run_id', 'bigint')
      .addColumn('progress_steps', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('culprit_sha', 'varchar(64)')
      .addColumn('culprit_parent_sha', 'varchar(64)')
      .addColumn('message', 'text')
      .addColumn('steps', json)
      .addColumn('document', json)
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('bisections_repo_culprit').on('bisections').columns(['repo', 'culprit_sha']).execute();
  },
};

// What a release sign-off needs beyond 0004's row: the conversation it was asked in (an issue
// or a pull request: /perf waive there applies to its latest sign-off), the reply that carries
// the report (edited when a waiver changes the decision), the merged verdict the decision is
// taken from again after each waiver, and why a run gave no verdict.
const signoff = {
  async up(db) {
    const columns = [
      ['issue_number', 'integer'],
      ['reply_id', 'bigint'],
      ['run_url', 'text'],
      ['verdict', json],
      ['failure', 'text'],
    ];
    for (const [name, type] of columns) await db.schema.alterTable('signoffs').addColumn(name, type).execute();
    await db.schema.createIndex('signoffs_repo_issue').on('signoffs').columns(['repo', 'issue_number']).execute();
  },
};

// The instruction windows counted under callgrind beside the timed rounds (results.json
// benchmarks[].instructions.<side>.windows): instructions per query of the connection threads
// per window, the absolute series of main that the judged ratios alone do not give.
const instructionWindows = {
  async up(db) {
    await db.schema.createTable('instruction_windows')
      .addColumn('id', 'integer', id)
      .addColumn('benchmark_result_id', 'integer', (c) => c.notNull().references('benchmark_results.id').onDelete('cascade'))
      .addColumn('side', 'varchar(8)', (c) => c.notNull())
      .addColumn('window_index', 'integer', (c) => c.notNull())
      .addColumn('events', 'bigint')
      .addColumn('queries', 'bigint')
      .addColumn('seconds', dbl)
      .addColumn('per_query', dbl, (c) => c.notNull())
      .addColumn('background_per_query', dbl)
      .addUniqueConstraint('instruction_windows_benchmark_side_index', ['benchmark_result_id', 'side', 'window_index'])
      .execute();
  },
};

// The heads a pull request has had, as its opened, reopened and synchronize deliveries said,
// each with the time the delivery stamps on it (the pull request's updated_at then): what a
// maintainer's /perf approves is pinned from these, as of the comment (app/approval.js). And the
// watch runs found by the workflow run id recorded at dispatch.
const pullHeads = {
  async up(db) {
    await db.schema.createTable('pull_heads')
      .addColumn('id', 'integer', id)
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('pr_number', 'integer', (c) => c.notNull())
      .addColumn('sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('action', 'varchar(32)', (c) => c.notNull())
      .addColumn('delivery_id', 'varchar(64)')
      .addColumn('recorded_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('pull_heads_pr_sha_at', ['repo', 'pr_number', 'sha', 'at'])
      .execute();
    await db.schema.createIndex('watch_runs_repo_workflow_run').on('watch_runs').columns(['repo', 'workflow_run_id']).execute();
  },
};

// A row the health check writes: a store that takes no writes refuses every delivery, and
// /healthz must say so (app/service.js).
const heartbeat = {
  async up(db) {
    await db.schema.createTable('heartbeat').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('at', 'bigint', (c) => c.notNull()).execute();
  },
};

// A sign-off of several suites (the full suite, DDL, TPC-C: PERFGATE_SIGNOFF_SUITES): the suites
// it measures, and each one's judged verdict, or why it has none. A sign-off made before this
// has neither and is read as one of the full suite (store/signoffs.js).
const signoffSuites = {
  async up(db) {
    await db.schema.alterTable('signoffs').addColumn('suites', 'varchar(600)').execute();
    await db.schema.alterTable('signoffs').addColumn('verdicts', json).execute();
  },
};

const MIGRATIONS = Object.freeze({
  '0001_history': history,
  '0002_queue': queue,
  '0003_request_state': requestState,
  '0004_lifecycle': lifecycle,
  '0005_bisections': bisections,
  '0006_watch': watch,
  '0007_signoff': signoff,
  '0008_instruction_windows': instructionWindows,
  '0009_pull_heads': pullHeads,
  '0010_heartbeat': heartbeat,
  '0011_watch_suites': watchSuites,
  '0012_signoff_suites': signoffSuites,
});

const provider = { getMigrations: async () => MIGRATIONS };

module.exports = { MIGRATIONS, provider, LATEST: Object.keys(MIGRATIONS).at(-1) };
