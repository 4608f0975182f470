// The duel window (CONTRACT.md section 11), shaped as the trade's: a challenge prompt, the first
// screen (rules to switch, both stakes, Accept / Decline; a click on an inventory item stakes it,
// on one's own staked item takes it back), the second screen (the rules and stakes to confirm),
// and a line over the world while the fight lasts.

import { h, fill } from '../dom.js';
import { itemIcon } from './panels.js';
import { DUEL_RULES } from '../duel.js';

/** @typedef {import('../game.js').Game} Game */

/** @param {Game} game */
export function duelWindow(game) {
  const title = h('h2');
  const rules = h('div.duel-rules');
  const body = h('div.trade-body');
  const status = h('div.trade-status');
  const accept = h('button.accept', { onclick: () => game.send('duel:accept', { duelId: game.duel.duelId }) }, 'Accept');
  const decline = h('button.decline', { onclick: () => game.send('duel:cancel', { duelId: game.duel.duelId }) }, 'Decline');
  const el = h('div.window.duel#duel', { role: 'dialog', 'aria-label': 'Duel', hidden: true },
    h('header', null, title), rules, body, status, h('div.row.trade-buttons', null, accept, decline));
  const incoming = h('div.trade-incoming.duel-incoming', { hidden: true });
  const fight = h('div.duel-fight', { hidden: true, role: 'status' });
  const stakeList = (/** @type {import('../duel.js').Stake} */ st, mine) => h('div.offer', null, ...st.items.map((i) => h('button.slot', {
    'data-item': i.itemId, title: mine ? `Take back ${i.name}` : i.name,
    onclick: () => mine && game.duel.phase === 'screen1' && game.send('duel:unstake', { duelId: game.duel.duelId, inventorySlot: i.inventorySlot }),
  }, itemIcon(i.itemId, i.name, i.quantity))));
  const render = () => {
    const d = game.duel;
    incoming.hidden = d.phase !== 'incoming';
    if (d.phase === 'incoming') {
      fill(incoming, `${d.opponentName} wishes to duel with you. `,
        h('button', { onclick: () => game.send('duel:respond', { duelId: d.duelId, accept: true }) }, 'Accept'),
        h('button', { onclick: () => { game.send('duel:respond', { duelId: d.duelId, accept: false }); game.duel = { ...d, phase: 'none' }; game.emit('duel'); } }, 'Decline'));
    }
    fight.hidden = d.phase !== 'fighting';
    if (d.phase === 'fighting') {
      const on = DUEL_RULES.filter(([id]) => d.rules.includes(id)).map(([, words]) => words);
      fill(fight, `Duel with ${d.opponentName}`, on.length ? h('small', null, ` · ${on.join(', ')}`) : '');
    }
    const open = d.phase === 'screen1' || d.phase === 'screen2';
    el.hidden = !open;
    el.dataset.screen = d.phase;
    if (!open) return;
    const first = d.phase === 'screen1';
    fill(title, first ? `Dueling with ${d.opponentName}` : `Confirm the duel with ${d.opponentName}`);
    fill(rules, ...DUEL_RULES.map(([id, words]) => {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', name: id }));
      box.checked = d.rules.includes(id);
      box.disabled = !first;
      box.addEventListener('change', () => game.send('duel:setRule', { duelId: d.duelId, rule: id, on: box.checked }));
      return h('label.duel-rule', { 'data-rule': id }, box, ` ${words}`);
    }));
    fill(body,
      h('div.trade-side', null, h('h3', null, 'Your stake'), stakeList(d.mine, true), h('div.worth', null, `Value: ${d.mine.value.toLocaleString()} gp`)),
      h('div.trade-side', null, h('h3', null, `${d.opponentName}'s stake`), stakeList(d.theirs, false), h('div.worth', null, `Value: ${d.theirs.value.toLocaleString()} gp`)));
    fill(status, d.message ?? (d.theirs.accepted ? 'Other player has accepted.' : d.mine.accepted ? 'Waiting for other player…'
      : first ? 'Set the rules and click inventory items to stake them.' : 'The winner takes both stakes. Are you sure?'));
    accept.toggleAttribute('disabled', d.mine.accepted);
  };
  game.on('duel', render);
  return h('div', null, el, incoming, fight);
}
