'use strict';
// Escaping for the dashboard's HTML and SVG. Everything read from the store (names, headlines,
// commit subjects, URLs) came from pull requests, runners or GitHub and is untrusted.

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value, safe inside elements and quoted attributes. */
const esc = (value) => String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** An http(s) URL as given, or null: javascript:, data: and relative URLs are never linked. */
function webLink(url) {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A link to href with the given (unescaped) text, or the text alone when href is not a web URL. */
function link(href, text, attributes = '') {
  const safe = webLink(href) || (typeof href === 'string' && href.startsWith('/') && !href.startsWith('//') ? href : null);
  return safe ? `<a href="${esc(safe)}"${attributes}>${esc(text)}</a>` : esc(text);
}

/** A query string from {key: value}, leaving out empty values. */
function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

module.exports = { esc, webLink, link, query };
