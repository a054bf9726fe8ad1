'use strict';
// What a report must say about where its rows were measured: `.pre` rows beside their twins,
// and whether the verdict covers one shard, merged shards, or a partial merge. Shared by every
// renderer so that they say it the same way. Pure.
const { isPre, twinName, shardList } = require('../shards');

// Rows in their order, except that a `.pre` row moves next to its twin (the same name without
// `.pre`, at the same thread count), just before it, as the posts' tables show them.
function preNextToTwin(rows) {
  const key = (b) => `${twinName(b.name)}@${b.threads ?? ''}`;
  const pre = new Map(rows.filter((b) => isPre(b.name)).map((b) => [key(b), b]));
  const twinned = new Set(rows.filter((b) => !isPre(b.name) && pre.has(key(b))).map(key));
  const out = [];
  for (const b of rows) {
    if (isPre(b.name)) {
      if (!twinned.has(key(b))) out.push(b);
    } else {
      if (twinned.has(key(b))) out.push(pre.get(key(b)));
      out.push(b);
    }
  }
  return out;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// Sentences (plain text) saying what the rows cover; empty for an ordinary run.
function scopeNotes(verdict) {
  const notes = [];
  const run = verdict.run || {};
  if (verdict.benchmarks.some((b) => isPre(b.name))) {
    notes.push('Rows named .pre ran on freshly loaded tables, before the writes; the row after each, the same name without .pre, ran after the writes.');
  }
  if (run.shard) {
    notes.push(`Shard ${run.shard.index} of ${run.shard.count}: ${verdict.benchmarks.length} of the suite's ${run.shard.benchmarks_in_suite} microbenchmarks, on tables loaded for this shard; perfgate merge joins the shards into one report.`);
  }
  const s = run.shards;
  if (s) {
    const hosts = [...new Set(s.merged.map((p) => p.hostname).filter(Boolean))];
    const machines = new Set(s.merged.map((p) => p.machine_id).filter(Boolean)).size;
    const where = hosts.length ? ` on ${plural(machines || hosts.length, 'runner')} (${hosts.join(', ')})` : '';
    notes.push(`Merged from ${s.merged.length} of ${s.count} shards${where}, each on tables loaded for that shard: ${s.merged.map((p) => `${p.index}/${s.count} from ${p.folder}`).join(', ')}.`);
    if (s.missing.length) {
      notes.push(`PARTIAL: ${shardList(s.missing, s.count)} ${s.missing.length === 1 ? 'is' : 'are'} missing; not measured: ${s.not_measured.join(', ')}.`);
    }
  }
  return notes;
}

module.exports = { plural, preNextToTwin, scopeNotes };
