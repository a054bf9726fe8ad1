'use strict';
const net = require('node:net');

/** A TCP port free right now on 127.0.0.1, for a server that cannot be told to pick one. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = { freePort };
