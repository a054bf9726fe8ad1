'use strict';
// Release tags as a fork names them: a prefix and a dotted version, maybe with a build number
// (mariadb-10.11.19, mysql-8.0.40, Percona-Server-8.0.40-31, v1.2.3, 10.11.19). The previous
// release of a candidate is the highest version below it among the tags of the same prefix.
// Pure: tag names in, a name or a reason out.

const RELEASE_TAG = /^(.*?)(\d+(?:\.\d+)+)(?:-(\d+))?$/;
const SHA = /^[0-9a-f]{40}$/;

/** {prefix, version: [numbers]} of a release tag name, or null when the name carries no version. */
function releaseOf(name) {
  const m = RELEASE_TAG.exec(String(name));
  if (!m) return null;
  const version = m[2].split('.').map(Number);
  if (m[3] !== undefined) version.push(Number(m[3]));
  return { prefix: m[1], version };
}

function compareVersions(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d) return d;
  }
  return 0;
}

/**
 * The release before `candidate` among `tagNames`.
 * @returns {previous: name} or {problem: sentence saying what is needed}
 */
function previousRelease(candidate, tagNames) {
  const release = releaseOf(candidate);
  const example = '`/perf signoff mariadb-10.11.19 vs mariadb-10.11.18`';
  if (SHA.test(candidate) || !release) {
    return { problem: `\`${candidate}\` is not a release tag (a name ending in a version, such as mariadb-10.11.19), so I cannot tell which release came before it: name the previous release with \`vs <previous>\`, e.g. ${example}` };
  }
  const earlier = tagNames
    .map((name) => ({ name, r: releaseOf(name) }))
    .filter(({ r }) => r && r.prefix === release.prefix && compareVersions(r.version, release.version) < 0)
    .sort((a, b) => compareVersions(b.r.version, a.r.version));
  if (!earlier.length) {
    return { problem: `no release tag named \`${release.prefix}<version>\` comes before \`${candidate}\`: name the previous release with \`vs <previous>\`, e.g. ${example}` };
  }
  return { previous: earlier[0].name };
}

module.exports = { releaseOf, compareVersions, previousRelease };
