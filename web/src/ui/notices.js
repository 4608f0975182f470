// The zone banner (a PvP area warns in red and in the chat) and the death screen: what was kept,
// what was lost, where the gravestone is (CONTRACT.md section 10). Their words come from
// ../notices.js; these only show them.

import { h, fill } from '../dom.js';
import { itemIcon } from './panels.js';
import { itemLine } from '../notices.js';

/** @typedef {import('../game.js').Game} Game */

/** @param {Game} game */
export function zoneBanner(game) {
  const title = h('div.zone-title');
  const sub = h('div.zone-sub');
  const el = h('div.zone-banner', { role: 'status', hidden: true }, title, sub);
  let hide = 0;
  /** @type {ReturnType<typeof import('../notices.js').zoneNotice>|null} a zone entered while the death screen is up */
  let pending = null;
  const show = (/** @type {ReturnType<typeof import('../notices.js').zoneNotice>} */ n) => {
    fill(title, n.title);
    fill(sub, n.subtitle);
    el.classList.toggle('pvp', n.pvp);
    el.classList.toggle('safe', n.safe);
    el.hidden = false;
    clearTimeout(hide);
    // A PvP warning stays until it is read longer than a plain name.
    hide = window.setTimeout(() => { el.hidden = true; }, n.pvp ? 7000 : 3500);
  };
  // Respawning enters the spawn's zone under the death screen: its banner waits until that closes.
  game.on('zone', (n) => {
    if (game.death) { pending = n; el.hidden = true; } else show(n);
  });
  game.on('death', () => {
    if (game.death) el.hidden = true;
    else if (pending) { show(pending); pending = null; }
  });
  return el;
}

/** @param {Game} game */
export function deathScreen(game) {
  const body = h('div.death-body');
  const el = h('div.window.death#death', { role: 'dialog', 'aria-label': 'You are dead', hidden: true },
    h('header', null, h('h2', null, 'Oh dear, you are dead!')), body,
    h('div.row.death-buttons', null, h('button.primary', { onclick: () => game.closeDeath() }, 'Continue')));
  const list = (/** @type {{itemId: string, name: string, quantity: number}[]} */ items, cls) =>
    h(`div.death-items.${cls}`, { title: itemLine(items) }, ...items.map((i) => h('div.slot', { 'data-item': i.itemId }, itemIcon(i.itemId, i.name, i.quantity))));
  game.on('death', () => {
    const d = game.death;
    el.hidden = !d;
    if (!d) return;
    fill(body,
      d.killer ? h('p.death-killer', null, `You were killed by ${d.killer}.`) : h('p.death-killer', null, 'You have died.'),
      h('h3', null, d.kept.length ? `Kept (${d.kept.length})` : 'Kept: nothing'),
      d.kept.length ? list(d.kept, 'kept') : null,
      h('h3', null, d.lost.length ? `Lost (${d.lost.length})` : 'Lost: nothing'),
      d.lost.length ? list(d.lost, 'lost') : null,
      d.gravestone ? h('p.death-grave', null, d.gravestone.text) : d.fell ? h('p.death-grave', null, d.fell) : null,
      d.wake ? h('p.hint', null, d.wake) : null);
  });
  window.addEventListener('keydown', (ev) => {
    if (game.death && (ev.key === 'Escape' || ev.key === 'Enter')) { game.closeDeath(); ev.preventDefault(); ev.stopPropagation(); }
  }, true);
  return el;
}
