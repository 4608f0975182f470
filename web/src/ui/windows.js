// Windows over the game view: bank, shop, trade (both screens) and dialogue. Each shows when its
// state is set and hides when the server closes it.

import { h, fill, shortNumber, titleCase } from '../dom.js';
import { items } from '../content.js';
import { itemIcon } from './panels.js';
import { offerCount } from '../trade.js';
import { amountEntries } from './amount.js';

/** @typedef {import('../game.js').Game} Game */

/** @param {string} title @param {() => void} onClose @param {...Node} body */
function frame(id, title, onClose, ...body) {
  return h(`div.window#${id}`, { role: 'dialog', 'aria-label': title, hidden: true },
    h('header', null, h('h2', null, title), h('button.close', { 'aria-label': `Close ${title}`, onclick: onClose }, '×')),
    ...body);
}

/**
 * The bank: a click withdraws one, a right click offers Withdraw-1/5/10/X/All.
 * @param {Game} game
 * @param {(x: number, y: number, entries: {label: string, target?: string, run: () => void}[], title?: string) => void} [openMenu]
 */
export function bankWindow(game, openMenu) {
  const grid = h('div.bank-grid');
  const el = frame('bank', 'Bank', () => { game.bank = null; game.emit('bank'); }, grid,
    h('div.row', null, h('button', { onclick: () => game.send('bank:deposit', { slot: 'all' }) }, 'Deposit inventory'),
      h('span.hint', null, 'Click to withdraw one, right click for more; click an inventory item to deposit it.')));
  const render = () => {
    el.hidden = game.bank === null;
    if (!game.bank) return;
    fill(grid, ...game.bank.map((b) => {
      const name = items.get(b.itemId)?.name ?? titleCase(b.itemId);
      const cell = h('button.slot', { 'data-item': b.itemId, 'aria-label': `Withdraw ${name}`, onclick: () => game.send('bank:withdraw', { itemId: b.itemId, quantity: 1 }) },
        itemIcon(b.itemId, name, b.quantity));
      cell.addEventListener('contextmenu', (ev) => {
        ev.preventDefault();
        const withdraw = (/** @type {number} */ quantity) => game.send('bank:withdraw', { itemId: b.itemId, quantity });
        openMenu?.(ev.clientX, ev.clientY, amountEntries('Withdraw', name, b.quantity, withdraw));
      });
      return cell;
    }));
  };
  game.on('bank', render);
  return el;
}

/**
 * @param {Game} game
 * @param {(x: number, y: number, entries: {label: string, target?: string, run: () => void}[], title?: string) => void} [openMenu]
 */
export function shopWindow(game, openMenu) {
  const grid = h('div.shop-grid');
  const el = frame('shop', 'Shop', () => game.send('shop:close'), grid, h('div.hint', null, 'Click to buy one; click an inventory item to sell one.'));
  const render = () => {
    el.hidden = !game.shop;
    if (!game.shop) return;
    /** @type {HTMLElement} */ (el.querySelector('h2')).textContent = game.shop.name;
    // Stock: `null` is unlimited (no count shown); a sold-out item stays listed, dimmed.
    fill(grid, ...game.shop.items.map((it) => h(`button.shop-item${it.stock === 0 ? '.sold-out' : ''}`, {
      'data-item': it.itemId,
      title: `${it.name}: ${it.price.toLocaleString()} coins${it.stock == null ? '' : `, ${it.stock.toLocaleString()} in stock`}`,
      'aria-label': `Buy ${it.name} for ${it.price.toLocaleString()} coins`,
      onclick: () => game.send('shop:buy', { storeId: game.shop.storeId, itemId: it.itemId, quantity: 1 }) },
    itemIcon(it.itemId, it.name, it.stock ?? 1, it.stock != null), h('span.price', null, `${shortNumber(it.price)} gp`))));
    // Right click: buy 1, 5 or 10, or ask the price, as the classic stores do.
    grid.querySelectorAll('.shop-item').forEach((cell, i) => cell.addEventListener('contextmenu', (ev) => {
      ev.preventDefault();
      const shop = game.shop;
      const it = shop?.items[i];
      if (!shop || !it || !openMenu) return;
      const buy = (n) => ({ label: `Buy ${n}`, target: it.name, run: () => game.send('shop:buy', { storeId: shop.storeId, itemId: it.itemId, quantity: n }) });
      openMenu(/** @type {MouseEvent} */ (ev).clientX, /** @type {MouseEvent} */ (ev).clientY, [buy(1), buy(5), buy(10),
        { label: 'Value', target: it.name, run: () => game.system(`${it.name}: currently costs ${it.price.toLocaleString()} coins.`) }]);
    }));
  };
  game.on('shop', render);
  return el;
}

