// The spellbook tab (B): every spell of `/manifests/spells.json` with its level, runes (what one
// carries) and maximum hit, greyed with why when it cannot be cast. A click chooses a spell to
// cast: the next click on a creature or player casts it there (as "Use" does with items). Each
// combat spell can be set to autocast (the attacks then use it); the server keeps the choice and
// does not tell it back, so the tab shows the last one chosen here.

import { h, fill, titleCase } from '../dom.js';
import { fetchOnce } from '../api.js';
import { items } from '../content.js';
import { itemIcon } from './panels.js';
import { spellsOf, spellRows } from '../magic.js';

/** @typedef {import('../game.js').Game} Game */

/** @param {Game} game */
export function spellbookPanel(game) {
  const list = h('div.spells');
  const status = h('p.hint');
  /** @type {import('../magic.js').Spell[]|null} */
  let spells = null;
  const load = async () => {
    try {
      spells = spellsOf(await fetchOnce('/manifests/spells.json'));
    } catch {
      spells = [];
    }
    render();
  };
  // A rune the served item files lack (the reference content's: the server falls back to the
  // bundled runes) is named from its id, never shown as "air_rune".
  const nameOf = (/** @type {string} */ id) => items.get(id)?.name ?? titleCase(id);
  const held = (/** @type {string} */ id) => game.inventory.filter((s) => s.itemId === id).reduce((n, s) => n + s.quantity, 0);
  const render = () => {
    if (!spells) return fill(status, 'Opening the spellbook…');
    if (!spells.length) {
      fill(list);
      return fill(status, 'This world has no spells.');
    }
    const weapon = game.equipment.weapon?.itemId;
    const free = /** @type {string[]} */ ((weapon && /** @type {any} */ (items.get(weapon))?.providesInfiniteRunes) || []);
    const level = game.skills.magic?.level ?? 1;
    fill(status, game.autocast ? `Autocasting ${spells.find((s) => s.id === game.autocast)?.name ?? game.autocast}.` : 'Click a spell, then its target.');
    fill(list, ...spellRows(spells, level, held, free, nameOf).map((r) => h(`div.spell${r.canCast ? '' : '.cannot'}${game.autocast === r.spellId ? '.auto' : ''}`, { 'data-spell': r.spellId },
      h('button.spell-cast', {
        title: r.why ?? `Cast ${r.name}`, 'aria-disabled': r.canCast ? null : 'true',
        onclick: () => r.canCast && game.beginCast({ spellId: r.spellId, name: r.name }),
      },
      h('span.spell-name', null, r.name, h('small', null, ` level ${r.level}${r.maxHit ? ` · max hit ${r.maxHit}` : ''}`)),
      h('span.spell-runes', null, ...r.runes.map((x) => h(`span.rune${x.enough ? '' : '.short'}`, { title: `${x.quantity} ${nameOf(x.itemId)}` },
        itemIcon(x.itemId, nameOf(x.itemId), x.quantity, true)))),
      r.why ? h('span.make-why', null, r.why) : null),
      // The server refuses to autocast a spell above the player's level (and says so): the
      // button is off until then, rather than showing "Autocast on" for a refused choice.
      h('button.small.autocast', {
        'aria-pressed': game.autocast === r.spellId ? 'true' : 'false',
        title: r.level > level ? `Needs Magic ${r.level}` : 'Use this spell for your attacks',
        disabled: r.level > level && game.autocast !== r.spellId,
        onclick: () => game.setAutocast(game.autocast === r.spellId ? null : r.spellId),
      }, game.autocast === r.spellId ? 'Autocast on' : 'Autocast'))));
  };
  for (const ev of ['inventory', 'equipment', 'skills', 'autocast']) game.on(ev, render);
  load();
  // Home teleport (CONTRACT §14): always in the book, greyed with the minutes left while cooling down.
  const home = h('div.spell.home-teleport');
  const renderHome = () => {
    const left = Math.max(0, Math.ceil(((game.homeReadyAt ?? 0) - performance.now()) / 1000));
    fill(home, h('button.spell-cast', {
      title: left ? `Ready in ${Math.ceil(left / 60)} min` : 'Teleport to your home town (10 s)',
      'aria-disabled': left ? 'true' : null,
      onclick: () => !left && game.send('player:action', { action: 'homeTeleport' }),
    }, h('span.spell-name', null, 'Home Teleport', h('small', null, left ? ` ready in ${Math.ceil(left / 60)} min` : ' 10 s cast'))));
  };
  game.on('homeTeleport', renderHome);
  setInterval(renderHome, 15000);
  renderHome();
  return h('section.panel#panel-spellbook', null, h('h2', null, 'Spellbook'), home, status, list);
}
