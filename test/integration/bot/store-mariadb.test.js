'use strict';
// The history store's tests on a real MariaDB server started for this file (see
// test/support/store-contract.js and test/support/mariadb-server.js).
const { storeContract } = require('../../support/store-contract');
const { startMariadb } = require('../../support/mariadb-server');

let server = null;
let count = 0;
storeContract({
  name: 'MariaDB',
  // DOUBLEs come back as text with 16 significant digits (see assertCloseTo).
  floatTolerance: 1e-15,
  async setup() { server = await startMariadb(); },
  async teardown() { if (server) await server.stop(); },
  // A new database per test; every other test connects over TCP, the rest over the socket.
  async fresh() {
    count += 1;
    const { url, socketUrl } = await server.createDatabase(`store_${count}`);
    return count % 2 ? url : socketUrl;
  },
});
