'use strict';
// parseCommand(commentBody, context) -> {command} | {error} | null
//
// Pure: no I/O, no knowledge of who wrote the comment or whether it was edited; the webhook
// handler decides those, and reads `needsWrite` to check permission before acting.
//   context.benchmarks  the microbenchmark names that tests= and <microbenchmark> accept:
//                       an array for every command, or {<command>: [names]} per command.
// A command is {name, needsWrite, args, line}: args holds the positionals by name (an optional
// one absent is null), the rest text, and only the key=value arguments that were given, so the
// caller applies the suite's defaults.
const { PREFIX, LIMITS, OPTIONS, COMMAND_NAMES, findCommand, usage } = require('./grammar');
const { quote, listed, OPTION_PARSERS, POSITIONAL_PARSERS } = require('./values');
const { readCommandLines } = require('./markdown');

function knownBenchmarks(context, command) {
  const b = context && context.benchmarks;
  const names = Array.isArray(b) ? b : b && b[command.name];
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new TypeError(`parseCommand: context.benchmarks must be an array of names, or hold one for '${command.name}'`);
  }
  return names;
}

const fail = (command, problem) => ({ error: `${PREFIX} ${command.name}: ${problem}` });
const withUsage = (command, problem) => fail(command, `${problem}; usage: ${usage(command)}`);

// Splits at the rest separator: the text after it is kept as typed (a reason is prose).
function splitRest(command, text) {
  if (!command.rest) return { words: text, rest: null };
  const sep = command.rest.separator;
  const m = new RegExp(`(^|\\s)${sep.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}(\\s|$)`).exec(text);
  if (!m) return { words: text, rest: null };
  return { words: text.slice(0, m.index), rest: text.slice(m.index + m[0].length).trim() };
}

function parseArguments(command, text, context) {
  const { words, rest } = splitRest(command, text);
  if (command.rest && rest === null) return withUsage(command, `missing '${command.rest.separator} <${command.rest.name}>'`);
  const tokens = words.split(/\s+/).filter(Boolean);
  const args = {};
  const given = new Map();
  const positionals = command.positionals;
  let next = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const eq = token.indexOf('=');
    const key = eq > 0 ? token.slice(0, eq) : null;
    if (key !== null && Object.hasOwn(OPTIONS, key)) {
      if (!command.options.includes(key)) return withUsage(command, `unexpected argument ${quote(token)}`);
      if (given.has(key)) {
        return fail(command, `${key}= is given twice (${quote(given.get(key))} and ${quote(token)}): give it once`);
      }
      given.set(key, token);
      const known = command.benchmarks && key === 'tests' ? knownBenchmarks(context, command) : null;
      const parsed = OPTION_PARSERS[key](token.slice(eq + 1), token, known);
      if (parsed.problem) return fail(command, parsed.problem);
      args[key] = parsed.value;
      continue;
    }
    // A key=value word is no value for an optional positional: it is an unknown option.
    const slot = key !== null && positionals[next] && positionals[next].optional ? undefined : positionals[next];
    if (slot && slot.keyword) {
      if (token !== slot.keyword) return withUsage(command, `unexpected argument ${quote(token)}`);
      if (i + 1 >= tokens.length) return withUsage(command, `missing <${slot.name}> after '${slot.keyword}'`);
      i += 1;
    } else if (!slot) {
      const what = key !== null && command.options.length ? 'unknown argument' : 'unexpected argument';
      return withUsage(command, `${what} ${quote(token)}`);
    }
    const known = slot.type === 'microbenchmark' ? knownBenchmarks(context, command) : null;
    const parsed = POSITIONAL_PARSERS[slot.type](tokens[i], slot.name, known);
    if (parsed.problem) return fail(command, parsed.problem);
    args[slot.name] = parsed.value;
    next += 1;
  }
  for (const slot of positionals.slice(next)) {
    if (slot.keyword) args[slot.name] = null;
    else if (!slot.optional) return withUsage(command, `missing <${slot.name}>`);
  }
  if (command.rest) {
    const { name, separator } = command.rest;
    if (rest === '') return withUsage(command, `missing <${name}> after '${separator}'`);
    if (rest.length > LIMITS.maxReason) {
      return fail(command, `<${name}> is ${rest.length} characters long: keep it to ${LIMITS.maxReason}`);
    }
    args[name] = rest;
  }
  return { args };
}

function parseLine(line, context) {
  const text = line.slice(PREFIX.length).trim();
  const [name] = text.split(/\s/, 1);
  const known = `expected one of ${listed(COMMAND_NAMES)}`;
  if (!name) return { error: `${quote(PREFIX)} needs a command: ${known}` };
  const command = findCommand(name);
  if (!command) return { error: `unknown command ${quote(`${PREFIX} ${name}`)}: ${known}` };
  const parsed = parseArguments(command, text.slice(name.length), context);
  if (parsed.error) return parsed;
  return { command: { name: command.name, needsWrite: command.needsWrite, args: parsed.args, line } };
}

function parseCommand(commentBody, context) {
  const { lines, unreadable } = readCommandLines(commentBody);
  if (!lines.length) return null;
  if (unreadable) return { error: `${unreadable}: post ${quote(lines[0])} in a comment of its own` };
  if (lines.length > 1) {
    return { error: `one command per comment: found ${quote(lines[0])} and ${quote(lines[1])}; post each in its own comment` };
  }
  return parseLine(lines[0], context);
}

module.exports = { parseCommand };
