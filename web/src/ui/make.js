// The make dialog ("What would you like to make?"): opened by the server's `make:options` (an
// item used on a station or another item, or a station used), it lists every option in the
// server's order with its picture, name, level, what one make takes and the XP; those the player
// cannot make yet are greyed with why. The quantity (1, 5, 10, X, All) is chosen first and kept
// across openings and reloads, as in the classic games; a click on an option (or its digit key)
// makes it that many times and closes the dialog. Escape or × closes it without making anything.

import { h, fill } from '../dom.js';
import { items } from '../content.js';
import { itemIcon } from './panels.js';
import { makeRows, storedQuantity } from '../making.js';
import { MAX_MAKE_QUANTITY, QUANTITY_CHOICES, choiceLabel } from '../quantity.js';
import { amountPrompt, closeAmountPrompt } from './amount.js';
import { getPref, setPref } from '../prefs.js';

/** @typedef {import('../game.js').Game} Game */

const QUANTITY_KEY = 'wayfarer.makeQuantity';

/** @param {Game} game */
export function makeWindow(game) {
  /** @type {number|'all'} */
  let quantity = storedQuantity(getPref(QUANTITY_KEY), MAX_MAKE_QUANTITY);
  const setQuantity = (/** @type {number|'all'} */ q) => {
    quantity = q;
    setPref(QUANTITY_KEY, String(q));
    render();
  };
  const title = h('h2', null, 'What would you like to make?');
  const quantities = h('div.make-qty', { role: 'group', 'aria-label': 'How many' });
  const list = h('div.make-list');
  const close = () => game.closeMake();
  const el = h('div.window.make#make', { role: 'dialog', 'aria-label': 'What would you like to make?', hidden: true },
    h('header', null, title, h('button.close', { 'aria-label': 'Close', onclick: close }, '×')),
    quantities, list,
    h('div.hint', null, 'Choose how many, then what to make (or press its number).'));

  const holdings = {
    held: (/** @type {string} */ itemId) => {
      const n = game.inventory.filter((s) => s.itemId === itemId).reduce((t, s) => t + s.quantity, 0);
      return itemId === 'coins' ? Math.max(n, game.coins) : n;
    },
    nameOf: (/** @type {string} */ itemId) => items.get(itemId)?.name ?? game.inventory.find((s) => s.itemId === itemId)?.name ?? itemId.replace(/_/g, ' '),
  };

  const render = () => {
    const offer = game.make;
    el.hidden = !offer;
    if (!offer) return closeAmountPrompt();
    const station = offer.context.stationType;
    fill(title, station ? `${station[0].toUpperCase()}${station.slice(1)}: what would you like to make?` : 'What would you like to make?');
    const typed = typeof quantity === 'number' && ![1, 5, 10].includes(quantity);
    fill(quantities, h('span.make-qty-label', null, 'How many:'), ...QUANTITY_CHOICES.map((c) => {
      const on = c === 'x' ? typed : c === quantity;
      const label = c === 'x' && typed ? `X: ${quantity.toLocaleString('en')}` : choiceLabel(c);
      return h(`button.qty${on ? '.on' : ''}`, {
        'data-qty': String(c), 'aria-pressed': on ? 'true' : 'false',
        title: c === 'x' ? 'Type how many' : c === 'all' ? 'Until the materials run out' : `Make ${c}`,
        onclick: () => (c === 'x'
          ? amountPrompt({ title: 'How many?', max: MAX_MAKE_QUANTITY, onChoose: setQuantity })
          : setQuantity(c)),
      }, label);
    }));
    fill(list, ...makeRows(offer.options, holdings).map((r) => {
      const pic = r.picture ? itemIcon(r.picture.itemId, holdings.nameOf(r.picture.itemId), r.picture.quantity) : h('div.icon');
      return h(`button.make-row${r.canMake ? '' : '.cannot'}`, {
        'data-recipe': r.recipeId,
        'aria-disabled': r.canMake ? null : 'true',
        'aria-label': `${r.name}, ${r.level}, ${r.xp}${r.why ? `: ${r.why}` : ''}`,
        title: r.why ?? `Make ${r.name}`,
        onclick: () => r.canMake && game.chooseMake(r.recipeId, quantity),
      },
      h('span.make-key', null, r.key ? String(r.key) : ''),
      h('span.make-pic', null, pic),
      h('span.make-main', null,
        h('span.make-name', null, r.name, h('span.make-level', null, r.level)),
        h('span.make-needs', null, r.needs.join(' · '))),
      h('span.make-side', null, h('span.make-xp', null, r.xp), r.why ? h('span.make-why', null, r.why) : null));
    }));
  };

  // Digits choose an option, as the classic make menus' number keys do; Escape closes.
  window.addEventListener('keydown', (ev) => {
    const offer = game.make;
    if (!offer || game.dialogue || /** @type {HTMLElement} */ (ev.target).tagName === 'INPUT') return;
    if (ev.key === 'Escape') return close();
    const n = Number(ev.key);
    if (!Number.isInteger(n) || n < 1 || n > 9) return;
    const option = offer.options[n - 1];
    if (option?.canMake) game.chooseMake(option.recipeId, quantity);
    ev.preventDefault();
  });
  game.on('make', render);
  game.on('inventory', () => game.make && render());
  return el;
}
