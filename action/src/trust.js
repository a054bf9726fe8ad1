// Who may have their code built and run on a self-hosted runner. Pure: the pull request and
// the author's permission in, a decision out. The gate job takes it before anything is checked
// out; the measure job takes it again before it builds.
//
// The rule:
//   trusted   the head branch lives in the repository itself (not a fork) AND the pull
//             request's author has write access to it (admin, maintain or write);
//   approved  otherwise, the run carries approved-sha (a maintainer's /perf command, pinned by
//             the bot) equal to the head SHA it checks out, and the pull request's head is
//             still that commit;
//   refused   anything else: nothing is checked out, built or run.
//
// `head.repo.fork` is not the test for "from a fork": a fork of MariaDB is itself a fork, so
// every pull request inside it has head.repo.fork = true. What counts is whether the head
// repository is this repository. A deleted fork leaves head.repo null: a fork.

// What GitHub's collaborator-permission endpoint answers for roles that may push
// (maintain is reported as write).
const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

/**
 * The facts the decision needs, from a pull_request event payload's `pull_request` or a
 * pulls/get answer (same shape).
 */
export function pullRequestFacts(pull) {
  const baseRepo = pull.base?.repo?.full_name ?? null;
  const headRepo = pull.head?.repo?.full_name ?? null;
  return {
    number: pull.number,
    author: pull.user?.login ?? null,
    authorAssociation: pull.author_association ?? null,
    headRepository: headRepo,
    baseRepository: baseRepo,
    sameRepository: Boolean(headRepo && baseRepo && headRepo.toLowerCase() === baseRepo.toLowerCase()),
    headSha: pull.head?.sha ?? null,
    baseSha: pull.base?.sha ?? null,
    baseRef: pull.base?.ref ?? null,
    defaultBranch: pull.base?.repo?.default_branch ?? null,
  };
}

/** Whether the decision needs the author's permission (one REST call): only for same-repository heads. */
export function needsAuthorPermission(facts) {
  return facts.sameRepository;
}

const short = (sha) => (sha ? sha.slice(0, 12) : '(none)');

/**
 * @param facts           pullRequestFacts(pull): the pull request as GitHub has it now
 * @param authorPermission 'admin' | 'write' | 'read' | 'none' | null (null: not looked up)
 * @param headSha         the commit this run would check out and build
 * @param approvedSha     the commit a maintainer approved, or null
 * @returns {allowed, reason: trusted|approved|needs-approval|approval-mismatch|head-moved, why}
 */
export function decideTrust({ facts, authorPermission, headSha, approvedSha }) {
  const mayPush = WRITE_PERMISSIONS.has(authorPermission);
  if (facts.sameRepository && mayPush) {
    return { allowed: true, reason: 'trusted', why: `the head branch is in ${facts.baseRepository} and ${facts.author} has ${authorPermission} access` };
  }
  const who = facts.sameRepository
    ? `${facts.author} has ${authorPermission || 'no'} access to ${facts.baseRepository} (write is needed)`
    : `the head branch is in ${facts.headRepository || 'a deleted fork'}, not in ${facts.baseRepository}`;
  if (!approvedSha) {
    return { allowed: false, reason: 'needs-approval', why: `${who}, and no maintainer has approved head ${short(headSha)}` };
  }
  if (approvedSha !== headSha) {
    return { allowed: false, reason: 'approval-mismatch', why: `${who}; the approval is for ${short(approvedSha)}, but this run would check out ${short(headSha)}` };
  }
  if (facts.headSha !== approvedSha) {
    return { allowed: false, reason: 'head-moved', why: `${who}; ${short(approvedSha)} was approved, but the pull request's head has since moved to ${short(facts.headSha)}, which no maintainer has approved` };
  }
  return { allowed: true, reason: 'approved', why: `${who}; a maintainer approved head ${short(approvedSha)}` };
}

/**
 * A commit of the default branch (the watch workflow: no pull request). Pushes to the default
 * branch are trusted, so its own commits may be built: the run must be on the default branch
 * (the workflow file main's maintainers reviewed) and the head must be on it.
 * @param ref            GITHUB_REF of the run
 * @param defaultBranch  the repository's default branch
 * @param headSha        the commit this run would build
 * @param headOnBranch   whether headSha is an ancestor of (or is) the checked-out default branch
 * @returns {allowed, reason: trusted-branch|not-default-branch|not-on-branch, why}
 */
