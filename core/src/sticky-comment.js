'use strict';
// Which comment of a pull request is perfgate's sticky comment for one suite: the rule the bot
// and the action both follow when they create or edit it, so that neither ever adds a second
// one. Pure: the caller lists the comments (every page) and does the editing.

/**
 * @param comments  the pull request's comments as GitHub lists them ({id, body, user: {login}})
 * @param marker    commentMarker(suite): the sticky comment's first line
 * @param author    the login that writes it ("perfgate[bot]", "github-actions[bot]"): another
 *                  author's comment with the same marker (a quote, the other tool) is not ours
 * @returns {kept, duplicates}: the oldest such comment (or null), and any younger ones, which
 *          two writers that both found none made at the same moment and which should go
 */
function stickyComments(comments, { marker, author }) {
  if (typeof marker !== 'string' || !marker) throw new TypeError('stickyComments: marker must be a non-empty string');
  if (typeof author !== 'string' || !author) throw new TypeError('stickyComments: author must be a login');
  const ours = comments
    .filter((c) => c && c.user && c.user.login === author && typeof c.body === 'string' && c.body.startsWith(marker))
    .sort((a, b) => a.id - b.id);
  return { kept: ours[0] || null, duplicates: ours.slice(1) };
}

module.exports = { stickyComments };
