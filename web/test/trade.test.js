import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noTrade, tradeReducer, requested, offerCount, unofferedInventory } from '../src/trade.js';

const offer = (items, accepted = false) => ({ items, accepted });
const logs = { inventorySlot: 3, itemId: 'logs', name: 'Logs', quantity: 1 };
const coins = { inventorySlot: 0, itemId: 'coins', name: 'Coins', quantity: 50 };

test('a trade goes request, screen 1, screen 2, completed', () => {
  let s = requested(noTrade(), 'c-2', 'Ann');
  assert.equal(s.phase, 'requested');
  s = tradeReducer(s, 'tradeStarted', { tradeId: 't1', partnerId: 'c-2', partnerName: 'Ann' });
  assert.equal(s.phase, 'screen1');
  s = tradeReducer(s, 'tradeUpdated', { tradeId: 't1', myOffer: offer([logs]), theirOffer: offer([coins], true) });
  assert.equal(offerCount(s.mine), 1);
  assert.equal(s.theirs.accepted, true);
  s = tradeReducer(s, 'tradeConfirmScreen', { tradeId: 't1', myOffer: offer([logs]), theirOffer: offer([coins]), values: { mine: 4, theirs: 50 } });
  assert.equal(s.phase, 'screen2');
  assert.deepEqual(s.values, { mine: 4, theirs: 50 });
  s = tradeReducer(s, 'tradeCompleted', { tradeId: 't1', receivedItems: [{ itemId: 'coins', quantity: 50 }] });
  assert.equal(s.phase, 'done');
  assert.deepEqual(s.received, [{ itemId: 'coins', quantity: 50 }]);
});

test('an incoming request is shown until answered, and ignored mid-trade', () => {
  let s = tradeReducer(noTrade(), 'tradeIncoming', { tradeId: 't9', fromPlayerId: 'c-3', fromPlayerName: 'Cy' });
  assert.equal(s.phase, 'incoming');
  assert.equal(s.partnerName, 'Cy');
  s = tradeReducer(s, 'tradeStarted', { tradeId: 't9', partnerId: 'c-3', partnerName: 'Cy' });
  const during = tradeReducer(s, 'tradeIncoming', { tradeId: 't10', fromPlayerId: 'c-4', fromPlayerName: 'Di' });
  assert.equal(during, s);
});

test('messages of another trade id change nothing', () => {
  const s = tradeReducer(noTrade(), 'tradeStarted', { tradeId: 't1', partnerId: 'x', partnerName: 'X' });
  assert.equal(tradeReducer(s, 'tradeUpdated', { tradeId: 'old', myOffer: offer([logs]), theirOffer: offer([]) }), s);
  assert.equal(tradeReducer(s, 'tradeCancelled', { tradeId: 'old', reason: 'timeout' }), s);
});

test('cancels say who and why', () => {
  const s = tradeReducer(noTrade(), 'tradeStarted', { tradeId: 't1', partnerId: 'x', partnerName: 'X' });
  assert.equal(tradeReducer(s, 'tradeCancelled', { tradeId: 't1', reason: 'cancelled', byPlayerId: 'me' }, 'me').message, 'You cancelled the trade.');
  assert.equal(tradeReducer(s, 'tradeCancelled', { tradeId: 't1', reason: 'cancelled', byPlayerId: 'x' }, 'me').message, 'The trade was cancelled.');
  assert.equal(tradeReducer(s, 'tradeCancelled', { tradeId: 't1', reason: 'declined' }, 'me').message, 'They declined the trade.');
});

test('inventory_full on screen 2 resets both acceptances and keeps the screen', () => {
  let s = tradeReducer(noTrade(), 'tradeStarted', { tradeId: 't1', partnerId: 'x', partnerName: 'X' });
  s = tradeReducer(s, 'tradeConfirmScreen', { tradeId: 't1', myOffer: offer([logs], true), theirOffer: offer([coins], true), values: { mine: 1, theirs: 50 } });
  s = tradeReducer(s, 'tradeError', { code: 'inventory_full', message: 'No room', tradeId: 't1' });
  assert.equal(s.phase, 'screen2');
  assert.equal(s.mine.accepted, false);
  assert.equal(s.theirs.accepted, false);
  assert.equal(s.message, 'No room');
});

test('offered items leave the inventory view for the trade, and come back after it', () => {
  const inv = [{ slot: 0, itemId: 'bronze_sword', name: 'Bronze Sword', quantity: 1 }, { slot: 1, itemId: 'coins', name: 'Coins', quantity: 25 }, { slot: 2, itemId: 'bread', name: 'Bread', quantity: 1 }];
  const t = { ...noTrade(), phase: /** @type {const} */ ('screen1'), mine: { accepted: false, items: [
    { inventorySlot: 0, itemId: 'bronze_sword', name: 'Bronze Sword', quantity: 1 },
    { inventorySlot: 1, itemId: 'coins', name: 'Coins', quantity: 10 }] } };
  assert.deepEqual(unofferedInventory(inv, t).map((s) => [s.slot, s.quantity]), [[1, 15], [2, 1]]);
  assert.deepEqual(unofferedInventory(inv, { ...t, phase: 'screen2' }).map((s) => s.slot), [1, 2]);
  assert.equal(unofferedInventory(inv, { ...t, phase: 'done' }), inv);
  assert.equal(unofferedInventory(inv, noTrade()), inv);
});
