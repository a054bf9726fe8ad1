'use strict';
// Every reply the /perf parser can give, pinned; then properties over generated comments.
const test = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { parseCommand, helpText, COMMANDS, usage } = require('../../../bot/src');

// Real names from thresholds/benchmarks.yml and thresholds/ahi.yml.
const BENCHMARKS = ['point-query', 'update-index_range=100', 'scan_range=100', 'point-select+5%update-index'];
const CONTEXT = { benchmarks: BENCHMARKS };
const parse = (body) => parseCommand(body, CONTEXT);
const REF_RULE = 'expected a git revision: a branch, a tag or a commit SHA, optionally followed by ~N or ^N; '
  + 'no ranges (a..b), options (-x), spaces or shell characters';
const QUICK_USAGE = 'usage: /perf quick [<sha>] [threads=N,…] [tests=NAME,…] [rounds=N] [metric=time|instructions|both]';
const SHA_RULE = "expected the pull request's head commit you reviewed, by its SHA: 40 hex digits, or the first 7 or more; "
  + 'the run measures exactly that commit, and only while it is the head';
const SHA = '0123456789abcdef0123456789abcdef01234567';
const COMMAND_LIST = 'expected one of quick, full, ahi, why, ddl, contention, tpcc, compare, rerun, cancel, help, bisect, signoff or waive';

const command = (name, args, line, needsWrite = true) => ({ command: { name, needsWrite, args, line } });

test('valid commands parse into typed arguments', () => {
  const cases = [
    ['/perf quick', command('quick', {}, '/perf quick')],
    ['/perf full threads=1,4 tests=point-query,update-index_range=100 rounds=8 metric=both',
      command('full', { threads: [1, 4], tests: ['point-query', 'update-index_range=100'], rounds: 8, metric: 'both' },
        '/perf full threads=1,4 tests=point-query,update-index_range=100 rounds=8 metric=both')],
    ['/perf ahi metric=instructions tests=point-select+5%update-index threads=1024 rounds=50',
      command('ahi', { metric: 'instructions', tests: ['point-select+5%update-index'], threads: [1024], rounds: 50 },
        '/perf ahi metric=instructions tests=point-select+5%update-index threads=1024 rounds=50')],
    ['/perf quick rounds=2 metric=time', command('quick', { rounds: 2, metric: 'time' }, '/perf quick rounds=2 metric=time')],
    [`/perf quick ${SHA}`, command('quick', { sha: SHA }, `/perf quick ${SHA}`)],
    ['/perf full rounds=4 0123ABC', command('full', { rounds: 4, sha: '0123abc' }, '/perf full rounds=4 0123ABC')],
    ['/perf ahi 0123456789ab tests=point-query', command('ahi', { sha: '0123456789ab', tests: ['point-query'] }, '/perf ahi 0123456789ab tests=point-query')],
    ['/perf ddl rounds=6', command('ddl', { rounds: 6 }, '/perf ddl rounds=6')],
    ['/perf contention threads=32', command('contention', { threads: [32] }, '/perf contention threads=32')],
    ['/perf tpcc threads=4 rounds=6', command('tpcc', { threads: [4], rounds: 6 }, '/perf tpcc threads=4 rounds=6')],
    ['/perf compare 1a2b3c4d', command('compare', { ref: '1a2b3c4d' }, '/perf compare 1a2b3c4d')],
    ['/perf compare origin/10.11~3^2', command('compare', { ref: 'origin/10.11~3^2' }, '/perf compare origin/10.11~3^2')],
    ['/perf compare mariadb-10.11.19', command('compare', { ref: 'mariadb-10.11.19' }, '/perf compare mariadb-10.11.19')],
    ['/perf rerun', command('rerun', {}, '/perf rerun')],
    ['/perf cancel', command('cancel', {}, '/perf cancel')],
    ['/perf help', command('help', {}, '/perf help', false)],
    ['/perf bisect v10.11.18 v10.11.19', command('bisect', { good: 'v10.11.18', bad: 'v10.11.19' }, '/perf bisect v10.11.18 v10.11.19')],
    ['/perf bisect HEAD~20 HEAD tests=scan_range=100',
      command('bisect', { good: 'HEAD~20', bad: 'HEAD', tests: ['scan_range=100'] }, '/perf bisect HEAD~20 HEAD tests=scan_range=100')],
    ['/perf signoff 10.11.19', command('signoff', { candidate: '10.11.19', previous: null }, '/perf signoff 10.11.19')],
    ['/perf signoff 10.11.19 vs 10.11.17',
      command('signoff', { candidate: '10.11.19', previous: '10.11.17' }, '/perf signoff 10.11.19 vs 10.11.17')],
    ['/perf waive update-index_range=100 -- the new index costs 2% here,  see #12',
      command('waive', { microbenchmark: 'update-index_range=100', reason: 'the new index costs 2% here,  see #12' },
        '/perf waive update-index_range=100 -- the new index costs 2% here,  see #12')],
    ['/perf waive scan_range=100 -- -- is fine in a reason',
      command('waive', { microbenchmark: 'scan_range=100', reason: '-- is fine in a reason' }, '/perf waive scan_range=100 -- -- is fine in a reason')],
    ['/perf \t quick   threads=2  ', command('quick', { threads: [2] }, '/perf \t quick   threads=2')],
  ];
  for (const [body, expected] of cases) assert.deepEqual(parse(body), expected, body);
});

