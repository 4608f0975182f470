// The make dialog's model and the quantity rules: `make:options` into rows with their reasons in
// words, the action a choice sends, and every typed amount bounded as the server bounds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeRows, makeAction, whyNot, plural, countOf, storedQuantity } from '../src/making.js';
import { parseAmount, stackAmount, MAX_MAKE_QUANTITY, MAX_STACK, QUANTITY_CHOICES } from '../src/quantity.js';

const NAMES = { bronze_bar: 'Bronze Bar', hammer: 'Hammer', bronze_dagger: 'Bronze Dagger', bronze_arrowtips: 'Bronze Arrowtips',
  iron_bar: 'Iron Bar', needle: 'Needle', thread: 'Thread', leather: 'Leather', leather_gloves: 'Leather Gloves',
  cowhide: 'Cowhide', coins: 'Coins', logs: 'Logs', bronze_sword: 'Bronze Sword' };
/** Holdings of an inventory given as {itemId: count}. */
const holding = (inv) => ({ held: (id) => inv[id] ?? 0, nameOf: (id) => NAMES[id] ?? id });

const option = (over) => ({ recipeId: 'smithing:bronze_dagger', skill: 'smithing', level: 1, name: 'Bronze Dagger', xp: 12.5,
  inputs: [{ itemId: 'bronze_bar', quantity: 1 }], tools: ['hammer'], outputs: [{ itemId: 'bronze_dagger', quantity: 1 }], canMake: true, ...over });

// The bronze bar's anvil offer as the server sends it to a new smith (crates/server/tests/api/making.rs).
const ANVIL = {
  context: { targetId: 'station-anvil-1', stationType: 'anvil', slots: [4] },
  options: [
    option({}),
    option({ recipeId: 'smithing:bronze_sword', name: 'Bronze Sword', level: 4, xp: 12.5, outputs: [{ itemId: 'bronze_sword', quantity: 1 }], canMake: false, reason: 'level_too_low' }),
    option({ recipeId: 'smithing:bronze_arrowtips', name: 'Bronze Arrowtips', level: 5, xp: 12.5, outputs: [{ itemId: 'bronze_arrowtips', quantity: 10 }], canMake: false, reason: 'level_too_low' }),
    option({ recipeId: 'smithing:bronze_platebody', name: 'Bronze Platebody', level: 18, xp: 62.5, inputs: [{ itemId: 'bronze_bar', quantity: 5 }], outputs: [{ itemId: 'bronze_platebody', quantity: 1 }], canMake: false, reason: 'level_too_low' }),
  ],
};

test('options become rows in the server order, keyed 1-9, greyed ones with why', () => {
  const rows = makeRows(ANVIL.options, holding({ bronze_bar: 5, hammer: 1 }));
  assert.deepEqual(rows.map((r) => [r.recipeId, r.key, r.canMake, r.why]), [
    ['smithing:bronze_dagger', 1, true, null],
    ['smithing:bronze_sword', 2, false, 'Needs Smithing 4'],
    ['smithing:bronze_arrowtips', 3, false, 'Needs Smithing 5'],
    ['smithing:bronze_platebody', 4, false, 'Needs Smithing 18'],
  ]);
  const dagger = rows[0];
  assert.equal(dagger.name, 'Bronze Dagger');
  assert.equal(dagger.level, 'Smithing 1');
  assert.equal(dagger.xp, '12.5 XP');
  assert.deepEqual(dagger.needs, ['1 × Bronze Bar', 'Hammer']);
  assert.deepEqual(dagger.picture, { itemId: 'bronze_dagger', quantity: 1 });
  // A batch recipe shows what one make gives; a platebody takes five bars.
  assert.deepEqual(rows[2].picture, { itemId: 'bronze_arrowtips', quantity: 10 });
  assert.deepEqual(rows[3].needs, ['5 × Bronze Bar', 'Hammer']);
  assert.equal(rows[3].xp, '62.5 XP');
});

