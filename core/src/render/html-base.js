'use strict';
// What every part of report.html shares: the one escape of text into HTML and the colours of
// verdicts and sides.
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const COLOR = { pass: '#1a7f37', warn: '#9a6700', undecided: '#6e7781', fail: '#cf222e', error: '#8250df', base: '#0969da', head: '#d1242f' };

module.exports = { esc, COLOR };
