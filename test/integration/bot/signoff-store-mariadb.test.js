'use strict';
// The sign-off tables on a real MariaDB server started for this file (see
// test/support/signoff-store-contract.js and test/support/mariadb-server.js).
const { signoffStoreContract } = require('../../support/signoff-store-contract');
const { startMariadb } = require('../../support/mariadb-server');

let server = null;
signoffStoreContract({
  name: 'MariaDB',
  async setup() { server = await startMariadb(); },
  async teardown() { if (server) await server.stop(); },
  async fresh() { return (await server.createDatabase('signoffs')).url; },
});
