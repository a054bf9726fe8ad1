'use strict';
// Secrets in the bot's settings, kept out of sight: key material given where a path belongs is
// recognised (and refused by config.js without being shown), and the files that hold secrets —
// the App's private key, a --config file with the webhook secret, the Jira token or a database
// password — must be readable by their owner only.
const fs = require('node:fs');
const path = require('node:path');
const { UsageError } = require('@perfgate/core');
const { redact } = require('../store/connection');

// Key material pasted where a path belongs (PERFGATE_PRIVATE_KEY_FILE="$(cat app.pem)").
function looksLikeKey(value) {
  return /-----BEGIN|PRIVATE KEY|[\r\n]/.test(String(value));
}

// The settings whose values give away the App or its store.
const SECRET_KEYS = ['PERFGATE_WEBHOOK_SECRET', 'PERFGATE_JIRA_TOKEN', 'PERFGATE_PRIVATE_KEY_FILE', 'PERFGATE_DATABASE_URL'];

function holdsSecret(key, value) {
  if (key === 'PERFGATE_DATABASE_URL') return redact(String(value)) !== String(value);
  if (key === 'PERFGATE_PRIVATE_KEY_FILE') return looksLikeKey(value);
  return true;
}

/**
 * Files holding secrets readable by group or others (by mode; POSIX only): a refusal, or with
 * PERFGATE_SECRET_FILES=warn the warnings to log. -> [warning]
 */
function secretFileModes({ keyFile, file, fromFile, policy }) {
  const exposed = [];
  const check = (what, name) => {
    let mode;
    try {
      mode = fs.statSync(name).mode & 0o777;
    } catch {
      return;
    }
    if (mode & 0o077) exposed.push(`${name}: ${what} is readable or writable by group or others (mode ${mode.toString(8).padStart(4, '0')}); expected mode 0600 (chmod 600 '${name}')`);
  };
  if (process.platform === 'win32') return [];
  check("the App's private key", keyFile);
  const secrets = Object.entries(fromFile).filter(([key, value]) => SECRET_KEYS.includes(key) && value !== null && value !== undefined && holdsSecret(key, value)).map(([key]) => key);
  if (file && secrets.length) check(`the config file holding ${secrets.join(', ')}`, path.resolve(file));
  if (!exposed.length) return [];
  if (policy === 'warn') return exposed.map((line) => `${line}; started anyway (PERFGATE_SECRET_FILES=warn)`);
  throw new UsageError(`${exposed[0]}, or set PERFGATE_SECRET_FILES=warn to start anyway`);
}

module.exports = { looksLikeKey, secretFileModes };
