// The duel's state (CONTRACT.md section 11): a reducer over the server's duel messages, as the
// trade's (trade.js). A challenge, two screens of rules and stakes (any change resets both
// accepts; the server says so in `duel:rules`), the fight, its result. The server decides
// everything; this only keeps what the duel window shows.

/** Every rule, in the order the window lists them, with its words. */
export const DUEL_RULES = [
  ['no_food', 'No food'], ['no_prayer', 'No prayer'], ['no_ranged', 'No ranged'],
  ['no_magic', 'No magic'], ['no_melee', 'No melee'], ['no_movement', 'No movement'],
];

/**
 * @typedef {{inventorySlot: number, itemId: string, name: string, quantity: number, value?: number}} StakeItem
 * @typedef {{items: StakeItem[], value: number, accepted: boolean}} Stake
 * @typedef {{phase: 'none'|'incoming'|'requested'|'screen1'|'screen2'|'fighting'|'done',
 *   duelId: string|null, opponentId: string|null, opponentName: string|null, rules: string[],
 *   mine: Stake, theirs: Stake, message: string|null, received: {itemId: string, quantity: number}[]}} DuelState
 */

/** @returns {Stake} */
const emptyStake = () => ({ items: [], value: 0, accepted: false });

/** @returns {DuelState} */
export function noDuel() {
  return { phase: 'none', duelId: null, opponentId: null, opponentName: null, rules: [],
    mine: emptyStake(), theirs: emptyStake(), message: null, received: [] };
}

const ENDINGS = /** @type {Record<string, string>} */ ({
  declined: 'They declined the duel.', timeout: 'The duel challenge timed out.', cancelled: 'The duel was cancelled.',
  disconnected: 'Your opponent left.', player_died: 'The duel ended: someone died.', server_error: 'The duel failed; nothing changed.',
  draw: 'The duel was a draw: both stakes are returned.',
});

/**
 * The next duel state after server message `type` with `data`, seen by player `selfId`.
 * @param {DuelState} s @param {string} type @param {any} data @param {string} selfId
 * @returns {DuelState}
 */
export function duelReducer(s, type, data, selfId) {
  const busy = s.phase === 'screen1' || s.phase === 'screen2' || s.phase === 'fighting';
  switch (type) {
    case 'duelIncoming':
      if (busy) return s;
      return { ...noDuel(), phase: 'incoming', duelId: data.duelId, opponentId: data.fromPlayerId, opponentName: data.fromPlayerName };
    case 'duel:rules':
      if (busy && data.duelId !== s.duelId) return s;
      return { ...s, phase: data.screen === 2 ? 'screen2' : 'screen1', duelId: data.duelId, opponentId: data.opponentId,
        opponentName: data.opponentName, rules: data.rules ?? [], mine: data.myStake ?? emptyStake(), theirs: data.theirStake ?? emptyStake(), message: null };
    case 'duel:start':
      if (data.duelId !== s.duelId) return s;
      return { ...s, phase: 'fighting', rules: data.rules ?? s.rules, message: 'Fight!' };
    case 'duel:result': {
      if (data.duelId !== s.duelId) return s;
      const won = data.winnerId === selfId;
      return { ...s, phase: 'done', received: data.receivedItems ?? [], message: won ? 'You won the duel!' : 'You lost the duel.' };
    }
    case 'duel:cancelled': {
      if (data.duelId !== s.duelId) return s;
      const mine = data.byPlayerId && data.byPlayerId === selfId;
      return { ...noDuel(), phase: 'done', message: mine ? 'You cancelled the duel.' : ENDINGS[data.reason] ?? `The duel ended (${data.reason}).` };
    }
    case 'duelError':
      if (data.duelId && data.duelId !== s.duelId) return s;
      return { ...s, message: data.message ?? data.code };
    default:
      return s;
  }
}

/** The state after this player challenged someone (before the server's answer).
 * @param {DuelState} s @param {string} id @param {string} name @returns {DuelState} */
export function challenged(s, id, name) {
  if (s.phase === 'screen1' || s.phase === 'screen2' || s.phase === 'fighting') return s;
  return { ...noDuel(), phase: /** @type {const} */ ('requested'), opponentId: id, opponentName: name, message: `Challenging ${name} to a duel…` };
}
