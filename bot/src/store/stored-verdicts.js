'use strict';
// A verdict document as the store gives it back: one stored before perfgate.verdict/v2 is read
// as v2 (core's readVerdict, the one reader of older verdicts); one that no version allows was
// not stored by this bot and is refused.
const { readVerdict } = require('@perfgate/core');
const { StoreError } = require('./connection');

function storedVerdict(doc, what) {
  const read = readVerdict(doc);
  if (read.problem) throw new StoreError(`${what} is not a verdict perfgate wrote: ${read.problem}`);
  return read.verdict;
}

module.exports = { storedVerdict };
