// Benchmark: how long the client takes to apply one world update for a crowd (255 players and 255
// NPCs all moving), the case a busy town produces every tick. Timings live here and in
// BENCHMARKS.md, never in the unit tests.
//
//   node bench/apply-update.js        (from web/)
import { emptyWorld, applyWorldUpdate } from '../src/state.js';

const ROUNDS = 2000;
const w = emptyWorld();
const added = [];
for (let i = 0; i < 255; i++) added.push({ id: `p${i}`, kind: 'player', x: i % 30, z: Math.floor(i / 30), name: `P${i}` });
for (let i = 0; i < 255; i++) added.push({ id: `npc-${i}`, kind: 'npc', x: i % 30, z: 10 + Math.floor(i / 30), name: 'Goblin' });
applyWorldUpdate(w, { tick: 1, added });
const updates = [0, 1].map((odd) => ({ moved: added.map((e) => ({ id: e.id, x: e.x + odd, z: e.z })) }));
// Warm up, then measure each update on its own.
for (let t = 2; t < 200; t++) applyWorldUpdate(w, { tick: t, ...updates[t % 2] }, t * 600);
const samples = [];
for (let t = 200; t < 200 + ROUNDS; t++) {
  const t0 = performance.now();
  applyWorldUpdate(w, { tick: t, ...updates[t % 2] }, t * 600);
  samples.push(performance.now() - t0);
}
samples.sort((a, b) => a - b);
const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(3);
console.log(`apply 510 moved entities: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms over ${ROUNDS} updates`);
