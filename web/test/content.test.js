// What an inventory item's click offers (content.js): from the item's definition, and for food the
// served files lack (the server's bundled fallback food in the reference world), from its id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { items, itemVerbs, looksEdible } from '../src/content.js';

test('undefined food is eaten by its first click; raw, burnt and other items are not', () => {
  items.clear();
  for (const id of ['shrimp', 'bread', 'trout', 'cooked_chicken', 'lobster']) {
    assert.ok(looksEdible(id), id);
    assert.equal(itemVerbs(id)[0].label, 'Eat', id);
  }
  for (const id of ['raw_shrimp', 'burnt_trout', 'air_rune', 'bronze_sword', 'logs', 'bones']) {
    assert.ok(!looksEdible(id), id);
    assert.notEqual(itemVerbs(id)[0].label, 'Eat', id);
  }
  // A definition decides: food without a heal amount is not eaten, whatever its id.
  items.set('shrimp', { id: 'shrimp', name: 'Shrimp' });
  assert.notEqual(itemVerbs('shrimp')[0].label, 'Eat');
  items.set('shrimp', { id: 'shrimp', name: 'Shrimp', healAmount: 3 });
  assert.equal(itemVerbs('shrimp')[0].label, 'Eat');
  items.clear();
});
