// What an inventory item's click offers (content.js): from the item's definition alone (the server
// serves the definitions of the items it plays that its files lack, `items/fallback.json`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { items, itemVerbs } from '../src/content.js';

test('food is eaten by its first click when its definition heals; nothing is guessed from an id', () => {
  items.clear();
  // Unknown to the client: no Eat, whatever the id looks like.
  for (const id of ['shrimp', 'raw_shrimp', 'air_rune']) {
    assert.ok(!itemVerbs(id).some((v) => v.label === 'Eat'), id);
  }
  // A definition decides: food without a heal amount is not eaten, with one it is.
  items.set('shrimp', { id: 'shrimp', name: 'Shrimp' });
  assert.ok(!itemVerbs('shrimp').some((v) => v.label === 'Eat'));
  items.set('shrimp', { id: 'shrimp', name: 'Shrimp', healAmount: 3 });
  assert.equal(itemVerbs('shrimp')[0].label, 'Eat');
  items.clear();
});
