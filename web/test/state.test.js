import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyWorld, applyWorldUpdate, drawnPosition, entitiesAt } from '../src/state.js';

const tree = { id: 'res-1', kind: 'resource', x: 3, z: 4, name: 'Tree', resourceType: 'tree', depleted: false };
const bob = { id: 'c-1', kind: 'player', x: 0, z: 0, name: 'Bob', health: 10, maxHealth: 10 };

test('added entities appear, moves and changes update them, removals drop them', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, added: [tree, bob], moved: [], changed: [], removed: [] }, 100);
  assert.equal(w.entities.size, 2);
  applyWorldUpdate(w, { tick: 2, moved: [{ id: 'c-1', x: 2, z: 0 }], changed: [{ id: 'res-1', depleted: true }, { id: 'c-1', health: 7 }] }, 700);
  const b = w.entities.get('c-1');
  assert.deepEqual([b.x, b.z, b.px, b.pz, b.health, b.maxHealth], [2, 0, 0, 0, 7, 10]);
  assert.equal(w.entities.get('res-1').depleted, true);
  assert.equal(w.entities.get('res-1').name, 'Tree', 'a change keeps the fields it does not name');
  applyWorldUpdate(w, { tick: 3, removed: ['res-1'] });
  assert.equal(w.entities.has('res-1'), false);
  assert.equal(w.tick, 3);
});

test('an id removed and added in one update is the new entity (removals first)', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, added: [bob] });
  applyWorldUpdate(w, { tick: 2, removed: ['c-1'], added: [{ ...bob, x: 9, z: 9 }] });
  assert.equal(w.entities.get('c-1').x, 9);
});

test('moves and changes of unknown ids are ignored, not invented', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, moved: [{ id: 'ghost', x: 1, z: 1 }], changed: [{ id: 'ghost', health: 1 }] });
  assert.equal(w.entities.size, 0);
});

test("a player's worn items arrive in added and are replaced whole by a change", () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, added: [{ id: 'p', kind: 'player', x: 0, z: 0, worn: { weapon: 'bronze_sword', helmet: 'iron_helmet' } }] });
  const first = w.entities.get('p')?.worn;
  assert.deepEqual(first, { weapon: 'bronze_sword', helmet: 'iron_helmet' });
  applyWorldUpdate(w, { tick: 2, changed: [{ id: 'p', worn: { weapon: 'iron_sword' } }] });
  assert.deepEqual(w.entities.get('p')?.worn, { weapon: 'iron_sword' }, 'the whole map, not merged');
  assert.notEqual(w.entities.get('p')?.worn, first, 'a new object: the drawing notices by identity');
  applyWorldUpdate(w, { tick: 3, changed: [{ id: 'p', worn: {} }] });
  assert.deepEqual(w.entities.get('p')?.worn, {});
});

test('an older tick does not move the world tick back', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 5 });
  applyWorldUpdate(w, { tick: 4 });
  assert.equal(w.tick, 5);
});

test('a moved entity slides over one tick', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, added: [bob] }, 0);
  applyWorldUpdate(w, { tick: 2, moved: [{ id: 'c-1', x: 2, z: 0 }] }, 1000);
  const e = w.entities.get('c-1');
  assert.deepEqual(drawnPosition(e, 1000, 600), { x: 0, z: 0 });
  assert.deepEqual(drawnPosition(e, 1300, 600), { x: 1, z: 0 });
  assert.deepEqual(drawnPosition(e, 5000, 600), { x: 2, z: 0 });
});

test('entitiesAt lists what is under a tile, nearest first', () => {
  const w = emptyWorld();
  applyWorldUpdate(w, { tick: 1, added: [tree, { ...bob, x: 3, z: 5 }] });
  assert.deepEqual(entitiesAt(w, 3, 4).map((e) => e.id), ['res-1']);
  assert.deepEqual(entitiesAt(w, 3, 4, 1).map((e) => e.id), ['res-1', 'c-1']);
});

test('a crowd of 255 players and 255 NPCs moving every tick ends where the last update put it', () => {
  // How fast this is belongs to a benchmark (web/bench/apply-update.js, BENCHMARKS.md), not a test.
  const w = emptyWorld();
  const added = [];
  for (let i = 0; i < 255; i++) added.push({ id: `p${i}`, kind: 'player', x: i % 30, z: Math.floor(i / 30), name: `P${i}` });
  for (let i = 0; i < 255; i++) added.push({ id: `npc-${i}`, kind: 'npc', x: i % 30, z: 10 + Math.floor(i / 30), name: 'Goblin' });
  applyWorldUpdate(w, { tick: 1, added });
  for (let t = 2; t < 102; t++) {
    applyWorldUpdate(w, { tick: t, moved: added.map((e) => ({ id: e.id, x: e.x + (t % 2), z: e.z })) }, t * 600);
  }
  assert.equal(w.entities.size, 510);
  assert.equal(w.tick, 101);
  // Tick 101 is odd: every entity one tile east of where it was added, and came from its own tile.
  for (const e of added) {
    const now = w.entities.get(e.id);
    assert.deepEqual([now.x, now.z, now.px, now.pz], [e.x + 1, e.z, e.x, e.z], e.id);
  }
});