test('every error message, exactly', () => {
  const cases = [
    ['/perf', `'/perf' needs a command: ${COMMAND_LIST}`],
    ['/perf   ', `'/perf' needs a command: ${COMMAND_LIST}`],
    ['/perf fast', `unknown command '/perf fast': ${COMMAND_LIST}`],
    ['/perf Quick', `unknown command '/perf Quick': ${COMMAND_LIST}`],
    ['/perf quick thread=4', `/perf quick: unknown argument 'thread=4'; ${QUICK_USAGE}`],
    // One statement at a time and only timed: a DDL run takes no client threads nor instructions.
    ['/perf ddl threads=4', "/perf ddl: unexpected argument 'threads=4'; usage: /perf ddl [<sha>] [tests=NAME,…] [rounds=N]"],
    ['/perf ddl metric=instructions', "/perf ddl: unexpected argument 'metric=instructions'; usage: /perf ddl [<sha>] [tests=NAME,…] [rounds=N]"],
    ['/perf quick now', `/perf quick: bad <sha> 'now': ${SHA_RULE}`],
    ['/perf quick 012345', `/perf quick: bad <sha> '012345': ${SHA_RULE}`],
    [`/perf quick ${SHA}8`, `/perf quick: bad <sha> '${SHA}8': ${SHA_RULE}`],
    ['/perf quick HEAD~1', `/perf quick: bad <sha> 'HEAD~1': ${SHA_RULE}`],
    ['/perf full 0123456 89abcde', `/perf full: unexpected argument '89abcde'; ${QUICK_USAGE.replace('quick', 'full')}`],
    ['/perf quick threads=1 threads=2', "/perf quick: threads= is given twice ('threads=1' and 'threads=2'): give it once"],
    ['/perf quick threads=0', "/perf quick: bad value '0' in 'threads=0': expected client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4"],
    ['/perf quick threads=1,x', "/perf quick: bad value 'x' in 'threads=1,x': expected client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4"],
    ['/perf quick threads=1025', "/perf quick: bad value '1025' in 'threads=1025': expected client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4"],
    ['/perf quick threads=', "/perf quick: bad value '' in 'threads=': expected client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4"],
    ['/perf quick threads=04', "/perf quick: bad value '04' in 'threads=04': expected client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4"],
    ['/perf quick threads=4,1,4', "/perf quick: 'threads=4,1,4' lists 4 twice: give each thread count once"],
    ['/perf quick tests=point-query,foo', "/perf quick: unknown microbenchmark 'foo' in 'tests=point-query,foo': expected names from point-query, update-index_range=100, scan_range=100, point-select+5%update-index"],
    ['/perf quick tests=point-query,,scan_range=100', "/perf quick: empty name in 'tests=point-query,,scan_range=100': expected microbenchmarks to run, by name, separated by commas, e.g. tests=point-query,update-index_range=100"],
    ['/perf quick tests=scan_range=100,scan_range=100', "/perf quick: 'tests=scan_range=100,scan_range=100' lists 'scan_range=100' twice: give each microbenchmark once"],
    ['/perf quick rounds=1', "/perf quick: bad value '1' in 'rounds=1': expected rounds per side, an integer from 2 to 50"],
    ['/perf quick rounds=51', "/perf quick: bad value '51' in 'rounds=51': expected rounds per side, an integer from 2 to 50"],
    ['/perf quick rounds=2.5', "/perf quick: bad value '2.5' in 'rounds=2.5': expected rounds per side, an integer from 2 to 50"],
    ['/perf quick metric=cycles', "/perf quick: bad value 'cycles' in 'metric=cycles': expected time, instructions or both"],
    ['/perf compare', '/perf compare: missing <ref>; usage: /perf compare <ref>'],
    ['/perf compare main extra', "/perf compare: unexpected argument 'extra'; usage: /perf compare <ref>"],
    ['/perf compare threads=4', "/perf compare: unexpected argument 'threads=4'; usage: /perf compare <ref>"],
    ['/perf compare a=b', `/perf compare: bad <ref> 'a=b': ${REF_RULE}`],
    ['/perf compare -x', `/perf compare: bad <ref> '-x': ${REF_RULE}`],
    ['/perf compare --upload-pack=touch', `/perf compare: bad <ref> '--upload-pack=touch': ${REF_RULE}`],
    ['/perf compare main..topic', `/perf compare: bad <ref> 'main..topic': ${REF_RULE}`],
    ['/perf compare main;reboot', `/perf compare: bad <ref> 'main;reboot': ${REF_RULE}`],
    ['/perf compare $(id)', `/perf compare: bad <ref> '$(id)': ${REF_RULE}`],
    ['/perf compare `id`', `/perf compare: bad <ref> '\`id\`': ${REF_RULE}`],
    ['/perf compare HEAD@{1}', `/perf compare: bad <ref> 'HEAD@{1}': ${REF_RULE}`],
    ['/perf compare feature/', `/perf compare: bad <ref> 'feature/': ${REF_RULE}`],
    ['/perf compare topic.lock', `/perf compare: bad <ref> 'topic.lock': ${REF_RULE}`],
    ['/perf compare a/.hidden', `/perf compare: bad <ref> 'a/.hidden': ${REF_RULE}`],
    ['/perf rerun please', "/perf rerun: unexpected argument 'please'; usage: /perf rerun"],
    ['/perf cancel all', "/perf cancel: unexpected argument 'all'; usage: /perf cancel"],
    ['/perf help quick', "/perf help: unexpected argument 'quick'; usage: /perf help"],
    ['/perf bisect good', '/perf bisect: missing <bad>; usage: /perf bisect <good> <bad> [tests=NAME,…]'],
    ['/perf bisect a b c', "/perf bisect: unexpected argument 'c'; usage: /perf bisect <good> <bad> [tests=NAME,…]"],
    ['/perf bisect a b rounds=4', "/perf bisect: unexpected argument 'rounds=4'; usage: /perf bisect <good> <bad> [tests=NAME,…]"],
    ['/perf bisect a b test=scan_range=100', "/perf bisect: unknown argument 'test=scan_range=100'; usage: /perf bisect <good> <bad> [tests=NAME,…]"],
    ['/perf bisect a..b c', `/perf bisect: bad <good> 'a..b': ${REF_RULE}`],
    ['/perf bisect main pull/7/head', "/perf bisect: bad <bad> 'pull/7/head': a pull request's ref moves with every push to it; name the commit you mean by its SHA"],
    ['/perf bisect refs/pull/7/merge~3 main', "/perf bisect: bad <good> 'refs/pull/7/merge~3': a pull request's ref moves with every push to it; name the commit you mean by its SHA"],
    ['/perf signoff pull/7/head', "/perf signoff: bad <candidate> 'pull/7/head': a pull request's ref moves with every push to it; name the commit you mean by its SHA"],
    // In any case: git resolves refs without regard to case on case-insensitive file systems.
    ['/perf bisect main PULL/7/head', "/perf bisect: bad <bad> 'PULL/7/head': a pull request's ref moves with every push to it; name the commit you mean by its SHA"],
    ['/perf bisect Refs/Pull/7/merge main', "/perf bisect: bad <good> 'Refs/Pull/7/merge': a pull request's ref moves with every push to it; name the commit you mean by its SHA"],
    ['/perf signoff', '/perf signoff: missing <candidate>; usage: /perf signoff <candidate> [vs <previous>]'],
    ['/perf signoff 10.11.19 vs', "/perf signoff: missing <previous> after 'vs'; usage: /perf signoff <candidate> [vs <previous>]"],
    ['/perf signoff 10.11.19 against 10.11.18', "/perf signoff: unexpected argument 'against'; usage: /perf signoff <candidate> [vs <previous>]"],
    ['/perf signoff 10.11.19 vs 10.11.18 now', "/perf signoff: unexpected argument 'now'; usage: /perf signoff <candidate> [vs <previous>]"],
    ['/perf signoff 10.11.19 vs -rf', `/perf signoff: bad <previous> '-rf': ${REF_RULE}`],
    ['/perf waive scan_range=100', "/perf waive: missing '-- <reason>'; usage: /perf waive <microbenchmark> -- <reason>"],
    ['/perf waive scan_range=100 --', "/perf waive: missing <reason> after '--'; usage: /perf waive <microbenchmark> -- <reason>"],
    ['/perf waive -- a reason', "/perf waive: missing <microbenchmark>; usage: /perf waive <microbenchmark> -- <reason>"],
    ['/perf waive scan-range -- a reason', "/perf waive: unknown microbenchmark 'scan-range' for <microbenchmark>: expected one of point-query, update-index_range=100, scan_range=100, point-select+5%update-index"],
    ['/perf waive scan_range=100 point-query -- a reason', "/perf waive: unexpected argument 'point-query'; usage: /perf waive <microbenchmark> -- <reason>"],
    [`/perf waive scan_range=100 -- ${'x'.repeat(501)}`, '/perf waive: <reason> is 501 characters long: keep it to 500'],
    ['/perf quick\n/perf full', "one command per comment: found '/perf quick' and '/perf full'; post each in its own comment"],
    ['/perf quick\n\nand later\n\n/perf quick', "one command per comment: found '/perf quick' and '/perf quick'; post each in its own comment"],
    [`/perf compare ${'a'.repeat(250)}`, `/perf compare: bad <ref> '${'a'.repeat(79)}…': ${REF_RULE}`],
  ];
  for (const [body, expected] of cases) assert.deepEqual(parse(body), { error: expected }, body);
});

