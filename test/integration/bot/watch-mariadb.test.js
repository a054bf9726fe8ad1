'use strict';
// Watching main on a real MariaDB server started for this file (see
// test/support/watch-contract.js and test/support/mariadb-server.js).
const { watchContract } = require('../../support/watch-contract');
const { startMariadb } = require('../../support/mariadb-server');

let server = null;
let count = 0;
watchContract({
  name: 'MariaDB',
  async setup() { server = await startMariadb(); },
  async teardown() { if (server) await server.stop(); },
  async fresh() {
    count += 1;
    return (await server.createDatabase(`watch_${count}`)).url;
  },
});
