'use strict';
// Text from a run folder is shown as text: what an attacker writes into a verdict (a headline,
// a name, a reason) renders, through a GFM renderer (marked, as GitHub's cmark-gfm does for
// these constructs), as exactly its characters: no mention, reference, link, image, HTML,
// emphasis, code, table cell, heading, list, quote or code block of its own.
const test = require('node:test');
const assert = require('node:assert/strict');
const { marked } = require('marked');
const core = require('@perfgate/core');

const { markdownText: text, markdownCode: code, markdownFence: fence } = core;

const HOSTILE = [
  '@team please look',
  'cc @perfgate-org/maintainers',
  'fixes #123 and GH-42 and other/repo#7',
  'see [the report](https://evil.example/x) now',
  '![logo](https://evil.example/a.png)',
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '<!-- perfgate:comment suite=quick -->',
  'https://evil.example/path and www.evil.example and <https://evil.example>',
  'write to me@evil.example',
  '`code` and ``more`` and ```fence```',
  'a | b | c',
  'line1\nline2\r\n# heading\n\n- item',
  '**bold** __strong__ _em_ ~~strike~~ ~one~ *x*',
  '> quote',
  '- item',
  '+ item',
  '1. item',
  '2) item',
  '# heading',
  '---',
  '===',
  '[x]: https://evil.example',
  '[x] and [x][] and [x][y] and footnote[^1]',
  '[ ] task',
  '&#64;team &lt;b&gt; &amp;',
  '$x^2$ and $$y$$',
  'ends with a backslash\\',
  '\\` escaped?',
  '    indented code',
  'rQPS 0.52 [0.15, 1.83] straddles the fail limit 0.93',
  'update-index_range=100',
  '_leading and trailing_',
  'a\u202Eb\u2066c',
];

const ZWJ = /\u200d/g;
const decode = (html) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
// What a reader sees: the text of the HTML, tags dropped, entities decoded, joiners invisible.
const visible = (html) => decode(html.replace(/<[^>]*>/g, '')).replace(ZWJ, '');
const tagsOf = (html) => [...html.matchAll(/<([a-z0-9]+)/gi)].map((m) => m[1].toLowerCase());
// The text as shown: one line, control characters as spaces, bidirectional overrides dropped.
const oneLine = (s) => s.replace(/[\u0000-\u001f]/g, ' ').replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
const shown = (s) => oneLine(s).trim();

function live(visibleText) {
  // What GitHub would link after rendering: @name, #number, GH-number, scheme://, www.
  return [/(^|[^\w])@[A-Za-z0-9]/, /#\d/, /\bGH-\d/i, /:\/\//, /\bwww\./i, /[\w.]+@[\w-]+\.\w/].filter((re) => re.test(visibleText));
}

test('text(): every hostile string renders as its characters, in a paragraph, at a line start, in bold and in a table cell', () => {
  for (const h of HOSTILE) {
    const t = text(h);
    assert.ok(!t.includes('\n'), `one line: ${JSON.stringify(t)}`);
    const paragraph = marked.parse(`before ${t} after`, { gfm: true });
    assert.deepEqual(tagsOf(paragraph), ['p'], `${JSON.stringify(h)} → ${paragraph}`);
    assert.equal(visible(paragraph).trim(), `before ${shown(h)} after`, JSON.stringify(h));
    const alone = marked.parse(t, { gfm: true });
    assert.deepEqual(tagsOf(alone), ['p'], `at a line start ${JSON.stringify(h)} → ${alone}`);
    assert.equal(visible(alone).trim(), shown(h), JSON.stringify(h));
    const bold = marked.parse(`**${t}**`, { gfm: true });
    assert.deepEqual(tagsOf(bold), ['p', 'strong'], `bold ${JSON.stringify(h)} → ${bold}`);
    const table = marked.parse(`| name | x |\n|---|---|\n| ${t} | 1 |\n`, { gfm: true });
    assert.equal(tagsOf(table).filter((tag) => tag === 'td').length, 2, `one cell ${JSON.stringify(h)} → ${table}`);
    assert.deepEqual(tagsOf(table).filter((tag) => !['table', 'thead', 'tbody', 'tr', 'th', 'td'].includes(tag)), [], `table ${JSON.stringify(h)} → ${table}`);
    assert.equal(visible(/<td>([^]*?)<\/td>/.exec(table)[1]).trim(), shown(h), JSON.stringify(h));
    // GitHub links mentions, references and URLs in the rendered text, joiners included.
    assert.deepEqual(live(decode(alone.replace(/<[^>]*>/g, ''))), [], `nothing GitHub links: ${JSON.stringify(h)}`);
  }
});

test('code(): every hostile string is one code span holding its characters, also in a table cell', () => {
  for (const h of HOSTILE) {
    const inline = marked.parse(`x ${code(h)} y`, { gfm: true });
    assert.deepEqual(tagsOf(inline), ['p', 'code'], `${JSON.stringify(h)} → ${inline}`);
    assert.equal(decode(/<code>([^]*)<\/code>/.exec(inline)[1]), oneLine(h), JSON.stringify(h));
    const table = marked.parse(`| name | x |\n|---|---|\n| ${code(h, { table: true })} | 1 |\n`, { gfm: true });
    assert.equal(tagsOf(table).filter((tag) => tag === 'td').length, 2, `one cell ${JSON.stringify(h)} → ${table}`);
    assert.equal(decode(/<td><code>([^]*)<\/code><\/td>/.exec(table)[1]).replace(ZWJ, ''), oneLine(h), JSON.stringify(h));
  }
});

test('text() and code() cut long text with an ellipsis, never in the middle of a character', () => {
  assert.equal(text('x'.repeat(5000)).length, 1000);
  assert.ok(text('x'.repeat(5000)).endsWith('…'));
  assert.equal(text('a'.repeat(300), { max: 10 }), `${'a'.repeat(9)}…`);
  const emoji = text(`${'a'.repeat(8)}😀😀`, { max: 10 });
  assert.equal(emoji, `${'a'.repeat(8)}…`);
  assert.equal(code('b'.repeat(400), { max: 20 }), `\`${'b'.repeat(19)}…\``);
});

test('fence(): no line inside a fenced block can close it', () => {
  const lines = ['sysbench run', '```', '@team [x](https://evil.example)', '````'];
  const html = marked.parse(`${fence(lines, 'sh')}\n\nafter`, { gfm: true });
  assert.deepEqual(tagsOf(html), ['pre', 'code', 'p'], html);
  assert.equal(decode(/<code[^>]*>([^]*)<\/code>/.exec(html)[1]), `${lines.join('\n')}\n`);
});
