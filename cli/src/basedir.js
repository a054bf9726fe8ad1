'use strict';
// A basedir is an installed server prefix: the folder holding bin/ or sbin/ (with the server
// binary) and share/. Checked before anything is measured or written.
const fs = require('node:fs');
const path = require('node:path');
const { UsageError } = require('@perfgate/core');

const SERVER_BINARIES = ['sbin/mariadbd', 'bin/mariadbd', 'sbin/mysqld', 'bin/mysqld', 'libexec/mysqld'];

function isExecutableFile(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findServerBinary(basedir) {
  return SERVER_BINARIES.map((rel) => path.join(basedir, rel)).find(isExecutableFile) || null;
}

// Returns the absolute basedir; throws a UsageError naming `argument` otherwise.
function checkBasedir(argument, basedir) {
  const abs = path.resolve(basedir);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
    throw new UsageError(`${argument} '${basedir}': no such directory; expected an installed server prefix holding bin/ or sbin/ and share/`);
  }
  if (!findServerBinary(abs)) {
    throw new UsageError(`${argument} '${basedir}': no server binary (looked for ${SERVER_BINARIES.join(', ')}); expected an installed server prefix holding bin/ or sbin/ and share/`);
  }
  return abs;
}

module.exports = { checkBasedir, findServerBinary, SERVER_BINARIES };
