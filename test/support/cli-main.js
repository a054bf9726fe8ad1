'use strict';
// The command line's main() run in this process, as the CLI tests drive it: what it wrote to
// stdout and stderr, and its exit code.
const { main } = require('../../cli/src/main');

/** A writable that keeps what is written. */
function sink() {
  let text = '';
  return { write: (s) => { text += s; }, get text() { return text; } };
}

/** perfgate <args> with `env` as its environment, in `cwd` when given. */
async function runMain(args, { env = {}, cwd = null } = {}) {
  const io = { stdout: sink(), stderr: sink(), env };
  const before = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await main(args, io);
    return { code, stdout: io.stdout.text, stderr: io.stderr.text };
  } finally {
    if (cwd) process.chdir(before);
  }
}

module.exports = { sink, runMain };
