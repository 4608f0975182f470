// The world's figures and resources (sprites.js), name placement (labels.js), poses (anim.js)
// and the hover line (ui/hover.js): pure parts, no canvas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { npcLook, playerLook, figureKey, resourceLook } from '../src/sprites.js';
import { placeLabel, MAX_STACK } from '../src/labels.js';
import { Motion, SWING_MS, DYING_MS, IDLE_TICKS } from '../src/anim.js';
import { hoverLine } from '../src/ui/hover.js';

const npcIds = () => {
  const ids = new Set(JSON.parse(readFileSync(new URL('../../crates/content/bundled/npcs.json', import.meta.url), 'utf8')).map((n) => n.id));
  const ref = new URL('../../../shared/reference-content/hyperscape-manifests/', import.meta.url);
  for (const f of ['npcs.json', 'mobs.json']) {
    if (!existsSync(new URL(f, ref))) continue;
    const d = JSON.parse(readFileSync(new URL(f, ref), 'utf8'));
    for (const n of Array.isArray(d) ? d : d.npcs ?? d.mobs ?? []) ids.add(n.id);
  }
  return [...ids];
};

test('every NPC kind of the bundled and reference content is drawn its own way', () => {
  const ids = npcIds();
  assert.ok(ids.length >= 13, `${ids.length} kinds`);
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const id of ids) {
    const key = figureKey(npcLook(id));
    assert.ok(!seen.has(key), `${id} is drawn like ${seen.get(key)}`);
    seen.set(key, id);
  }
  assert.equal(npcLook('chicken').body, 'chicken');
  assert.equal(npcLook('giant_rat').body, 'rat');
  assert.equal(npcLook('wolf').body, 'wolf');
  assert.equal(npcLook('skeleton').body, 'skeleton');
  assert.equal(npcLook('goblin').body, 'human');
  // An NPC kind the client does not know still differs from another unknown one.
  assert.notEqual(figureKey(npcLook('troll_king')), figureKey(npcLook('swamp_hag')));
});

test('a player shows what they wear', () => {
  const bare = playerLook('Ann');
  const armed = playerLook('Ann', { weapon: { itemId: 'bronze_pickaxe' }, helmet: { itemId: 'iron_helmet' }, shield: { itemId: 'wooden_shield' } });
  assert.equal(bare.weapon, undefined);
  assert.equal(armed.weaponShape, 'pickaxe');
  assert.equal(armed.hatShape, 'helm');
  assert.ok(armed.shield);
  assert.notEqual(figureKey(bare), figureKey(armed));
  assert.equal(playerLook('Ann', { weapon: { itemId: 'oak_shortbow' } }).weaponShape, 'bow');
  // Two players are told apart by their colours.
  assert.notEqual(playerLook('Ann').shirt, playerLook('Bob').shirt);
});

test("another player's worn items (their entity's worn: slot to item id) draw as one's own do", () => {
  const own = playerLook('Cy', { weapon: { itemId: 'bronze_sword' }, body: { itemId: 'iron_platebody' }, boots: { itemId: 'leather_boots' } });
  const seen = playerLook('Cy', { weapon: 'bronze_sword', body: 'iron_platebody', boots: 'leather_boots' });
  assert.deepEqual(seen, own);
  assert.equal(seen.weaponShape, 'sword');
  assert.ok(seen.boots);
  // Every visible slot changes the figure.
  const bare = figureKey(playerLook('Cy'));
  for (const [slot, item] of [['weapon', 'bronze_sword'], ['shield', 'wooden_shield'], ['helmet', 'iron_helmet'], ['body', 'iron_platebody'],
    ['legs', 'iron_platelegs'], ['cape', 'red_cape'], ['boots', 'leather_boots'], ['gloves', 'leather_gloves'], ['amulet', 'amulet_of_strength']]) {
    assert.notEqual(figureKey(playerLook('Cy', { [slot]: item })), bare, slot);
  }
  // Nothing worn (an empty map after a death) is the bare figure.
  assert.equal(figureKey(playerLook('Cy', {})), bare);
});

test('resources by type and tier; stations with a badge', () => {
  const copper = resourceLook({ resourceType: 'ore', typeId: 'rock_copper' });
  const tin = resourceLook({ resourceType: 'ore', typeId: 'rock_tin' });
  assert.equal(copper.kind, 'rock');
  assert.notEqual(copper.accent, tin.accent);
  assert.notEqual(resourceLook({ resourceType: 'ore', typeId: 'ore_mithril' }).accent, resourceLook({ resourceType: 'ore', typeId: 'ore_runite' }).accent);
  assert.notEqual(resourceLook({ resourceType: 'tree', typeId: 'tree_oak' }).colour, resourceLook({ resourceType: 'tree', typeId: 'tree_normal' }).colour);
  assert.equal(resourceLook({ resourceType: 'tree', typeId: 'tree_willow' }).kind, 'willow');
  assert.equal(resourceLook({ resourceType: 'fishing_spot', typeId: 'fishing_spot_net' }).badge, 'small_fishing_net');
  assert.equal(resourceLook({ resourceType: 'fishing_spot', typeId: 'fishing_spot_bait' }).badge, 'fishing_bait');
  for (const station of ['bank', 'furnace', 'anvil', 'range', 'altar']) {
    const l = resourceLook({ resourceType: station });
    assert.equal(l.kind, station);
    assert.ok(l.badge, `${station} has a badge`);
  }
  assert.equal(resourceLook({ resourceType: 'fire' }).kind, 'fire');
  // Runecrafting altars (CONTRACT.md section 11) by their element.
  assert.equal(resourceLook({ resourceType: 'fire_altar' }).badge, 'fire_rune');
  assert.notEqual(resourceLook({ resourceType: 'fire_altar' }).accent, resourceLook({ resourceType: 'water_altar' }).accent);
});

