// The trade window's state: a reducer over the server's trade messages (docs/protocol.md,
// "Trading"). The server decides everything; this only keeps what the window shows.

/**
 * @typedef {{inventorySlot: number, itemId: string, name: string, quantity: number}} OfferItem
 * @typedef {{items: OfferItem[], accepted: boolean}} Offer
 * @typedef {{
 *   phase: 'none'|'incoming'|'requested'|'screen1'|'screen2'|'done',
 *   tradeId: string|null, partnerId: string|null, partnerName: string|null,
 *   mine: Offer, theirs: Offer, values: {mine: number, theirs: number}|null,
 *   message: string|null, received: {itemId: string, quantity: number}[]
 * }} TradeState
 */

/** @returns {Offer} */
const emptyOffer = () => ({ items: [], accepted: false });

/** @returns {TradeState} */
export function noTrade() {
  return {
    phase: 'none', tradeId: null, partnerId: null, partnerName: null,
    mine: emptyOffer(), theirs: emptyOffer(), values: null, message: null, received: [],
  };
}

const CANCEL_REASONS = /** @type {Record<string, string>} */ ({
  declined: 'They declined the trade.',
  timeout: 'The trade timed out.',
  cancelled: 'The trade was cancelled.',
  disconnected: 'The other player left.',
  player_died: 'The trade ended: someone died.',
  server_error: 'The trade failed; nothing changed.',
});

/**
 * The next trade state after server message `type` with `data`; `selfId` tells whose cancel it was.
 * @param {TradeState} s
 * @param {string} type
 * @param {any} data
 * @param {string} [selfId]
 * @returns {TradeState}
 */
export function tradeReducer(s, type, data, selfId) {
  switch (type) {
    case 'tradeIncoming':
      // A request while trading is shown once the current trade ends; the server refuses it anyway.
      if (s.phase === 'screen1' || s.phase === 'screen2') return s;
      return { ...noTrade(), phase: 'incoming', tradeId: data.tradeId,
        partnerId: data.fromPlayerId, partnerName: data.fromPlayerName };
    case 'tradeStarted':
      return { ...noTrade(), phase: 'screen1', tradeId: data.tradeId,
        partnerId: data.partnerId, partnerName: data.partnerName };
    case 'tradeUpdated':
      if (data.tradeId !== s.tradeId) return s;
      return { ...s, phase: 'screen1', mine: data.myOffer, theirs: data.theirOffer, values: null, message: null };
    case 'tradeConfirmScreen':
      if (data.tradeId !== s.tradeId) return s;
      return { ...s, phase: 'screen2', mine: data.myOffer, theirs: data.theirOffer,
        values: data.values, message: null };
    case 'tradeCompleted':
      if (data.tradeId !== s.tradeId) return s;
      return { ...s, phase: 'done', received: data.receivedItems ?? [], message: 'Trade completed.' };
    case 'tradeCancelled': {
      if (data.tradeId !== s.tradeId) return s;
      const mine = data.byPlayerId && data.byPlayerId === selfId;
      const message = mine ? 'You cancelled the trade.' : CANCEL_REASONS[data.reason] ?? `Trade ended (${data.reason}).`;
      return { ...noTrade(), phase: 'done', message };
    }
    case 'tradeError':
      // inventory_full on Screen 2 resets both acceptances (the server says so with the error).
      if (data.code === 'inventory_full' && s.phase === 'screen2') {
        return { ...s, mine: { ...s.mine, accepted: false }, theirs: { ...s.theirs, accepted: false },
          message: data.message };
      }
      return { ...s, message: data.message ?? data.code };
    default:
      return s;
  }
}

/**
 * The state after this client asked for a trade (before the server's answer).
 * @param {TradeState} s @param {string} partnerId @param {string} partnerName
 * @returns {TradeState}
 */
export function requested(s, partnerId, partnerName) {
  if (s.phase === 'screen1' || s.phase === 'screen2') return s;
  return { ...noTrade(), phase: 'requested', partnerId, partnerName, message: `Sending trade request to ${partnerName}…` };
}

/** Total of an offer's items. @param {Offer} o */
export function offerCount(o) {
  return o.items.reduce((n, i) => n + i.quantity, 0);
}

/**
 * The inventory as the panel shows it during a trade: what is offered has left it (a slot offered
 * whole is empty, a stack offered in part shows what is left), as in the classic trade screens.
 * Outside a trade, the inventory as it is.
 * The same holds for a duel's stake (the duel's state has the same `phase` and `mine`), through
 * the fight too: the server keeps a stake in the inventory until the result but lets none of it be
 * used (docs/mechanics.md, "Escrow"), so a staked sword shown there would only refuse its clicks.
 * @template {{slot: number, quantity: number}} S
 * @param {S[]} inventory @param {{phase: string, mine: {items: {inventorySlot: number, quantity: number}[]}}} t
 * @returns {S[]}
 */
export function unofferedInventory(inventory, t) {
  if (t.phase !== 'screen1' && t.phase !== 'screen2' && t.phase !== 'fighting') return inventory;
  /** @type {Map<number, number>} */
  const offered = new Map();
  for (const i of t.mine.items) offered.set(i.inventorySlot, (offered.get(i.inventorySlot) ?? 0) + i.quantity);
  return inventory.flatMap((s) => {
    const left = s.quantity - (offered.get(s.slot) ?? 0);
    return left > 0 ? [left === s.quantity ? s : { ...s, quantity: left }] : [];
  });
}
