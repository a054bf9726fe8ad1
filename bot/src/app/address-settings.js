'use strict';
// The network addresses in the bot's settings: the CIDR blocks webhooks may come from
// (PERFGATE_WEBHOOK_SOURCES) and the host names the dashboard answers for
// (PERFGATE_DASHBOARD_HOSTS), each read into the form the HTTP server checks against.
const net = require('node:net');
const { hostnameOf } = require('./http-server');

// One CIDR block {address, prefix, family}, or null when it is not one.
function cidrBlock(text) {
  const m = /^([0-9A-Fa-f.:]+)\/(\d{1,3})$/.exec(text);
  if (!m) return null;
  const family = net.isIPv4(m[1]) ? 'ipv4' : net.isIPv6(m[1]) ? 'ipv6' : null;
  const prefix = Number(m[2]);
  if (!family || prefix > (family === 'ipv4' ? 32 : 128)) return null;
  return { address: m[1], prefix, family };
}

// A host name as the Host header carries it, without port: IPv6 addresses with or without brackets.
function dashboardHostName(name) {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  return hostnameOf(bare.includes(':') ? `[${bare}]` : bare);
}

// The dashboard's host names when none are set: loopback, and the address it listens on
// unless that is every address.
function defaultDashboardHosts(listenHost) {
  const names = ['localhost', '127.0.0.1', '::1'];
  const own = dashboardHostName(listenHost);
  if (own && !['0.0.0.0', '::'].includes(own) && !names.includes(own)) names.push(own);
  return names;
}

module.exports = { cidrBlock, dashboardHostName, defaultDashboardHosts };
