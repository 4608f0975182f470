// XP drops (grouped per tick, as one floating line per skill) and level-up banners.

import { h, skillName } from '../dom.js';

/** @param {import('../game.js').Game} game */
export function effects(game) {
  const drops = h('div.xp-drops', { 'aria-live': 'polite' });
  const banner = h('div.levelup', { hidden: true });
  /** @type {Map<string, number>} */
  let pending = new Map();
  let flush = 0;
  game.on('xp', (d) => {
    pending.set(d.skill, (pending.get(d.skill) ?? 0) + d.xpGained);
    // Gains of one tick arrive together; one line each skill per tick reads better than a flurry.
    if (!flush) flush = window.setTimeout(() => {
      for (const [skill, xp] of pending) {
        const el = h('div.xp-drop', { 'data-skill': skill }, `+${Math.round(xp * 10) / 10} ${skillName(skill)} XP`);
        drops.append(el);
        setTimeout(() => el.remove(), 2200);
      }
      pending = new Map();
      flush = 0;
    }, 50);
    if (d.leveledUp) game.emit('levelup', { text: `${skillName(d.skill)} level ${d.level}!` });
  });
  /** @type {number} */
  let hide = 0;
  game.on('levelup', ({ text }) => {
    banner.textContent = text;
    banner.hidden = false;
    clearTimeout(hide);
    hide = window.setTimeout(() => { banner.hidden = true; }, 3000);
  });
  return h('div.effects', null, drops, banner);
}
