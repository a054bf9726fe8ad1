// What the action tells GitHub, as pure functions of a verdict: whether the job fails, and what
// a run without a verdict says. The check run and job summary of a verdict are core's (shared
// with the bot), re-exported here.
import perfgateCore from '@perfgate/core';

const { checkRunOutput, jobSummary, conclusionOf, jobFails, fitCharacters, fitBytes, CHECK_RUN_TEXT_LIMIT, JOB_SUMMARY_LIMIT_BYTES } = perfgateCore;
// Which verdicts fail the job (fail-on) and the check run: one table, core's blocking.js.
export { checkRunOutput, jobSummary, conclusionOf, jobFails, fitCharacters, fitBytes, CHECK_RUN_TEXT_LIMIT, JOB_SUMMARY_LIMIT_BYTES };

/**
 * A run that ended without a verdict (the measure job failed before judging, or left no run
 * folder): the comment, check run and summary all say error, so nothing claims a pass.
 */
export function noVerdictReport({ marker, suite, headSha, why }) {
  // `why` quotes the run folders (a runner's message, names in them): text, never markdown.
  const headline = `Error: no verdict for head ${headSha ? headSha.slice(0, 12) : '(unknown)'}: ${perfgateCore.markdownText(why)}.`;
  const body = [marker, `### 💥 perfgate ${suite}: error`, '', `**${headline}**`, '', 'Nothing was judged, so nothing here says this pull request passes. A re-run of the workflow measures it again.', ''].join('\n');
  return {
    comment: body,
    summary: body.slice(body.indexOf('\n') + 1),
    check: { conclusion: 'failure', output: { title: `perfgate ${suite} — Error: ${fitCharacters(why, 900, 'cut')}`, summary: body.slice(body.indexOf('\n') + 1), text: perfgateCore.markdownText(why) } },
  };
}
