'use strict';
// The server flavours perfgate knows, and the profile (thresholds/profiles/<name>.cnf) each one
// runs with unless a suite names another. The harness tells them apart by `mysqld --version`.
// Percona Server is MySQL with additions: the options that matter here are MySQL's, so it
// shares mysql.cnf (binary log off, redo log sized by innodb_redo_log_capacity).
const FLAVORS = ['mariadb', 'mysql', 'percona'];
const DEFAULT_PROFILES = { mariadb: 'mariadb', mysql: 'mysql', percona: 'mysql' };

module.exports = { FLAVORS, DEFAULT_PROFILES };