export function decideMainCommitTrust({ ref, defaultBranch, headSha, headOnBranch }) {
  if (!defaultBranch || ref !== `refs/heads/${defaultBranch}`) {
    return { allowed: false, reason: 'not-default-branch', why: `no pull request, and the run is on ${ref || 'no ref'}, not on the default branch ${defaultBranch || '(unknown)'}: only the default branch's own commits are measured without one` };
  }
  if (!headOnBranch) {
    return { allowed: false, reason: 'not-on-branch', why: `no pull request, and head ${short(headSha)} is not a commit of ${defaultBranch}` };
  }
  return { allowed: true, reason: 'trusted-branch', why: `head ${short(headSha)} is a commit of the default branch ${defaultBranch}, whose pushes are trusted` };
}

/**
 * A release pair (the sign-off workflow: no pull request). Only the repository's writers push
 * tags, so a commit a tag points at is release code they published: both the candidate (head)
 * and the previous release (base) must be such commits. The run itself must be on the default
 * branch (a dispatch by the bot) or on a tag (a pushed release tag): a workflow file its
 * maintainers published.
 * @param ref            GITHUB_REF of the run
 * @param defaultBranch  the repository's default branch
 * @param head, base     {sha, tags, present}: the commit, the tags of this checkout that point at
 *                       it, and whether the checkout has it at all
 * @returns {allowed, reason: trusted-release|not-release-run|missing|untagged, why}
 */
export function decideReleaseTrust({ ref, defaultBranch, head, base }) {
  const onDefault = Boolean(defaultBranch) && ref === `refs/heads/${defaultBranch}`;
  if (!onDefault && !(ref || '').startsWith('refs/tags/')) {
    return { allowed: false, reason: 'not-release-run', why: `a release sign-off runs on the default branch ${defaultBranch || '(unknown)'} or on a release tag, not on ${ref || 'no ref'}` };
  }
  for (const [side, role] of [[head, 'candidate'], [base, 'previous release']]) {
    if (side.present === false) {
      return { allowed: false, reason: 'missing', why: `the ${role} ${short(side.sha)} is not in the checkout: expected actions/checkout with fetch-depth: 0 (all history and tags)` };
    }
    if (!side.tags.length) {
      return { allowed: false, reason: 'untagged', why: `the ${role} ${short(side.sha)} is not a commit any tag of this repository points at: only tagged releases are measured without a pull request` };
    }
  }
  return { allowed: true, reason: 'trusted-release', why: `candidate ${short(head.sha)} (tag ${head.tags.join(', ')}) and previous release ${short(base.sha)} (tag ${base.tags.join(', ')}) are tagged releases of this repository` };
}

/**
 * The base a pull request's run measures against. Its limits are read from the base commit, so a
 * base other than the pull request's would let whoever dispatches the run choose the limits
 * (a commit whose perfgate/thresholds they loosened): only the pull request's base commit as
 * GitHub reports it, or an earlier commit of its base branch (a /perf rerun pinned before the
 * base branch moved on), is measured against.
 * @param baseRef   input base-ref ('' or null: the pull request's base commit)
 * @param facts     pullRequestFacts: baseSha, baseRef (the base branch), number
 * @param relation  how base-ref stands to facts.baseSha (GitHub's compare of base-ref...baseSha:
 *                  identical, ahead, behind, diverged, or 'not found'), null when not asked
 * @returns {baseRef: what to measure against, problem: null or why base-ref is refused}
 */
export function decideBase({ baseRef, facts, relation }) {
  if (!baseRef || baseRef === facts.baseSha) return { baseRef: facts.baseSha, problem: null };
  // ahead: the pull request's base commit is ahead of base-ref, i.e. base-ref is its ancestor.
  if (relation === 'identical' || relation === 'ahead') return { baseRef, problem: null };
  const stands = relation ? `GitHub's compare with it: ${relation}` : 'not compared';
  return {
    baseRef: null,
    problem: `input base-ref: '${baseRef}' is not the base of pull request #${facts.number} (${stands}); expected ${facts.baseSha}, its base commit, or an earlier commit of its base branch ${facts.baseRef || '(unknown)'}`,
  };
}

/**
 * The sticky comment of a refused run: what happened and what a maintainer does. `marker` is
 * the suite's comment marker, so the results of an approved run later replace this text.
 */
export function refusalComment({ marker, suite, decision, headSha }) {
  return [
    marker,
    `### 🔒 perfgate ${suite}: waiting for a maintainer`,
    '',
    `**This pull request was not built or measured:** ${decision.why}.`,
    '',
    'perfgate runs on a self-hosted runner, which would build and run this code. A pull request from a fork, or by an author without write access, runs there only after a maintainer has read it.',
    '',
    `A maintainer approves head \`${short(headSha)}\` by commenting \`/perf ${suite}\` on this pull request. The perfgate bot pins that commit; a later push needs a new \`/perf ${suite}\`.`,
    '',
  ].join('\n');
}