test('only a command at the start of a line of a paragraph counts', () => {
  const ignored = [
    '',
    'LGTM',
    'please run /perf quick',
    '/perfect',
    '/perf:quick',
    '```\n/perf quick\n```',
    '~~~sh\n/perf quick\n~~~',
    '    /perf quick',
    '> /perf quick',
    '> quoting you:\n> /perf full threads=1',
    '`/perf quick`',
    'see `the output of\n/perf quick` above',
    '- /perf quick',
    '1. /perf quick',
    '# /perf quick',
    '<!--\n/perf quick\n-->',
    '<details>\n\n```\n/perf quick\n```\n</details>',
    '| a |\n| - |\n| /perf quick |',
  ];
  for (const body of ignored) assert.equal(parse(body), null, JSON.stringify(body));
  const counted = [
    ['Thanks!\n/perf quick', '/perf quick'],
    ['Thanks!\r\n/perf rerun\r\n', '/perf rerun'],
    ['   /perf cancel', '/perf cancel'],
    ['```\n/perf full\n```\nthe fence above was an example; now:\n\n/perf quick', '/perf quick'],
    ['> /perf full\n\n/perf compare main', '/perf compare main'],
    ['`code` first\n/perf help', '/perf help'],
  ];
  for (const [body, line] of counted) {
    const got = parse(body);
    assert.ok(got && got.command, `${JSON.stringify(body)} -> ${JSON.stringify(got)}`);
    assert.equal(got.command.line, line);
  }
});

