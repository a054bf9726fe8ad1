'use strict';
// Every real captured results.json under test/fixtures/results/: folders holding a
// results.json, and results files saved directly in that folder.
const fs = require('node:fs');
const path = require('node:path');

const DIR = path.join(__dirname, '../fixtures/results');

function capturedResults() {
  const out = [];
  for (const entry of fs.readdirSync(DIR).sort()) {
    const full = path.join(DIR, entry);
    if (fs.statSync(full).isDirectory()) {
      if (fs.existsSync(path.join(full, 'results.json'))) out.push({ name: entry, file: path.join(full, 'results.json') });
    } else if (entry.endsWith('.json')) {
      out.push({ name: entry.replace(/\.json$/, ''), file: full });
    }
  }
  return out;
}

const loadResults = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

module.exports = { capturedResults, loadResults, DIR };