test('only the first nine options take a digit key', () => {
  const many = Array.from({ length: 11 }, (_, i) => option({ recipeId: `r${i}` }));
  assert.deepEqual(makeRows(many, holding({})).map((r) => r.key), [1, 2, 3, 4, 5, 6, 7, 8, 9, null, null]);
});

test('missing items name the first input short, with the count one make takes', () => {
  const platebody = option({ inputs: [{ itemId: 'bronze_bar', quantity: 5 }], canMake: false, reason: 'missing_items' });
  assert.equal(whyNot(platebody, holding({ bronze_bar: 3, hammer: 1 })), 'Needs 5 bronze bars');
  const two = option({ inputs: [{ itemId: 'iron_bar', quantity: 1 }, { itemId: 'bronze_bar', quantity: 2 }], canMake: false, reason: 'missing_items' });
  assert.equal(whyNot(two, holding({ iron_bar: 1, bronze_bar: 1 })), 'Needs 2 bronze bars');
  assert.equal(whyNot(two, holding({ bronze_bar: 2 })), 'Needs an iron bar');
  // Tanning's coins count as an input, after the hide.
  const tan = option({ skill: null, inputs: [{ itemId: 'cowhide', quantity: 1 }], tools: [], coins: 3, canMake: false, reason: 'missing_items' });
  assert.equal(whyNot(tan, holding({ cowhide: 1, coins: 2 })), 'Needs 3 coins');
  // The client's inventory a tick behind the server's: the first input is named.
  assert.equal(whyNot(platebody, holding({ bronze_bar: 9 })), 'Needs 5 bronze bars');
});

test('a missing tool is named with its article; thread counts as a tool', () => {
  assert.equal(whyNot(option({ canMake: false, reason: 'missing_tool' }), holding({ bronze_bar: 1 })), 'Needs a hammer');
  const gloves = option({ recipeId: 'crafting:leather_gloves', skill: 'crafting', inputs: [{ itemId: 'leather', quantity: 1 }],
    tools: ['needle'], consumables: [{ itemId: 'thread', uses: 5 }], canMake: false, reason: 'missing_tool' });
  assert.equal(whyNot(gloves, holding({ leather: 1, needle: 1 })), 'Needs thread');
  assert.equal(whyNot(gloves, holding({ leather: 1 })), 'Needs a needle');
  assert.deepEqual(makeRows([gloves], holding({})).map((r) => r.needs), [['1 × Leather', 'Needle', 'Thread (1 per 5)']]);
});

test('a level reason without a skill (tanning) and unknown reasons still read as words', () => {
  assert.equal(whyNot(option({ skill: null, level: 3, canMake: false, reason: 'level_too_low' }), holding({})), 'Needs level 3');
  assert.equal(whyNot(option({ canMake: false, reason: 'some_new_reason' }), holding({})), 'Some New Reason');
});

test('plurals follow the server narration', () => {
  assert.deepEqual(['bronze bar', 'leather body', 'bronze arrowtips', 'box', 'key', 'torch'].map(plural),
    ['bronze bars', 'leather bodies', 'bronze arrowtips', 'boxes', 'keys', 'torches']);
  assert.equal(countOf(1, 'Hammer'), 'a hammer');
  assert.equal(countOf(1, 'Iron Bar'), 'an iron bar');
  assert.equal(countOf(1200, 'Logs'), '1,200 logs');
});

test('a choice sends make with the recipe, the quantity and the station of the context', () => {
  assert.deepEqual(makeAction(ANVIL, 'smithing:bronze_dagger', 5),
    { action: 'make', recipeId: 'smithing:bronze_dagger', quantity: 5, targetId: 'station-anvil-1' });
  assert.deepEqual(makeAction(ANVIL, 'smithing:bronze_dagger', 'all'),
    { action: 'make', recipeId: 'smithing:bronze_dagger', quantity: 'all', targetId: 'station-anvil-1' });
  // An item used on an item: no station.
  assert.deepEqual(makeAction({ context: { slots: [1, 2] }, options: [] }, 'fletching:arrow_shaft', 10),
    { action: 'make', recipeId: 'fletching:arrow_shaft', quantity: 10 });
});