test('a hostile comment is read in bounded time: too long or nested too deep, it is answered, never lexed for seconds or thrown', () => {
  // GitHub takes comments of up to 65,536 characters from anyone who may comment, and the bot
  // reads them in the webhook's request: marked took seconds over these (the bot answering
  // nothing meanwhile), and overflowed the stack on the nested quotes.
  const fill = (unit, length) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  const long = (unit) => `/perf quick\n${fill(unit, 65_000 - 12)}`;
  for (const unit of ['_a_', '*a', '***a', 'a*', 'a\n-\n', '> a\nb\n', '>']) {
    const started = performance.now();
    assert.deepEqual(parse(long(unit)), {
      error: "the comment is 65000 characters long, and commands are read only in comments of up to 4000: post '/perf quick' in a comment of its own",
    }, JSON.stringify(unit));
    assert.ok(performance.now() - started < 500, `${JSON.stringify(unit)}: ${performance.now() - started} ms`);
  }
  // Within the length, quotes and lists nested past the stack marked recurses on.
  for (const [prefix, times, depth] of [['>', 3000, 3000], ['- ', 1500, 1500], ['1. ', 999, 999], ['> - ', 990, 1980]]) {
    assert.deepEqual(parse(`${prefix.repeat(times)}x\n\n   /perf help `), {
      error: `the comment nests quotes or lists ${depth} deep on one line, and commands are read only in comments nesting up to 32: post '/perf help' in a comment of its own`,
    }, prefix);
  }
  // Within both, the longest and deepest comments still parse, quickly, and as before.
  const deep = `${'> '.repeat(32)}quoted\n\n${'- '.repeat(32)}listed\n\n/perf rerun\n`;
  assert.deepEqual(parse(`${deep}${fill('_a_*b* ', 4000 - deep.length)}`), command('rerun', {}, '/perf rerun'));
  for (const unit of ['_a_', '*a', '*w.', 'a!', '$*1', '>', 'a\n-\n', '[', '`a']) {
    const started = performance.now();
    assertShape(parse(`/perf quick\n${fill(unit, 4000 - 12)}`));
    assert.ok(performance.now() - started < 500, `${JSON.stringify(unit)}: ${performance.now() - started} ms`);
  }
});

