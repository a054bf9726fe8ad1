// The pull request a run is about, and whether its code may be built here.
import { authorPermission, compareStatus, getPullRequest } from './github.js';
import perfgate from 'perfgate';
import { InputError } from './settings.js';
import { decideBase, decideMainCommitTrust, decideReleaseTrust, decideTrust, needsAuthorPermission, pullRequestFacts } from './trust.js';

const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

/**
 * The pull request's facts: from the event payload of a pull_request(_target) event, else
 * (workflow_dispatch from the bot) as GitHub has it now.
 */
export async function pullRequestOf(octokit, settings) {
  const fromEvent = settings.event.pull_request;
  if (PULL_REQUEST_EVENTS.has(settings.eventName) && fromEvent?.number === settings.pullRequest) return pullRequestFacts(fromEvent);
  return pullRequestFacts(await getPullRequest(octokit, settings.repository, settings.pullRequest));
}

/**
 * The trust decision for this run, and the commits it is about. The gate and measure jobs of a
 * pull request both take it; a base-ref that is not the pull request's base (decideBase) throws.
 * @returns {facts, headSha, baseRef, decision}
 */
export async function admission(octokit, settings) {
  const facts = await pullRequestOf(octokit, settings);
  const headSha = settings.headSha || facts.headSha;
  const asked = settings.baseRef && settings.baseRef !== facts.baseSha;
  const relation = asked ? await compareStatus(octokit, settings.repository, settings.baseRef, facts.baseSha) : null;
  const { baseRef, problem } = decideBase({ baseRef: settings.baseRef, facts, relation });
  if (problem) throw new InputError(problem);
  const permission = needsAuthorPermission(facts) ? await authorPermission(octokit, settings.repository, facts.author) : null;
  const decision = decideTrust({ facts, authorPermission: permission, headSha, approvedSha: settings.approvedSha });
  return { facts, headSha, baseRef, decision };
}

/**
 * The trust decision for a commit of the default branch (no pull request): the run is on the
 * default branch and the head is one of its commits in the checkout (fetch-depth: 0).
 * @returns {facts: {defaultBranch}, headSha, baseRef, decision}
 */
export function mainCommitAdmission(settings) {
  const defaultBranch = settings.event.repository?.default_branch ?? null;
  const headSha = settings.headSha;
  const check = perfgate.runProcessSync('git', ['-C', settings.source, 'merge-base', '--is-ancestor', headSha, 'HEAD']);
  const decision = decideMainCommitTrust({ ref: settings.ref, defaultBranch, headSha, headOnBranch: check.status === 0 });
  return { facts: { defaultBranch }, headSha, baseRef: settings.baseRef, decision };
}

function hasCommit(source, sha) {
  return perfgate.runProcessSync('git', ['-C', source, 'cat-file', '-e', `${sha}^{commit}`]).status === 0;
}

/** The tags of the checkout that point at `sha` (fetch-depth: 0 fetches them). */
function tagsAt(source, sha) {
  const listed = perfgate.runProcessSync('git', ['-C', source, 'tag', '--points-at', sha]);
  return listed.status === 0 ? String(listed.stdout).split('\n').map((t) => t.trim()).filter(Boolean).sort() : [];
}

/**
 * The trust decision for a release pair (the sign-off workflow, input release: true): head and
 * base are tagged commits, from a run on the default branch or on a tag.
 * @returns {facts: {defaultBranch}, headSha, baseRef, decision}
 */
export function releaseAdmission(settings) {
  const defaultBranch = settings.event.repository?.default_branch ?? null;
  const headSha = settings.headSha;
  const baseRef = settings.baseRef;
  const decision = decideReleaseTrust({
    ref: settings.ref,
    defaultBranch,
    head: { sha: headSha, tags: tagsAt(settings.source, headSha), present: hasCommit(settings.source, headSha) },
    base: { sha: baseRef, tags: tagsAt(settings.source, baseRef), present: hasCommit(settings.source, baseRef) },
  });
  return { facts: { defaultBranch }, headSha, baseRef, decision };
}