test('typed amounts: whole numbers from 1 to the bound, k and m, nothing else', () => {
  assert.deepEqual(parseAmount('7', MAX_MAKE_QUANTITY), { ok: true, value: 7 });
  assert.deepEqual(parseAmount(' 1,000 ', MAX_MAKE_QUANTITY), { ok: true, value: 1000 });
  assert.deepEqual(parseAmount('5k', MAX_MAKE_QUANTITY), { ok: true, value: 5000 });
  assert.deepEqual(parseAmount('2M', MAX_STACK), { ok: true, value: 2_000_000 });
  // The bounds: the last allowed and the first refused, at both ends.
  assert.deepEqual(parseAmount('1', MAX_MAKE_QUANTITY), { ok: true, value: 1 });
  assert.equal(parseAmount('0', MAX_MAKE_QUANTITY).ok, false);
  assert.deepEqual(parseAmount('10000', MAX_MAKE_QUANTITY), { ok: true, value: 10_000 });
  assert.equal(parseAmount('10001', MAX_MAKE_QUANTITY).ok, false);
  assert.deepEqual(parseAmount('2147483647', MAX_STACK), { ok: true, value: MAX_STACK });
  assert.equal(parseAmount('2147483648', MAX_STACK).ok, false);
  assert.equal(parseAmount('99999999999999999999999', MAX_STACK).ok, false);
  for (const bad of ['', ' ', '-3', '2.5', '1e3', 'abc', 'k', '5kk', '0x10']) {
    const r = parseAmount(bad, MAX_MAKE_QUANTITY);
    assert.equal(r.ok, false, bad);
    assert.equal('error' in r && r.error, 'Enter a whole number from 1 to 10,000.', bad);
  }
});

test('fixed choices send a count capped at the stack; All sends the stack', () => {
  assert.deepEqual(QUANTITY_CHOICES, [1, 5, 10, 'x', 'all']);
  assert.equal(stackAmount(5, 20), 5);
  assert.equal(stackAmount(10, 7), 7);
  assert.equal(stackAmount('all', 7), 7);
});

test('the kept make quantity is read back within its bounds', () => {
  assert.equal(storedQuantity('all', MAX_MAKE_QUANTITY), 'all');
  assert.equal(storedQuantity('5', MAX_MAKE_QUANTITY), 5);
  assert.equal(storedQuantity('10000', MAX_MAKE_QUANTITY), 10_000);
  for (const bad of [null, '', '0', '10001', '2.5', 'x']) assert.equal(storedQuantity(bad, MAX_MAKE_QUANTITY), 1, String(bad));
});

test('the bounds are the server\'s', () => {
  const making = readFileSync(new URL('../../crates/sim/src/making/mod.rs', import.meta.url), 'utf8');
  const make = /pub const MAX_MAKE_QUANTITY: u32 = ([\d_]+);/.exec(making);
  assert.ok(make, 'MAX_MAKE_QUANTITY found');
  assert.equal(Number(make[1].replace(/_/g, '')), MAX_MAKE_QUANTITY);
  const inventory = readFileSync(new URL('../../crates/sim/src/inventory.rs', import.meta.url), 'utf8');
  assert.match(inventory, /pub const MAX_STACK: u32 = i32::MAX as u32;/);
  assert.equal(MAX_STACK, 2 ** 31 - 1);
});

test('skills are named as the combat tab names them: the server\'s defense is Defence', async () => {
  const { skillName } = await import('../src/dom.js');
  assert.equal(skillName('defense'), 'Defence');
  assert.equal(skillName('woodcutting'), 'Woodcutting');
  assert.equal(whyNot({ recipeId: 'x', skill: 'defense', level: 5, canMake: false, reason: 'level_too_low', inputs: [], tools: [] }, {}), 'Needs Defence 5');
});