test('names never overlap: stacked upwards, left out past the stack', () => {
  const placed = [];
  const a = placeLabel(placed, 100, 50, 40, 12);
  const b = placeLabel(placed, 100, 50, 40, 12);
  const c = placeLabel(placed, 130, 50, 40, 12);
  assert.deepEqual([a?.y, b?.y, c?.y], [50, 38, 26]);
  // Far away: its own spot.
  assert.equal(placeLabel(placed, 300, 50, 40, 12)?.y, 50);
  // A column full to MAX_STACK lines: the next is left out.
  const full = [];
  for (let i = 0; i <= MAX_STACK; i++) assert.ok(placeLabel(full, 0, 0, 10, 12));
  assert.equal(placeLabel(full, 0, 0, 10, 12), null);
  // No two placed labels overlap.
  for (const [i, p] of placed.entries()) for (const q of placed.slice(i + 1)) {
    const overlap = p.x < q.x + q.w && q.x < p.x + p.w && p.y - p.h < q.y && q.y - q.h < p.y;
    assert.ok(!overlap, JSON.stringify([p, q]));
  }
});

test('poses: walking steps, a landed hit swings, work swings each tick, death falls', () => {
  const m = new Motion();
  const tick = 600;
  const e = { id: 'a', x: 5, z: 5, px: 4, pz: 5, movedAt: 1000, health: 10 };
  assert.match(m.pose(e, false, 1100, tick).pose, /^step/);
  assert.equal(m.pose(e, false, 1700, tick).pose, 'stand');
  m.hit({ attackerId: 'a', targetId: 'b', targetHealth: 3 }, 2000);
  assert.equal(m.pose(e, false, 2000 + SWING_MS - 1, tick).pose, 'swing');
  assert.equal(m.pose(e, false, 2000 + SWING_MS, tick).pose, 'stand');
  // The player's own work swings once a tick while something is gained.
  m.begin('gather', 'tree-1', 3000);
  assert.equal(m.pose(e, true, 3000, tick).pose, 'swing');
  assert.equal(m.pose(e, true, 3000 + tick * 0.5, tick).pose, 'stand');
  assert.equal(m.pose(e, false, 3000, tick).pose, 'stand', 'another entity does not show my work');
  m.gained(3000 + tick * 4);
  assert.equal(m.pose(e, true, 3000 + tick * 5, tick).pose, 'swing');
  // Nothing gained for IDLE_TICKS: the work is over.
  assert.equal(m.pose(e, true, 3000 + tick * (5 + IDLE_TICKS), tick).pose, 'stand');
  assert.equal(m.work, null);
  // A hit to 0 health: the target falls over.
  const b = { id: 'b', x: 1, z: 1, health: 0 };
  m.hit({ attackerId: 'a', targetId: 'b', targetHealth: 0 }, 10_000);
  assert.equal(m.pose(b, false, 10_000 + DYING_MS / 2, tick).dying, 0.5);
  assert.equal(m.pose(b, false, 10_000 + DYING_MS * 2, tick).dying, 1);
  // A dead NPC the server removes finishes its fall, then is forgotten.
  const rat = { id: 'rat', x: 3, z: 3, health: 0 };
  m.hit({ attackerId: 'a', targetId: 'rat', targetHealth: 0 }, 20_000, rat);
  assert.deepEqual(m.fallen(() => false, 20_000 + DYING_MS / 2), [rat]);
  assert.deepEqual(m.fallen(() => true, 20_000 + DYING_MS / 2), [], 'still in the world: drawn as usual');
  assert.deepEqual(m.fallen(() => false, 20_000 + DYING_MS), []);
  assert.equal(m.corpses.size, 0);
  // Back to life (respawned): standing again once the fall is over.
  b.health = 10;
  assert.equal(m.pose(b, false, 10_000 + DYING_MS * 2, tick).dying, null);
});

test('the hover line is the first option, its target and how many more', () => {
  assert.deepEqual(hoverLine([{ label: 'Chop down', target: 'Tree' }, { label: 'Examine', target: 'Tree' }, { label: 'Walk here' }]),
    { label: 'Chop down', target: 'Tree', more: ' / 2 more options' });
  assert.deepEqual(hoverLine([{ label: 'Take', target: 'Bones' }]), { label: 'Take', target: 'Bones', more: '' });
  assert.equal(hoverLine([{ label: 'Walk here' }]), null);
  assert.equal(hoverLine([]), null);
});

test('agility obstacles are drawn by what they are and crossed with their own verb', async () => {
  const { obstacleVerb } = await import('../src/ui/menu.js');
  const kinds = ['log_balance', 'ledge', 'net', 'pipe'];
  const looks = kinds.map((k) => resourceLook({ kind: 'obstacle', resourceType: k, typeId: `course_${k}` }));
  assert.deepEqual(looks.map((l) => l.kind), kinds.map((k) => `obstacle_${k}`));
  assert.equal(new Set(looks.map((l) => `${l.colour}|${l.accent}`)).size, kinds.length);
  // An obstacle of a kind not drawn yet is a stile, never a station.
  assert.equal(resourceLook({ kind: 'obstacle', resourceType: 'rope_swing' }).kind, 'obstacle');
  assert.equal(obstacleVerb('log_balance'), 'Walk-across');
  assert.equal(obstacleVerb('pipe'), 'Squeeze-through');
  assert.equal(obstacleVerb('rope_swing'), 'Cross');
});
