'use strict';
// Finds the lines of a comment that start with /perf, as GitHub would show them: only lines
// of top-level paragraphs count. Fenced and indented code, block quotes, lists, tables, HTML
// blocks and headings are other people's text (quoted commands, examples, logs), and so is
// anything inside an inline code span or inline HTML (a comment, a tag's attributes). The
// block structure comes from marked's GFM lexer; the returned lines are the raw text the
// author typed.
//
// Reading a comment takes bounded time, whoever wrote it. Comments are read in the webhook's
// request, before anyone's permission is known, and marked's lexer does work that grows faster
// than its input on some texts: on a comment of 64 KiB (GitHub's limit) a run of emphasis
// delimiters or setext underlines takes seconds, during which the bot answers nothing, and a
// few thousand nested quotes overflow the stack. So:
//   - a comment none of whose lines could be a command (/perf after nothing but white space)
//     is not lexed at all;
//   - a comment longer than LIMITS.maxCommentLength, or nesting quotes and lists deeper than
//     LIMITS.maxNesting on one line (marked recurses once per level), is not lexed either: it
//     is unreadable, and the parser says so;
//   - inline, only code spans matter, and emphasis, strikethrough and images cannot move one
//     (code spans bind tighter): their delimiters are masked before a paragraph is lexed
//     inline, since marked's time grows fastest on them;
//   - a lexer that fails (nesting past the stack) leaves the comment unreadable, not the
//     request failed.
const { Lexer } = require('marked');
const { PREFIX, LIMITS } = require('./grammar');

const COMMAND_START = new RegExp(`^${PREFIX.replace('/', '\\/')}(?=\\s|$)`);
// A line that could be a command, before knowing the blocks: the prefix after white space only.
const CANDIDATE = new RegExp(`^\\s*${PREFIX.replace('/', '\\/')}(?=\\s|$)`);
// Emphasis, strikethrough and image delimiters as a character markdown gives no meaning (and
// that no automatic link takes in), one for one, so that offsets into the text still hold.
// ('!' is kept where it opens inline HTML, `<!--`: text such as `w!.` repeated took marked a
// third of a second, but `<!` opens no image.)
const INERT = /[*_~]|(?<!<)!/g;
const INERT_CHAR = '\ufffd';
// One level of a line's container prefix: a quote marker, or a list marker and its space.
const CONTAINER = /[ \t]*(?:>|(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$))/y;

// How many quotes and lists a line opens before its text (`> - > 1. x`: 4).
function nesting(line) {
  let depth = 0;
  CONTAINER.lastIndex = 0;
  while (CONTAINER.exec(line)) depth += 1;
  return depth;
}

// Offsets [start, end) of inline code spans and inline HTML (a comment, a tag and its
// attributes: GitHub shows neither's text) in the paragraph's text, which is the
// concatenation of its inline tokens' raw text.
function codeRanges(tokens) {
  const ranges = [];
  let at = 0;
  for (const t of tokens) {
    if (t.type === 'codespan' || t.type === 'html') ranges.push([at, at + t.raw.length]);
    at += t.raw.length;
  }
  return ranges;
}

function paragraphCommandLines(lexer, paragraph) {
  const text = paragraph.text;
  const lines = text.split('\n');
  if (!lines.some((line) => CANDIDATE.test(line))) return [];
  lexer.state.inRawBlock = false;
  const code = codeRanges(lexer.inlineTokens(text.replace(INERT, INERT_CHAR)));
  const inCode = (offset) => code.some(([s, e]) => offset >= s && offset < e);
  const found = [];
  let lineStart = 0;
  for (const line of lines) {
    const indent = line.length - line.trimStart().length;
    const rest = line.slice(indent);
    if (COMMAND_START.test(rest) && !inCode(lineStart + indent)) found.push(rest.trimEnd());
    lineStart += line.length + 1;
  }
  return found;
}

/**
 * The command lines of a comment.
 * @returns {lines, unreadable: null}: the lines of top-level paragraphs starting with /perf
 *        | {lines, unreadable: why}: the comment could not be read (too long, nested too deep);
 *          `lines` are those that could be commands, as typed, for the answer to name
 */
function readCommandLines(body) {
  const source = String(body ?? '').replace(/\r\n?/g, '\n');
  // Line by line, so that the test costs one pass over the text whatever it holds.
  const candidates = source.split('\n').filter((line) => CANDIDATE.test(line)).map((line) => line.trim());
  if (!candidates.length) return { lines: [], unreadable: null };
  if (source.length > LIMITS.maxCommentLength) {
    return { lines: candidates, unreadable: `the comment is ${source.length} characters long, and commands are read only in comments of up to ${LIMITS.maxCommentLength}` };
  }
  const deepest = Math.max(...source.split('\n').map(nesting));
  if (deepest > LIMITS.maxNesting) {
    return { lines: candidates, unreadable: `the comment nests quotes or lists ${deepest} deep on one line, and commands are read only in comments nesting up to ${LIMITS.maxNesting}` };
  }
  const lexer = new Lexer({ gfm: true });
  try {
    const blocks = lexer.blockTokens(source, lexer.tokens);
    return { lines: blocks.filter((b) => b.type === 'paragraph').flatMap((p) => paragraphCommandLines(lexer, p)), unreadable: null };
  } catch (err) {
    return { lines: candidates, unreadable: `the comment's markdown could not be read (${err.message})` };
  }
}

/** The command lines of a comment (those that could be commands when it cannot be read). */
function commandLines(body) {
  return readCommandLines(body).lines;
}

module.exports = { commandLines, readCommandLines };
