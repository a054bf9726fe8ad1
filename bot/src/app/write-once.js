'use strict';
// The one place where a write that makes something new on GitHub (a workflow run, a comment, a
// check run, an issue) is sent again. Its answer can be lost after GitHub carried it out (a 502
// from a proxy, a connection reset, a timeout), so before it is sent again the bot looks for
// what it would make by the write's own id: the run-name the workflow carries, the reply's
// hidden marker, the check run's external_id, the marker. Octokit's retry plugin never
// retries these writes (github.js, WRITE_ONCE_ROUTES); a job run again after a crash comes here
// with lookFirst. A write GitHub refused (4xx) was not carried out and is thrown as it is.

/** True when GitHub may have carried out a write whose call failed with `error`. */
function mayHaveHappened(error) {
  if (!error || error.name === 'AbortError') return false;
  const status = error.status;
  // No answer at all (reset, timeout: Octokit says 500), or a 5xx after the write reached GitHub.
  return !Number.isInteger(status) || status >= 500;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * @param spec {find: async () => what the write made, or null;
 *              write: async () => what it made;
 *              lookFirst: look before the first write too;
 *              tries: writes at most in this call (then the error is thrown: the job is tried
 *              again later, looking first); pauseMs(n): the wait before looking after failure n;
 *              what: words for the log; log: {warn}}
 * @returns what find or write returned
 */
async function writeOnce({ find, write, lookFirst = false, tries = 3, pauseMs = (n) => 1000 * n * n, what = 'a write', log = null }) {
  if (lookFirst) {
    const found = await find();
    if (found) return found;
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      if (!mayHaveHappened(err) || attempt >= tries) throw err;
      if (log) log.warn(`${what}: ${err.status || err.name} ${String(err.message).split('\n')[0]}; looking for it before sending it again`);
    }
    await sleep(pauseMs(attempt));
    const found = await find();
    if (found) return found;
  }
}

module.exports = { writeOnce, mayHaveHappened };
