'use strict';
// The migrations of watching the main branch (entries of migrations.js's list; a released
// migration never changes).
const { sql } = require('kysely');

const id = (col) => col.primaryKey().autoIncrement();
const json = sql`mediumtext`;

// The columns 0011 gives watch_runs anew (0006's, which stays as released, and the suite after).
function watchRunColumns(table) {
  return table
    .addColumn('id', 'integer', id)
    .addColumn('repo', 'varchar(200)', (c) => c.notNull())
    .addColumn('head_sha', 'varchar(64)', (c) => c.notNull())
    .addColumn('base_sha', 'varchar(64)', (c) => c.notNull())
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('tests', json)
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('installation_id', 'bigint')
    .addColumn('workflow_run_id', 'bigint')
    .addColumn('run_id', 'integer', (c) => c.references('runs.id'))
    .addColumn('detail', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull());
}

// Watching the main branch:
//   regressions gain the last main commit counted as a sighting (a run delivered twice is
//   one sighting) and a note: how it was confirmed, or why a fail was dismissed as noise
//   (status 'noise': nothing filed, said here);
//   watch_runs    each run the bot dispatched for a main commit: the measurement against the
//                 previous main commit with a result, and its re-measurement of the failing
//                 microbenchmarks (purpose 'confirm'); one of each per commit.
const watch = {
  async up(db) {
    await db.schema.alterTable('regressions').addColumn('last_seen_commit_id', 'integer', (c) => c.references('commits.id')).execute();
    await db.schema.alterTable('regressions').addColumn('note', 'text').execute();
    await db.schema.createTable('watch_runs')
      .addColumn('id', 'integer', id)
      .addColumn('repo', 'varchar(200)', (c) => c.notNull())
      .addColumn('head_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('base_sha', 'varchar(64)', (c) => c.notNull())
      .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
      .addColumn('tests', json)
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('installation_id', 'bigint')
      .addColumn('workflow_run_id', 'bigint')
      .addColumn('run_id', 'integer', (c) => c.references('runs.id'))
      .addColumn('detail', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('watch_runs_commit_purpose', ['repo', 'head_sha', 'purpose'])
      .execute();
  },
};

// Watching main with several suites (PERFGATE_WATCH_SUITES): a watch run is one suite's, and a
// commit has a measurement and a re-measurement per suite. The table is made anew (SQLite
// cannot drop a unique constraint), its rows kept as the quick suite's, the one measured then.
const WATCH_RUN_COLUMNS = ['id', 'repo', 'head_sha', 'base_sha', 'purpose', 'tests', 'status', 'installation_id', 'workflow_run_id', 'run_id', 'detail', 'created_at', 'updated_at'];
const watchSuites = {
  async up(db) {
    await watchRunColumns(db.schema.createTable('watch_runs_by_suite'))
      .addColumn('suite', 'varchar(64)', (c) => c.notNull())
      .addUniqueConstraint('watch_runs_commit_purpose_suite', ['repo', 'head_sha', 'purpose', 'suite'])
      .execute();
    await db.insertInto('watch_runs_by_suite').columns([...WATCH_RUN_COLUMNS, 'suite'])
      .expression(db.selectFrom('watch_runs').select([...WATCH_RUN_COLUMNS, sql`'quick'`.as('suite')])).execute();
    await db.schema.dropTable('watch_runs').execute();
    await db.schema.alterTable('watch_runs_by_suite').renameTo('watch_runs').execute();
    await db.schema.createIndex('watch_runs_repo_workflow_run').on('watch_runs').columns(['repo', 'workflow_run_id']).execute();
  },
};

module.exports = { watch, watchSuites };
