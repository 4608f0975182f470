// Item pictures: every item of the bundled content and of the reference corpus (beside the
// repository, as the content crate's tests find it) has a look of its own, so no two items of
// different ids are drawn the same; the drawings themselves are hashed by the browser test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { itemLook, lookKey, mix, MATERIALS } from '../src/icons.js';

const ROOT = new URL('../../', import.meta.url);
const BUNDLED = new URL('crates/content/bundled/items/', ROOT);
const REFERENCE = new URL('../shared/reference-content/hyperscape-manifests/items/', ROOT);

/** Every item of a directory of item files, by id. @param {URL} dir */
function itemsIn(dir) {
  /** @type {Map<string, any>} */
  const out = new Map();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    for (const i of JSON.parse(readFileSync(new URL(f, dir), 'utf8'))) out.set(i.id, i);
  }
  return out;
}

/** The bundled items, and the reference ones where the corpus is present (required under CI=true). */
export function allItems() {
  const all = itemsIn(BUNDLED);
  if (existsSync(REFERENCE)) {
    for (const [id, d] of itemsIn(REFERENCE)) if (!all.has(id)) all.set(id, d);
  } else if (process.env.CI === 'true') {
    throw new Error(`the reference corpus is not at ${REFERENCE.pathname}`);
  }
  return all;
}

test('no two items of different ids share a look', () => {
  const all = allItems();
  assert.ok(all.size >= 80, `${all.size} items`);
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const [id, def] of all) {
    const key = lookKey(itemLook(id, def));
    assert.ok(!seen.has(key), `${id} looks like ${seen.get(key)} (${key})`);
    seen.set(key, id);
  }
});

test('looks follow the item: shape by kind, colour by material', () => {
  assert.equal(itemLook('bronze_sword').shape, 'sword');
  assert.equal(itemLook('bronze_sword').colour, MATERIALS.bronze);
  assert.equal(itemLook('iron_sword').colour, MATERIALS.iron);
  assert.equal(itemLook('bronze_pickaxe').shape, 'pickaxe');
  assert.equal(itemLook('bronze_hatchet').shape, 'axe');
  assert.equal(itemLook('copper_ore').accent, MATERIALS.copper);
  assert.notEqual(itemLook('copper_ore').accent, itemLook('tin_ore').accent);
  assert.equal(itemLook('air_rune').shape, 'rune');
  assert.equal(itemLook('tinderbox').shape, 'tinderbox');
  assert.equal(itemLook('thread').shape, 'thread');
  assert.equal(itemLook('trout').shape, 'fish');
  assert.equal(itemLook('raw_shrimp').shape, 'shrimp');
  assert.equal(itemLook('burnt_trout').mark, 'burnt');
  assert.equal(itemLook('bread').shape, 'bread');
  assert.equal(itemLook('bowstring').shape, 'string');
  assert.equal(itemLook('shortbow_u').shape, 'shortbow_u');
  assert.equal(itemLook('coins').shape, 'coins');
  // An item the client has never heard of still gets a picture, in a colour of its own.
  assert.equal(itemLook('mystery_box').shape, 'bag');
  assert.notEqual(itemLook('mystery_box').colour, itemLook('mystery_crate').colour);
});

test('colours mix channel by channel', () => {
  assert.equal(mix('#000000', '#ffffff', 0), '#000000');
  assert.equal(mix('#000000', '#ffffff', 1), '#ffffff');
  assert.equal(mix('#ff0000', '#0000ff', 0.5), '#800080');
});