test('tests= and <microbenchmark> accept the names given per command', () => {
  const context = { benchmarks: { quick: ['point-query'], ahi: ['point-select'], waive: ['point-query', 'point-select'], bisect: [] } };
  assert.deepEqual(parseCommand('/perf ahi tests=point-select', context).command.args, { tests: ['point-select'] });
  assert.deepEqual(parseCommand('/perf quick tests=point-select', context),
    { error: "/perf quick: unknown microbenchmark 'point-select' in 'tests=point-select': expected names from point-query" });
  // Commands that name no microbenchmark need no names.
  assert.deepEqual(parseCommand('/perf compare main', {}).command.args, { ref: 'main' });
  assert.throws(() => parseCommand('/perf full tests=point-query', context),
    { name: 'TypeError', message: "parseCommand: context.benchmarks must be an array of names, or hold one for 'full'" });
});

test('the help text is generated from the table the parser uses', () => {
  assert.equal(helpText(), `**perfgate commands**: write one at the start of a line of a pull request comment, one command per comment.

- \`/perf quick [<sha>] [threads=N,…] [tests=NAME,…] [rounds=N] [metric=time|instructions|both]\`: measure the quick suite on this pull request's base and head
- \`/perf full [<sha>] [threads=N,…] [tests=NAME,…] [rounds=N] [metric=time|instructions|both]\`: measure the full suite (every microbenchmark of the catalogue)
- \`/perf ahi [<sha>] [threads=N,…] [tests=NAME,…] [rounds=N] [metric=time|instructions|both]\`: measure the adaptive hash index suite: point selects with N% updates, AHI off and on
- \`/perf why <microbenchmark>\`: measure <microbenchmark> with the quick suite and say why it got slower (counters, waits, stacks, plans, memory)
- \`/perf ddl [<sha>] [tests=NAME,…] [rounds=N]\`: measure the DDL suite: ADD INDEX, DROP INDEX, ADD COLUMN and OPTIMIZE TABLE timed on a large table
- \`/perf contention [<sha>] [threads=N,…] [tests=NAME,…] [rounds=N]\`: measure the contention slice: a hot row and point selects at more client threads than the runner has CPUs
- \`/perf tpcc [<sha>] [threads=N,…] [rounds=N]\`: measure TPC-C (go-tpc): tpmC and NewOrder p95 on one warehouse restored for every round
- \`/perf compare <ref>\`: measure this pull request's head against <ref> instead of its base
- \`/perf rerun\`: run the last measurement of this pull request again
- \`/perf cancel\`: cancel this pull request's queued and running measurements
- \`/perf help\`: show this help
- \`/perf bisect <good> <bad> [tests=NAME,…]\`: find the first commit between <good> and <bad> that made the microbenchmarks slower
- \`/perf signoff <candidate> [vs <previous>]\`: measure release <candidate> against <previous> (default: the release before it) with the sign-off suites (full, ddl, tpcc unless the bot is set otherwise)
- \`/perf waive <microbenchmark> -- <reason>\`: accept a slower <microbenchmark> in this pull request (in a sign-off also <suite>-suite, a suite as a whole), giving the reason

Arguments:

- \`<sha>\`: the pull request's head commit you reviewed, by its SHA: 40 hex digits, or the first 7 or more; the run measures exactly that commit, and only while it is the head
- \`<microbenchmark>\`: the name of one microbenchmark, as in the report
- \`<ref>\`, \`<good>\`, \`<bad>\`, \`<candidate>\`, \`<previous>\`: a git revision: a branch, a tag or a commit SHA, optionally followed by ~N or ^N; no ranges (a..b), options (-x), spaces or shell characters
- \`<reason>\` (after \`--\`): why it is accepted, free text up to 500 characters
- \`threads=N,…\`: client thread counts, positive integers up to 1024 separated by commas, e.g. threads=1,4
- \`tests=NAME,…\`: microbenchmarks to run, by name, separated by commas, e.g. tests=point-query,update-index_range=100
- \`rounds=N\`: rounds per side, an integer from 2 to 50
- \`metric=time|instructions|both\`: what decides: time (QPS), instructions per query (counted under callgrind) or both

Anyone may ask for \`/perf help\`; every other command needs write access to the repository.
`);
  // Each usage line the help shows is one the parser knows: a bare command either parses or
  // asks for its positionals, never "unknown command".
  for (const c of COMMANDS) {
    assert.ok(helpText().includes(`\`${usage(c)}\``), c.name);
    const got = parse(`/perf ${c.name}`);
    assert.ok(got.command || got.error.startsWith(`/perf ${c.name}: missing`), `${c.name}: ${JSON.stringify(got)}`);
  }
});

