'use strict';
// What a bug report's verification team asks for: each side's compiler and cmake options and
// the sysbench version, in the comment's details and report.html.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const { assertValid } = require('../../../core/src/schemas');
const R = require('../../../core/src/render');
const { capturedResults, loadResults } = require('../../support/captured-results');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const DEBIAN = {
  version_line: 'mariadbd  Ver 10.11.18-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)',
  compiler: null, compiler_from: null, cmake_options: null, cmake_from: null,
  unknown: 'the compiler (.comment section stripped, as distribution packages do); the cmake options (no build.json of perfgate build beside the prefix)',
};
const BUILT = {
  version_line: 'mariadbd  Ver 10.11.18-MariaDB for Linux on x86_64 (Source distribution)',
  compiler: 'GCC: (Debian 12.2.0-14+deb12u1) 12.2.0', compiler_from: '.comment section',
  cmake_options: { CMAKE_BUILD_TYPE: 'RelWithDebInfo', WITH_LIBFMT: 'system', 'CMAKE_CXX_FLAGS_RELWITHDEBINFO': '-O2 -g -DNDEBUG | <b>' },
  cmake_from: 'build.json',
};

function results(base, head) {
  const r = loadResults(capturedResults().find((c) => c.name === 'io-tiny').file);
  r.sides.base.build = base;
  r.sides.head.build = head;
  r.machine.sysbench = '1.0.20';
  return r;
}

test('the comment\'s details name each side\'s build, compiler, cmake options and sysbench', () => {
  const r = results(DEBIAN, { ...BUILT, cmake_options: { ...BUILT.cmake_options, WITH_LIBFMT: 'bundled' } });
  assert.equal(require('../../../core/src/schemas').schemaProblem('results', r), null);
  const v = judge(r, CONFIG);
  assertValid('verdict', v, 'verdict.json');
  const md = R.renderComment(v);
  assert.ok(md.includes('<details><summary>Versions, builds, server options, machine, how to reproduce</summary>'));
  assert.ok(md.includes('| version line | mariadbd  Ver 10.11.18-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12) | mariadbd  Ver 10.11.18-MariaDB for Linux on x86_64 (Source distribution) |'));
  assert.ok(md.includes('| compiler | not recorded | GCC: (Debian 12.2.0-14+deb12u1) 12.2.0 |'));
  assert.ok(md.includes('Not known for the base: the compiler (.comment section stripped, as distribution packages do); the cmake options (no build.json of perfgate build beside the prefix).'));
  assert.ok(md.includes('cmake options (from the build record of perfgate build):'));
  // A value from a build record cannot break the table.
  assert.ok(md.includes('| **CMAKE_CXX_FLAGS_RELWITHDEBINFO** | – | \\-O2 -g -DNDEBUG \\| \\<b> |'));
  assert.ok(md.includes('- sysbench: `1.0.20`'));
  const html = R.renderReport(v);
  assert.match(html, /<tr><td>compiler<\/td><td>not recorded<\/td><td>GCC: \(Debian 12\.2\.0-14\+deb12u1\) 12\.2\.0<\/td><\/tr>/);
  assert.match(html, /<table data-table="cmake-options">/);
  assert.match(html, /-O2 -g -DNDEBUG \| &lt;b&gt;/);
  assert.doesNotMatch(html, /<b>'/);
  assert.match(html, /<tr><td>sysbench<\/td><td>1\.0\.20<\/td><\/tr>/);
});

test('two builds of perfgate build: the cmake option that differs comes first, in bold', () => {
  const md = R.renderComment(judge(results(BUILT, { ...BUILT, cmake_options: { ...BUILT.cmake_options, WITH_LIBFMT: 'bundled' } }), CONFIG));
  assert.deepEqual(md.split('\n').filter((l) => /^\| \**(WITH_LIBFMT|CMAKE_)/.test(l)), [
    '| **WITH_LIBFMT** | system | bundled |',
    '| CMAKE_BUILD_TYPE | RelWithDebInfo | RelWithDebInfo |',
    '| CMAKE_CXX_FLAGS_RELWITHDEBINFO | \\-O2 -g -DNDEBUG \\| \\<b> | \\-O2 -g -DNDEBUG \\| \\<b> |',
  ]);
  assert.doesNotMatch(md, /Not known for/);
});

test('two Debian packages: one sentence for both, no cmake table', () => {
  const v = judge(results(DEBIAN, { ...DEBIAN, version_line: DEBIAN.version_line.replace('18', '19') }), CONFIG);
  const md = R.renderComment(v);
  assert.ok(md.includes('Not known for either side: the compiler (.comment section stripped, as distribution packages do); the cmake options (no build.json of perfgate build beside the prefix).'));
  assert.doesNotMatch(md, /cmake options \(from/);
});

test('results written before builds were recorded show no build rows', () => {
  const v = judge(loadResults(capturedResults().find((c) => c.name === 'quick-tiny').file), CONFIG);
  assert.doesNotMatch(R.renderComment(v), /\| compiler \||Not known for/);
});

test('a results file whose build record claims more than the schema allows is refused', () => {
  const r = results(DEBIAN, { ...BUILT, cmake_options: { X: ['a', 'b'] } });
  assert.match(require('../../../core/src/schemas').schemaProblem('results', r), /sides\.head\.build\.cmake_options\.X/);
});
