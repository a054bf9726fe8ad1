'use strict';
// Draws from a seed, the same on every run (so that a failing run can be repeated): a small
// seeded generator (mulberry32) of uniforms in [0, 1), and normal draws from it (Box–Muller).
function seededUniform(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seededNormals(seed) {
  const uniform = seededUniform(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

module.exports = { seededUniform, seededNormals };
