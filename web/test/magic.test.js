// The spellbook's rows and the actions it sends (magic.js, CONTRACT.md section 11).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spellsOf, spellRows, castAction, autocastAction } from '../src/magic.js';

const SPELLS = { spells: [
  { id: 'fire_strike', name: 'Fire Strike', level: 13, type: 'combat', element: 'fire', baseMaxHit: 8, xp: 11.5, runes: [{ itemId: 'air_rune', quantity: 2 }, { itemId: 'fire_rune', quantity: 3 }, { itemId: 'mind_rune', quantity: 1 }] },
  { id: 'wind_strike', name: 'Wind Strike', level: 1, type: 'combat', element: 'air', baseMaxHit: 2, xp: 5.5, runes: [{ itemId: 'air_rune', quantity: 1 }, { itemId: 'mind_rune', quantity: 1 }] },
] };

test('spells come in level order from either manifest shape; nonsense is no spells', () => {
  assert.deepEqual(spellsOf(SPELLS).map((s) => s.id), ['wind_strike', 'fire_strike']);
  assert.deepEqual(spellsOf(SPELLS.spells).map((s) => s.id), ['wind_strike', 'fire_strike']);
  assert.deepEqual(spellsOf(null), []);
  assert.deepEqual(spellsOf({ spells: [{ name: 'no id' }] }), []);
});

test('a spell is greyed for its level first, then the first rune short', () => {
  const held = (/** @type {string} */ id) => ({ air_rune: 5, mind_rune: 1 })[id] ?? 0;
  const [wind, fire] = spellRows(spellsOf(SPELLS), 5, held);
  assert.equal(wind.canCast, true);
  assert.equal(wind.why, null);
  assert.deepEqual(wind.runes.map((r) => [r.itemId, r.held, r.enough]), [['air_rune', 5, true], ['mind_rune', 1, true]]);
  assert.equal(fire.why, 'Needs Magic 13');
  const [, fireAt13] = spellRows(spellsOf(SPELLS), 13, held);
  assert.equal(fireAt13.why, 'Needs 3 fire rune');
  // A staff of fire stands in for fire runes.
  const [, withStaff] = spellRows(spellsOf(SPELLS), 13, held, ['fire_rune']);
  assert.equal(withStaff.canCast, true);
  assert.equal(withStaff.maxHit, 8);
});

test('cast and autocast are player actions', () => {
  assert.deepEqual(castAction('wind_strike', 'npc-1'), { action: 'cast', spellId: 'wind_strike', targetId: 'npc-1' });
  assert.deepEqual(autocastAction('wind_strike'), { action: 'autocast', spellId: 'wind_strike' });
  assert.deepEqual(autocastAction(null), { action: 'autocast', spellId: null });
});
