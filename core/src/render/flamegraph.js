'use strict';
// A differential flame graph (inferno's SVG) made fit for report.html. Its text is built from
// stack frames a pull request's server produced, so it is hostile: scripts, event handlers,
// foreign objects, document type declarations (entities) and links anywhere but inside itself
// are taken out, and the report shows it as an image (data: URL), where nothing in it runs or
// loads. Pure.

const REMOVED = [
  /<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>/gi,
  /<!ENTITY[\s\S]*?>/gi,
  /<script\b[\s\S]*?<\/script\s*>/gi,
  /<script\b[^>]*\/>/gi,
  /<foreignObject\b[\s\S]*?<\/foreignObject\s*>/gi,
  /<foreignObject\b[^>]*\/>/gi,
  /<\?xml-stylesheet[\s\S]*?\?>/gi,
];
// Attributes that run code or reach outside the image.
const EVENT_ATTRIBUTE = /\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi;
const OUTER_LINK = /\s+(?:xlink:)?href\s*=\s*("(?!#)[^"]*"|'(?!#)[^']*'|(?!["'#])[^\s>]+)/gi;
const OUTER_URL = /url\(\s*(?!['"]?#)[^)]*\)/gi;

/** The SVG text without anything that runs, loads or expands. */
function sanitizeSvg(svg) {
  let out = String(svg);
  for (const re of REMOVED) out = out.replace(re, '');
  return out.replace(EVENT_ATTRIBUTE, '').replace(OUTER_LINK, '').replace(OUTER_URL, 'none');
}

/** The sanitised SVG as a data: URL for an <img>. */
const svgDataUrl = (svg) => `data:image/svg+xml;base64,${Buffer.from(sanitizeSvg(svg), 'utf8').toString('base64')}`;

module.exports = { sanitizeSvg, svgDataUrl };
