// The duel window's state (duel.js) over the messages of CONTRACT.md section 11.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noDuel, duelReducer, challenged, DUEL_RULES } from '../src/duel.js';
import { unofferedInventory } from '../src/trade.js';

const stake = (items, accepted = false) => ({ items, value: items.reduce((n, i) => n + (i.value ?? 0), 0), accepted });
const sword = { inventorySlot: 4, itemId: 'bronze_sword', name: 'Bronze Sword', quantity: 1, value: 20 };
const rules = (screen, mine = stake([]), theirs = stake([]), on = []) => ({ duelId: 'd1', opponentId: 'p2', opponentName: 'Brom', screen, rules: on, myStake: mine, theirStake: theirs });

test('a challenge, both screens, the fight and a win', () => {
  let s = challenged(noDuel(), 'p2', 'Brom');
  assert.equal(s.phase, 'requested');
  s = duelReducer(s, 'duel:rules', rules(1), 'p1');
  assert.deepEqual([s.phase, s.duelId, s.opponentName], ['screen1', 'd1', 'Brom']);
  s = duelReducer(s, 'duel:rules', rules(1, stake([sword]), stake([]), ['no_food']), 'p1');
  assert.deepEqual(s.rules, ['no_food']);
  assert.equal(s.mine.value, 20);
  s = duelReducer(s, 'duel:rules', rules(2, stake([sword], true), stake([], true), ['no_food']), 'p1');
  assert.equal(s.phase, 'screen2');
  s = duelReducer(s, 'duel:start', { duelId: 'd1', opponentId: 'p2', rules: ['no_food'], arenaId: 'arena', tile: { x: 1, z: 2 } }, 'p1');
  assert.equal(s.phase, 'fighting');
  s = duelReducer(s, 'duel:result', { duelId: 'd1', winnerId: 'p1', loserId: 'p2', receivedItems: [{ itemId: 'coins', quantity: 50 }] }, 'p1');
  assert.deepEqual([s.phase, s.message, s.received.length], ['done', 'You won the duel!', 1]);
});

test('an incoming challenge; messages of another duel ignored while busy; cancels and errors in words', () => {
  let s = duelReducer(noDuel(), 'duelIncoming', { duelId: 'd9', fromPlayerId: 'p3', fromPlayerName: 'Cato' }, 'p1');
  assert.deepEqual([s.phase, s.opponentName], ['incoming', 'Cato']);
  s = duelReducer(s, 'duel:rules', rules(1), 'p1');
  assert.equal(s.phase, 'screen1');
  assert.equal(duelReducer(s, 'duelIncoming', { duelId: 'd7', fromPlayerId: 'p4', fromPlayerName: 'Dara' }, 'p1'), s);
  assert.equal(duelReducer(s, 'duel:rules', { ...rules(2), duelId: 'other' }, 'p1'), s);
  assert.equal(duelReducer(s, 'duelError', { duelId: 'd1', code: 'rule_broken', message: 'You cannot eat in this duel.' }, 'p1').message, 'You cannot eat in this duel.');
  assert.equal(duelReducer(s, 'duel:cancelled', { duelId: 'd1', reason: 'declined' }, 'p1').message, 'They declined the duel.');
  assert.equal(duelReducer(s, 'duel:cancelled', { duelId: 'd1', reason: 'cancelled', byPlayerId: 'p1' }, 'p1').message, 'You cancelled the duel.');
  assert.equal(duelReducer(s, 'duel:cancelled', { duelId: 'd1', reason: 'draw' }, 'p1').message, 'The duel was a draw: both stakes are returned.');
  assert.equal(DUEL_RULES.length, 6);
});

test('staked items leave the inventory view like offered ones', () => {
  const inv = [{ slot: 4, itemId: 'bronze_sword', name: 'Bronze Sword', quantity: 1 }, { slot: 5, itemId: 'bread', name: 'Bread', quantity: 1 }];
  const s = duelReducer(noDuel(), 'duel:rules', rules(1, stake([sword])), 'p1');
  assert.deepEqual(unofferedInventory(inv, { phase: s.phase, mine: s.mine }).map((x) => x.slot), [5]);
  // Through the fight, until the result says who has what.
  const fighting = duelReducer(s, 'duel:start', { duelId: 'd1', opponentId: 'p2', rules: [], tile: { x: 0, z: 0 } }, 'p1');
  assert.equal(fighting.phase, 'fighting');
  assert.deepEqual(unofferedInventory(inv, fighting).map((x) => x.slot), [5]);
  const over = duelReducer(fighting, 'duel:result', { duelId: 'd1', winnerId: 'p1', loserId: 'p2', receivedItems: [] }, 'p1');
  assert.equal(unofferedInventory(inv, over), inv);
});