// ---- properties -------------------------------------------------------------------------------

const WORDS = ['/perf', 'quick', 'full', 'ahi', 'compare', 'rerun', 'cancel', 'help', 'bisect', 'signoff', 'waive',
  'vs', '--', 'threads=', 'tests=', 'rounds=', 'metric=', '=', ',', '1', '0', '-x', 'a..b', ...BENCHMARKS,
  '```', '~~~', '>', '`', '    ', '\n', '\r\n', '\t', ' ', '- ', '<!--', '-->', '*', '_', '\\', '|', '#', 'é', '\u00a0', '\u200b'];
const commentish = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 40 })
  .map((parts) => parts.join(''));
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), commentish);

function assertShape(result) {
  if (result === null) return;
  const keys = Object.keys(result);
  if (keys[0] === 'error') {
    assert.deepEqual(keys, ['error']);
    assert.equal(typeof result.error, 'string');
    assert.ok(result.error.length > 0 && !result.error.includes('\n'), JSON.stringify(result.error));
  } else {
    assert.deepEqual(keys, ['command']);
    assert.ok(COMMANDS.some((c) => c.name === result.command.name));
  }
}

test('the parser never throws and always answers null, {command} or a one-line {error}', () => {
  fc.assert(fc.property(anyText, (body) => assertShape(parse(body))), { numRuns: 5000 });
});

