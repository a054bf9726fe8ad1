'use strict';
// GitHub's size limits on what perfgate writes there, and the one way a text is fitted to them:
// cut, ending with a note that says so and where the whole of it is. Pure; github-writes.js
// fits every body through here before it is sent, whichever side (the action, the bot) sends it.

const LIMITS = Object.freeze({
  // An issue or pull request comment, and an issue's body, in characters.
  comment: 65536,
  // A check run's output.summary and output.text, each, in characters.
  checkRunText: 65535,
  // A check run's title: GitHub shows one line; perfgate keeps it to this.
  checkRunTitle: 1000,
  // Annotations of one check run request; more are sent in further updates.
  annotationsPerRequest: 50,
  // A step's job summary, in bytes.
  jobSummaryBytes: 1024 * 1024,
  // A commit status description, in characters.
  statusDescription: 140,
});

const HIGH_SURROGATE = (code) => code >= 0xd800 && code <= 0xdbff;

// The longest prefix of `text` of at most `budget` characters, never half a character.
function prefixOfCharacters(text, budget) {
  let end = Math.max(0, Math.min(text.length, budget));
  if (end < text.length && end > 0 && HIGH_SURROGATE(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

// The longest prefix of `text` of at most `budget` UTF-8 bytes, on a character boundary.
function prefixOfBytes(text, budget) {
  let used = 0;
  let end = 0;
  for (const character of text) {
    used += Buffer.byteLength(character);
    if (used > budget) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/**
 * What a cut markdown text needs appended so that a note after it renders as a note: the fence
 * of a code block left open (or the note would be code), and the <details> left open (or the
 * note would be folded away). Only perfgate's own lines count: untrusted text never starts a
 * line with either (render/markdown.js).
 */
function closersOf(markdown) {
  let fence = null;
  let details = 0;
  for (const line of markdown.split('\n')) {
    if (fence) {
      const closes = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
      if (closes.test(line)) fence = null;
      continue;
    }
    const opens = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opens) fence = opens[1];
    else if (/^<details>/.test(line)) details += 1;
    else if (/^<\/details>/.test(line)) details = Math.max(0, details - 1);
  }
  return `${fence ? `\n${fence}` : ''}${'\n\n</details>'.repeat(details)}`;
}

function fit(text, limit, note, { size, prefix }) {
  if (size(text) <= limit) return text;
  const tail = `\n\n_${note}_\n`;
  let room = 0;
  // The closers depend on where the cut falls, and the cut on the room they take: a few rounds
  // settle it (each round only moves the cut earlier).
  for (let round = 0; round < 4; round += 1) {
    const kept = prefix(text, limit - size(tail) - room);
    const closers = closersOf(kept);
    if (size(closers) <= room) return kept + closers + tail;
    room = size(closers);
  }
  return prefix(text, limit - size(tail)) + tail;
}

/** `text` (markdown) cut to `limit` characters, ending with `note` when it had to be cut. */
function fitCharacters(text, limit, note) {
  return fit(String(text), limit, note, { size: (s) => s.length, prefix: prefixOfCharacters });
}

/** `text` (markdown) cut to `limit` UTF-8 bytes, on a character boundary, ending with `note` when cut. */
function fitBytes(text, limit, note) {
  return fit(String(text), limit, note, { size: (s) => Buffer.byteLength(s), prefix: prefixOfBytes });
}

const DEFAULT_NOTE = {
  comment: "Cut to fit GitHub's comment size.",
  checkRun: "Cut to fit GitHub's check run size.",
};

/** A comment's (or an issue's) body within GitHub's limit. */
function fitComment(body, note = DEFAULT_NOTE.comment) {
  return fitCharacters(body, LIMITS.comment, note);
}

/**
 * A check run's output within GitHub's limits: title, summary and text cut (`note` says where
 * the whole is), and the annotations in batches of at most 50, the first for this request and
 * the rest for updates after it.
 * @returns {output, laterAnnotations: [[annotation]]}
 */
function fitCheckRunOutput(output, note = DEFAULT_NOTE.checkRun) {
  const { annotations = [], ...rest } = output;
  const fitted = { ...rest };
  if (typeof rest.title === 'string') fitted.title = fitCharacters(rest.title.replace(/\s+/g, ' '), LIMITS.checkRunTitle, 'cut');
  for (const key of ['summary', 'text']) {
    if (typeof rest[key] === 'string') fitted[key] = fitCharacters(rest[key], LIMITS.checkRunText, note);
  }
  const batches = [];
  for (let at = 0; at < annotations.length; at += LIMITS.annotationsPerRequest) batches.push(annotations.slice(at, at + LIMITS.annotationsPerRequest));
  if (batches.length) fitted.annotations = batches[0];
  return { output: fitted, laterAnnotations: batches.slice(1) };
}

module.exports = { LIMITS, fitCharacters, fitBytes, fitComment, fitCheckRunOutput };
