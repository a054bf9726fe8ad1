'use strict';
// The place each build runs in during one harness run. A side's place is everything the
// harness gives a side by its name: its folder, socket and port, the way its datadir is made
// (the base loads the tables and rewrites its copy, the heads get copies of it), and its turn.
//
// Why the places change: in A/A runs of one 10.11.18 prefix on this project's runner, the side
// in the head's place measured the write rows slower than the base's place (update-index below
// 1 in 22 of 24 runs, geometric mean 0.958; one of them failed an unchanged row at 0.83);
// reversing the servers' start order or the slices' order did not move it, and confirming
// rounds in reversed places measured it the other way round (update-index 0.985 on the first
// servers, 1.074 on the confirming ones, 8 runs). Fresh servers in the same places repeat it,
// so a confirmation that keeps the places cannot tell a regression from a place. Every step on
// fresh servers therefore runs the builds in places opposite to the step of its signal before
// it, the first such step in reversed places: what the first servers saw because of their
// places, the confirming servers see the other way round, and a fail or warn only one pair of
// servers proved is not reported (verdict.js, `unconfirmed`). The pooled rounds still carry a
// place's cost in proportion to the pairs measured in each place.
//
// The harness knows nothing of this: it runs a plan whose sides hold the builds in their places,
// and its results are turned back to the builds' own side names at the edge (the compare loop),
// recording in `places` where each ran.

// side -> the place it runs in: the order of the sides reversed (base in the last head's
// place, the last head in the base's; a chain's middle head keeps its own).
function reversedPlaces(sideNames) {
  return Object.fromEntries(sideNames.map((side, i) => [side, sideNames[sideNames.length - 1 - i]]));
}

// What a step measures: instruction windows or timed rounds. Each alternates on its own: the
// rounds of a confirmation pair with the first servers' rounds, windows with windows.
const unitOf = (step) => (step.windows ? 'windows' : 'rounds');

/**
 * The places of the builds in one step on fresh servers, given the steps of the comparison
 * before it: reversed for the first step of its unit (windows or rounds), then in turn; null
 * for the builds' own places.
 */
function stepPlaces(step, earlierSteps, sideNames) {
  const before = earlierSteps.filter((s) => unitOf(s) === unitOf(step)).length;
  return before % 2 === 0 ? reversedPlaces(sideNames) : null;
}

// place -> the side that runs there.
function occupants(places) {
  return Object.fromEntries(Object.entries(places).map(([side, place]) => [place, side]));
}

// The sides that run in another's place: side -> place.
function movedPlaces(places) {
  return Object.fromEntries(Object.entries(places).filter(([side, place]) => side !== place));
}

function checkPlaces(places, sideNames, what) {
  const set = (names) => JSON.stringify([...names].sort());
  if (set(Object.keys(places)) !== set(sideNames) || set(Object.values(places)) !== set(sideNames)) {
    throw new Error(`internal: places ${JSON.stringify(places)} do not put each of ${what}'s sides (${sideNames.join(', ')}) in one of its places`);
  }
}

/** The plan with each side's build (basedir, label, commit, options) moved to its place. */
function planInPlaces(plan, places) {
  const sideNames = Object.keys(plan.sides);
  checkPlaces(places, sideNames, 'the plan');
  const who = occupants(places);
  return { ...plan, sides: Object.fromEntries(sideNames.map((place) => [place, plan.sides[who[place]]])) };
}

// Keys of `obj` that are place names renamed to the side that ran there, in the sides' order;
// other keys kept first, as they were.
function byOccupant(obj, places) {
  if (!obj || typeof obj !== 'object') return obj;
  const placeNames = new Set(Object.values(places));
  const out = {};
  for (const [key, value] of Object.entries(obj)) if (!placeNames.has(key)) out[key] = value;
  for (const [side, place] of Object.entries(places)) if (place in obj) out[side] = obj[place];
  return out;
}

/**
 * A results document of a run in `places` (side -> place) with every side named by the build
 * that ran: the sides, the plan's sides, each round's side, the instruction windows and AHI
 * counters of each side, the errors. `places` records where each side ran; an error of a side
 * that ran elsewhere says so. The harness's own words in warnings keep the place names.
 */
function resultsFromPlaces(doc, places) {
  const sideNames = Object.keys(places);
  checkPlaces(places, Object.keys(doc.sides || {}), 'the results');
  const who = occupants(places);
  const sideOf = (place) => (place == null ? place : who[place] ?? place);
  const error = (e) => {
    if (!e || e.side == null || sideOf(e.side) === e.side) return e;
    return { ...e, side: sideOf(e.side), message: `${e.message} (the ${sideOf(e.side)} server, run in the ${e.side}'s place)` };
  };
  const benchmark = (b) => ({
    ...b,
    rounds: (b.rounds || []).map((r) => ({ ...r, side: sideOf(r.side) })),
    ...(b.instructions ? { instructions: byOccupant(b.instructions, places) } : {}),
    ...(b.ahi_counters ? { ahi_counters: byOccupant(b.ahi_counters, places) } : {}),
    ...(b.error ? { error: error(b.error) } : {}),
  });
  const moved = movedPlaces(places);
  return {
    ...doc,
    ...(doc.plan && doc.plan.sides ? { plan: { ...doc.plan, sides: Object.fromEntries(sideNames.map((side) => [side, doc.plan.sides[places[side]]])) } } : {}),
    sides: Object.fromEntries(sideNames.map((side) => [side, doc.sides[places[side]]])),
    errors: (doc.errors || []).map(error),
    benchmarks: (doc.benchmarks || []).map(benchmark),
    ...(Object.keys(moved).length ? { places: moved } : {}),
  };
}

/**
 * The callgrind files a step in places kept (the harness keeps a side's last window in its
 * place's folder, servers/<place>/callgrind/...) moved to the folder of the build that counted
 * them, so that servers/head/ holds the head build's files whichever place it ran in.
 * Returns the results with each side's `files` pointing there, and the moves to make
 * ({from, to}, relative to the run folder). A path that is not plainly under its place's
 * folder (absolute, or with a `..` segment) is left as it is and not moved.
 */
function filesToOwnFolders(doc, places) {
  const moves = [];
  const plain = (p) => typeof p === 'string' && !p.startsWith('/') && !p.split('/').includes('..');
  const benchmarks = (doc.benchmarks || []).map((b) => {
    if (!b.instructions) return b;
    const instructions = { ...b.instructions };
    for (const [side, place] of Object.entries(places)) {
      const own = instructions[side];
      const prefix = `servers/${place}/`;
      if (side === place || !own || !plain(own.files) || !own.files.startsWith(prefix)) continue;
      const to = `servers/${side}/${own.files.slice(prefix.length)}`;
      moves.push({ from: own.files, to });
      instructions[side] = { ...own, files: to };
    }
    return { ...b, instructions };
  });
  return { results: { ...doc, benchmarks }, moves };
}

/** A progress event's side names ("base", or "base, head" for a step of both) as the builds'. */
function eventFromPlaces(event, places) {
  if (!places || typeof event.side !== 'string') return event;
  const who = occupants(places);
  return { ...event, side: event.side.split(', ').map((place) => who[place] ?? place).join(', ') };
}

module.exports = { reversedPlaces, stepPlaces, movedPlaces, planInPlaces, resultsFromPlaces, filesToOwnFolders, eventFromPlaces };
