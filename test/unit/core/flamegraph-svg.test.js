'use strict';
// The differential flame graph's SVG is built from stack frames a pull request's server
// produced: what report.html embeds must neither run, load nor expand anything.
const test = require('node:test');
const assert = require('node:assert/strict');
const { sanitizeSvg, svgDataUrl } = require('../../../core/src/render/flamegraph');

test('scripts, handlers, foreign objects, entities and outside links are taken out; the drawing stays', () => {
  const hostile = [
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>',
    '<?xml-stylesheet href="https://evil.example/x.css"?>',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">',
    '<script type="text/ecmascript"><![CDATA[ fetch("https://evil.example") ]]></script><script src="x.js"/>',
    '<foreignObject><iframe src="https://evil.example"></iframe></foreignObject>',
    '<g class="func_g" onmouseover=\'s(this)\' ONCLICK=zoom(this)><title>dispatch_command (12 µs)</title>',
    '<a href="javascript:alert(1)"><rect x="0" y="0" width="10" height="16" fill="rgb(250,100,100)"/></a>',
    '<use xlink:href="https://evil.example/sprite.svg#a"/><use href="#frame1"/>',
    '<rect style="fill:url(https://evil.example/p.png)" fill="url(#background)"/></g></svg>',
  ].join('\n');
  const out = sanitizeSvg(hostile);
  for (const gone of [/<script/i, /onload/i, /onmouseover/i, /onclick/i, /foreignObject/i, /iframe/i, /ENTITY/, /DOCTYPE/, /javascript:/, /evil\.example/, /xml-stylesheet/]) assert.doesNotMatch(out, gone, String(gone));
  for (const kept of ['<title>dispatch_command (12 µs)</title>', '<rect x="0" y="0" width="10" height="16" fill="rgb(250,100,100)"/>', '<use href="#frame1"/>', 'fill="url(#background)"', '<g class="func_g">']) assert.ok(out.includes(kept), kept);
  assert.equal(svgDataUrl('<svg/>'), `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`);
});