// Valid commands built from the table: formatting then parsing gives the arguments back.
const ref = fc.tuple(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,10}(\/[A-Za-z0-9][A-Za-z0-9_-]{0,8})?$/),
  fc.constantFrom('', '~1', '^', '~3^2')).map(([a, b]) => a + b).filter((r) => !r.endsWith('.lock') && r !== 'vs' && !/^pull\//i.test(r));
const measure = fc.record({
  threads: fc.uniqueArray(fc.integer({ min: 1, max: 1024 }), { minLength: 1, maxLength: 4 }),
  tests: fc.uniqueArray(fc.constantFrom(...BENCHMARKS), { minLength: 1 }),
  rounds: fc.integer({ min: 2, max: 50 }),
  metric: fc.constantFrom('time', 'instructions', 'both'),
}, { requiredKeys: [] });
const validCommand = fc.oneof(
  fc.tuple(fc.constantFrom('quick', 'full', 'ahi'), measure, fc.option(fc.stringMatching(/^[0-9a-f]{7,40}$/), { nil: undefined }))
    .map(([name, args, sha]) => ({ name, args: sha ? { sha, ...args } : { ...args } })),
  ref.map((r) => ({ name: 'compare', args: { ref: r } })),
  fc.constantFrom('rerun', 'cancel', 'help').map((name) => ({ name, args: {} })),
  fc.tuple(ref, ref, fc.option(fc.uniqueArray(fc.constantFrom(...BENCHMARKS), { minLength: 1 }), { nil: undefined }))
    .map(([good, bad, tests]) => ({ name: 'bisect', args: tests ? { good, bad, tests } : { good, bad } })),
  fc.tuple(ref, fc.option(ref, { nil: null })).map(([candidate, previous]) => ({ name: 'signoff', args: { candidate, previous } })),
  fc.tuple(fc.constantFrom(...BENCHMARKS), fc.string({ minLength: 1, maxLength: 80 }).map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean))
    .map(([microbenchmark, reason]) => ({ name: 'waive', args: { microbenchmark, reason } })),
);

function format({ name, args }) {
  const parts = ['/perf', name];
  for (const key of ['sha', 'ref', 'good', 'bad', 'candidate', 'microbenchmark']) if (args[key] !== undefined) parts.push(args[key]);
  if (args.previous) parts.push('vs', args.previous);
  for (const [key, value] of Object.entries(args)) {
    if (['threads', 'tests', 'rounds', 'metric'].includes(key)) parts.push(`${key}=${Array.isArray(value) ? value.join(',') : value}`);
  }
  if (args.reason !== undefined) parts.push('--', args.reason);
  return parts.join(' ');
}

test('a valid command survives formatting, surrounding prose and CRLF line ends', () => {
  const prose = fc.array(fc.stringMatching(/^[A-Za-z ,.!?]{0,30}$/), { maxLength: 3 });
  fc.assert(fc.property(validCommand, prose, prose, fc.boolean(), (cmd, before, after, crlf) => {
    const line = format(cmd);
    const body = [...before, line, ...after].join(crlf ? '\r\n' : '\n');
    const got = parse(body);
    assert.ok(got && got.command, `${JSON.stringify(body)} -> ${JSON.stringify(got)}`);
    assert.equal(got.command.name, cmd.name);
    assert.deepEqual(got.command.args, cmd.args);
  }), { numRuns: 2000 });
});

test('a valid command in code, a quote or a list is ignored', () => {
  const wrappers = [
    (l) => `\`\`\`\n${l}\n\`\`\``, (l) => `~~~\n${l}\n~~~`, (l) => `    ${l}`, (l) => `> ${l}`,
    (l) => `\`${l}\``, (l) => `- ${l}`, (l) => `text \`\`\n${l}\n\`\` more`,
    // Inline HTML GitHub does not show: a comment, a tag's attribute, across lines (unless the
    // command itself closes it: then its line is text GitHub shows).
    (l) => `LGTM <!--\n${l}\n-->`, (l) => `ok <span title="\n${l}\n">x</span>`,
  ];
  const closes = (line, wrap) => (wrap === wrappers[7] && line.includes('--')) || (wrap === wrappers[8] && line.includes('"'));
  fc.assert(fc.property(validCommand, fc.constantFrom(...wrappers), (cmd, wrap) => {
    fc.pre(!closes(format(cmd), wrap));
    const body = wrap(format(cmd));
    assert.equal(parse(body), null, JSON.stringify(body));
  }), { numRuns: 1000 });
});