/** @param {Game} game */
export function tradeWindow(game) {
  const title = h('h2');
  const body = h('div.trade-body');
  const status = h('div.trade-status');
  const accept = h('button.accept', { onclick: () => game.send('tradeAccept', { tradeId: game.trade.tradeId }) }, 'Accept');
  const decline = h('button.decline', { onclick: () => game.send('tradeCancel', { tradeId: game.trade.tradeId }) }, 'Decline');
  const el = h('div.window#trade', { role: 'dialog', 'aria-label': 'Trade', hidden: true },
    h('header', null, title), body, status, h('div.row.trade-buttons', null, accept, decline));
  const offerList = (offer, mine) => h('div.offer', null, ...offer.items.map((i) => h('button.slot', {
    title: mine ? `Remove ${i.name}` : i.name,
    onclick: () => mine && game.trade.phase === 'screen1' && game.send('tradeRemoveItem', { tradeId: game.trade.tradeId, inventorySlot: i.inventorySlot }),
  }, itemIcon(i.itemId, i.name, i.quantity))));
  const incoming = h('div.trade-incoming', { hidden: true });
  const render = () => {
    const t = game.trade;
    // A request from someone else shows as a small prompt, not the window.
    incoming.hidden = t.phase !== 'incoming';
    if (t.phase === 'incoming') {
      fill(incoming, `${t.partnerName} wishes to trade with you. `,
        h('button', { onclick: () => game.send('tradeRequestRespond', { tradeId: t.tradeId, accept: true }) }, 'Accept'),
        h('button', { onclick: () => { game.send('tradeRequestRespond', { tradeId: t.tradeId, accept: false }); game.trade = { ...t, phase: 'none' }; game.emit('trade'); } }, 'Decline'));
    }
    const open = t.phase === 'screen1' || t.phase === 'screen2';
    el.hidden = !open;
    el.dataset.screen = t.phase;
    if (!open) {
      if (t.phase === 'done' && t.message) {
        game.system(t.message);
        game.trade = { ...t, phase: 'none', message: null };
      }
      return;
    }
    const value = (o) => o.items.reduce((n, i) => n + (items.get(i.itemId)?.value ?? 0) * i.quantity, 0);
    if (t.phase === 'screen1') {
      fill(title, `Trading with ${t.partnerName}`);
      fill(body,
        h('div.trade-side', null, h('h3', null, 'Your offer'), offerList(t.mine, true), h('div.worth', null, `Value: ${value(t.mine).toLocaleString()} gp`)),
        h('div.trade-side', null, h('h3', null, `${t.partnerName}'s offer`), offerList(t.theirs, false), h('div.worth', null, `Value: ${value(t.theirs).toLocaleString()} gp`)));
      fill(status, t.message ?? (t.theirs.accepted ? 'Other player has accepted.' : t.mine.accepted ? 'Waiting for other player…' : 'Click inventory items to offer them.'));
    } else {
      fill(title, `Confirm trade with ${t.partnerName}`);
      const lines = (o) => h('ul.confirm', null, ...(o.items.length ? o.items.map((i) => h('li', null, `${i.name} x ${i.quantity.toLocaleString()}`)) : [h('li.none', null, 'Absolutely nothing!')]));
      fill(body,
        h('div.trade-side', null, h('h3', null, 'You are about to give:'), lines(t.mine), h('div.worth', null, `(Value: ${(t.values?.mine ?? 0).toLocaleString()} gp)`)),
        h('div.trade-side', null, h('h3', null, 'In return you will receive:'), lines(t.theirs), h('div.worth', null, `(Value: ${(t.values?.theirs ?? 0).toLocaleString()} gp)`)));
      fill(status, t.message ?? (t.theirs.accepted ? 'Other player has accepted.' : t.mine.accepted ? 'Waiting for other player…' : 'Are you sure you want to make this trade?'));
    }
    accept.toggleAttribute('disabled', t.mine.accepted);
    el.dataset.items = String(offerCount(t.mine) + offerCount(t.theirs));
  };
  game.on('trade', render);
  return h('div', null, el, incoming);
}

/** @param {Game} game */
export function dialogueWindow(game) {
  const text = h('p.dlg-text');
  const responses = h('div.dlg-responses');
  const name = h('h2');
  const close = () => {
    if (game.dialogue && !game.dialogue.ended) game.send('dialogue:close', { npcId: game.dialogue.npcId });
    game.dialogue = null;
    game.emit('dialogue');
  };
  const el = h('div.window.dialogue#dialogue', { role: 'dialog', 'aria-label': 'Dialogue', hidden: true },
    h('header', null, name, h('button.close', { 'aria-label': 'Close dialogue', onclick: close }, '×')), text, responses);
  const render = () => {
    const d = game.dialogue;
    el.hidden = !d;
    if (!d) return;
    const npc = [...game.world.entities.values()].find((e) => e.id === d.entityId);
    fill(name, npc?.name ?? d.npcId);
    fill(text, d.text);
    const rs = d.ended || !d.responses.length
      ? [h('button.dlg-response', { onclick: close }, 'Click here to continue')]
      : d.responses.map((r, i) => h('button.dlg-response', { onclick: () => game.send('dialogue:respond', { npcId: d.npcId, index: r.index }) }, `${i + 1}. ${r.text}`));
    fill(responses, ...rs);
  };
  // Number keys pick a response, as the classic dialogue boxes do.
  window.addEventListener('keydown', (ev) => {
    const d = game.dialogue;
    if (!d || /** @type {HTMLElement} */ (ev.target).tagName === 'INPUT') return;
    const n = Number(ev.key);
    if (n >= 1 && n <= d.responses.length && !d.ended) game.send('dialogue:respond', { npcId: d.npcId, index: d.responses[n - 1].index });
    else if (ev.key === 'Escape' || (ev.key === ' ' && (d.ended || !d.responses.length))) close();
  });
  game.on('dialogue', render);
  return el;
}
