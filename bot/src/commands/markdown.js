'use strict';
// Finds the lines of a comment that start with /perf, as GitHub would show them: only lines
// of top-level paragraphs count. Fenced and indented code, block quotes, lists, tables, HTML
// blocks and headings are other people's text (quoted commands, examples, logs), and so is
// anything inside an inline code span. The block structure comes from marked's GFM lexer;
// the returned lines are the raw text the author typed.
const { Lexer } = require('marked');
const { PREFIX } = require('./grammar');

const COMMAND_START = new RegExp(`^${PREFIX.replace('/', '\\/')}(?=\\s|$)`);

// Offsets [start, end) of inline code spans in the paragraph's text, which is the
// concatenation of its inline tokens' raw text.
function codeRanges(tokens) {
  const ranges = [];
  let at = 0;
  for (const t of tokens) {
    if (t.type === 'codespan') ranges.push([at, at + t.raw.length]);
    at += t.raw.length;
  }
  return ranges;
}

function paragraphCommandLines(paragraph) {
  const tokens = paragraph.tokens || [];
  const text = tokens.map((t) => t.raw).join('');
  const code = codeRanges(tokens);
  const inCode = (offset) => code.some(([s, e]) => offset >= s && offset < e);
  const found = [];
  let lineStart = 0;
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const rest = line.slice(indent);
    if (COMMAND_START.test(rest) && !inCode(lineStart + indent)) found.push(rest.trimEnd());
    lineStart += line.length + 1;
  }
  return found;
}

function commandLines(body) {
  const source = String(body).replace(/\r\n?/g, '\n');
  // A quick exit keeps the lexer off the comments that cannot hold a command.
  if (!source.includes(PREFIX)) return [];
  const blocks = Lexer.lex(source, { gfm: true });
  return blocks.filter((b) => b.type === 'paragraph').flatMap(paragraphCommandLines);
}

module.exports = { commandLines };
