// The side panels: inventory, equipment, skills, quests, prayer, friends. Each re-renders its own
// small DOM when its part of the game state changes.

import { h, fill, shortNumber, titleCase, skillName } from '../dom.js';
import { items, itemVerbs } from '../content.js';
import { fetchOnce } from '../api.js';
import { levelProgress } from '../xp.js';
import { amountEntries } from './amount.js';
import { itemImage, ICON_PX } from '../icons.js';
import { unofferedInventory } from '../trade.js';

/** @typedef {import('../game.js').Game} Game */

// The protocol's 17 skills (wayfarer_protocol::Skill::ALL, wire names), in the panel's order.
const SKILL_ORDER = ['attack', 'strength', 'defense', 'constitution', 'ranged', 'magic', 'prayer',
  'woodcutting', 'fishing', 'mining', 'firemaking', 'cooking', 'smithing', 'crafting', 'fletching',
  'agility', 'runecrafting'];
const EQUIP_SLOTS = ['helmet', 'cape', 'amulet', 'arrows', 'weapon', 'body', 'shield', 'legs', 'gloves', 'boots', 'ring'];

/** A square item icon: the item's picture (icons.js, drawn once per id and copied here). The
 * count shows on stacks (and stackable items), or always/never when `count` says so.
 * @param {string} itemId @param {string} name @param {number} quantity @param {boolean} [count] */
export function itemIcon(itemId, name, quantity, count) {
  const d = items.get(itemId);
  return h('div.icon', { title: name, 'data-icon': itemId },
    itemPicture(itemId, d),
    count ?? (quantity > 1 || d?.stackable) ? h('span.qty', null, shortNumber(quantity)) : null);
}

/** A canvas holding a copy of an item's cached picture. @param {string} itemId @param {any} [def] */
export function itemPicture(itemId, def) {
  const src = itemImage(itemId, def ?? items.get(itemId));
  const c = /** @type {HTMLCanvasElement} */ (h('canvas.pic', { width: ICON_PX, height: ICON_PX, 'aria-hidden': 'true' }));
  /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).drawImage(src, 0, 0);
  return c;
}

/**
 * @param {Game} game
 * @param {(x: number, y: number, entries: {label: string, target?: string, run: () => void}[], title?: string) => void} openMenu
 */
export function inventoryPanel(game, openMenu) {
  const root = h('div.inv-grid', { role: 'grid', 'aria-label': 'Inventory' });
  const render = () => {
    // Items offered in a trade leave the view until the trade ends.
    const bySlot = new Map(unofferedInventory(unofferedInventory(game.inventory, game.trade), game.duel).map((s) => [s.slot, s]));
    const cells = [];
    for (let i = 0; i < 28; i++) {
      const s = bySlot.get(i);
      const cell = h('button.slot', { 'data-slot': i, 'aria-label': s ? `${s.name} x${s.quantity}` : `empty slot ${i + 1}` },
        s ? itemIcon(s.itemId, s.name, s.quantity) : null);
      if (s) {
        if (game.pendingUse?.slot === i) cell.classList.add('selected');
        const entries = () => itemVerbs(s.itemId).map((v) => ({ label: v.label, target: s.name, run: () => slotOp(game, s, v.op) }));
        cell.addEventListener('click', () => {
          if (game.pendingUse) return game.useOnSlot(i);
          if (game.bank) return game.send('bank:deposit', { slot: i });
          if (game.shop) return game.send('shop:sell', { storeId: game.shop.storeId, slot: i, quantity: 1 });
          if (game.trade.phase === 'screen1') return game.send('tradeAddItem', { tradeId: game.trade.tradeId, inventorySlot: i });
          if (game.duel.phase === 'screen1') return game.send('duel:stake', { duelId: game.duel.duelId, inventorySlot: i });
          entries()[0].run();
        });
        cell.addEventListener('contextmenu', (ev) => {
          ev.preventDefault();
          /** @type {{label: string, target?: string, run: () => void}[]} */
          let list = entries();
          // The bank takes from this slot first, then the lowest slots holding the item.
          const held = game.inventory.filter((x) => x.itemId === s.itemId).reduce((n, x) => n + x.quantity, 0);
          if (game.bank) list = [...amountEntries('Deposit', s.name, held, (quantity) => game.send('bank:deposit', { slot: i, quantity })), ...list];
          if (game.shop) {
            const shop = game.shop;
            const sell = (n) => ({ label: `Sell ${n}`, target: s.name, run: () => game.send('shop:sell', { storeId: shop.storeId, slot: i, quantity: n }) });
            list = [sell(1), sell(5), sell(10), ...list];
          }
          if (game.trade.phase === 'screen1') {
            // A trade offers from this slot's stack alone (offering the slot again replaces the count).
            const offer = (/** @type {number} */ quantity) => game.send('tradeAddItem', { tradeId: game.trade.tradeId, inventorySlot: i, quantity });
            list = [...(s.quantity > 1 ? amountEntries('Offer', s.name, s.quantity, offer) : [{ label: 'Offer', target: s.name, run: () => offer(1) }]), ...list];
          }
          if (game.duel.phase === 'screen1') {
            const stake = (/** @type {number} */ quantity) => game.send('duel:stake', { duelId: game.duel.duelId, inventorySlot: i, quantity });
            list = [...(s.quantity > 1 ? amountEntries('Stake', s.name, s.quantity, stake) : [{ label: 'Stake', target: s.name, run: () => stake(1) }]), ...list];
          }
          openMenu(ev.clientX, ev.clientY, list);
        });
      } else if (game.pendingUse) {
        cell.addEventListener('click', () => game.cancelUse());
      }
      cells.push(cell);
    }
    fill(root, ...cells);
  };
  for (const ev of ['inventory', 'use', 'bank', 'shop', 'trade', 'duel']) game.on(ev, render);
  render();
  const coins = h('div.coins');
  game.on('inventory', () => fill(coins, `${game.coins.toLocaleString()} coins`));
  fill(coins, `${game.coins.toLocaleString()} coins`);
  return h('section.panel#panel-inventory', null, h('h2', null, 'Inventory'), root, coins);
}

/** @param {Game} game @param {{slot: number, itemId: string, name: string, quantity: number}} s @param {string} op */
function slotOp(game, s, op) {
  switch (op) {
    case 'eat': case 'use': return game.send('inventory:use', { slot: s.slot });
    case 'equip': return game.act('equip', { slot: s.slot });
    case 'light': return game.act('light_fire', { slot: s.slot });
    case 'drop': return game.act('drop', { slot: s.slot });
    case 'useOn': return game.beginUse(s);
    case 'examine': {
      const d = items.get(s.itemId);
      return game.system(d?.examine ?? d?.description ?? s.name);
    }
  }
}

/** @param {Game} game */
export function equipmentPanel(game) {
  const root = h('div.equip-grid');
  const render = () => {
    fill(root, ...EQUIP_SLOTS.map((slot) => {
      const it = game.equipment[slot];
      const name = it ? items.get(it.itemId)?.name ?? titleCase(it.itemId) : '';
      return h(`button.slot.eq-${slot}`, { title: it ? `Remove ${name}` : titleCase(slot), 'aria-label': it ? `${slot}: ${name}` : `${slot}: empty`,
        onclick: () => it && game.act('unequip', { slot }) },
        it ? itemIcon(it.itemId, name, it.quantity) : h('span.eq-label', null, titleCase(slot)));
    }));
  };
  game.on('equipment', render);
  render();
  return h('section.panel#panel-equipment', null, h('h2', null, 'Equipment'), root);
}

/** @param {Game} game */
export function skillsPanel(game) {
  const root = h('div.skills-grid');
  const detail = h('div.skill-detail');
  /** @type {Record<string, {level: number, description: string, type: string}[]>|null} */
  let unlocks = null;
  const showUnlocks = async (skill) => {
    // Fetched once per page and kept (fetchOnce); the panel only asks when a skill is opened.
    unlocks = unlocks ?? (await fetchOnce('/api/data/skill-unlocks').catch(() => ({})));
    const st = game.skills[skill] ?? { level: 1, xp: 0 };
    const lv = st.level;
    const prog = levelProgress(st.xp, lv);
    const list = (unlocks?.[skill] ?? []).slice(0, 30);
    fill(detail, h('h3', null, skillName(skill)),
      h('div.skill-xp', null, `${st.xp.toLocaleString()} XP`,
        prog.next === null ? ' (maximum level)' : ` · level ${lv + 1} at ${prog.next.toLocaleString()} (${prog.toGo.toLocaleString()} to go)`),
      h('ul.unlocks', null, ...list.map((u) => h(`li${u.level <= lv ? '.done' : ''}`, null, h('b', null, `${u.level}`), ` ${u.description}`))));
  };
  const render = () => {
    let total = 0;
    const cells = SKILL_ORDER.map((s) => {
      const st = game.skills[s] ?? { level: 1, xp: 0 };
      total += st.level;
      const prog = levelProgress(st.xp, st.level);
      const title = `${skillName(s)}: ${st.xp.toLocaleString()} XP${prog.next === null ? '' : `, ${prog.toGo.toLocaleString()} to level ${st.level + 1}`}`;
      return h('button.skill', { 'data-skill': s, title, 'aria-label': `${title}, level ${st.level}`, onclick: () => showUnlocks(s) },
        h('span.skill-name', null, skillName(s)), h('span.skill-level', null, String(st.level)),
        h('span.skill-bar', { style: { width: `${Math.round(prog.fraction * 100)}%` } }));
    });
    fill(root, ...cells, h('div.skill.total', null, h('span.skill-name', null, 'Total'), h('span.skill-level', null, String(total))));
  };
  game.on('skills', render);
  render();
  return h('section.panel#panel-skills', null, h('h2', null, 'Skills'), root, detail);
}

/** @param {Game} game */
export function questsPanel(game) {
  const root = h('ul.quests');
  const points = h('div.qp');
  const detail = h('div.quest-detail');
  /** The quest definitions (`/manifests/quests.json`, keyed by id): descriptions and stages. @type {Record<string, any>} */
  let defs = {};
  fetchOnce('/manifests/quests.json').then((d) => { defs = d ?? {}; render(); }).catch(() => {});
  /** @type {string|null} */
  let open = null;
  // The journal of one quest: what it is about, then its stages, done ones struck through and the
  // current one with its progress, as the classic quest journals show them.
  const journal = (q) => {
    const def = defs[q.questId];
    if (!def) return [h('h3', null, q.name ?? titleCase(q.questId))];
    const stages = /** @type {any[]} */ (def.stages ?? []);
    const at = q.status === 'completed' ? stages.length : q.status === 'not_started' ? -1 : Math.max(0, stages.findIndex((s) => s.id === q.stageId));
    const start = def.startNpc ? `Start by talking to ${titleCase(def.startNpc)}.` : '';
    return [h('h3', null, def.name ?? q.questId), h('p.quest-about', null, def.description ?? ''),
      q.status === 'not_started'
        ? h('p.q-stage.todo', null, start)
        : h('ol.stages', null, ...stages.slice(0, Math.min(stages.length, at + 1)).map((s, i) => h(`li.q-stage${i < at ? '.done' : '.current'}`, null, s.description,
          i === at && q.count ? ` (${q.progress ?? 0}/${q.count})` : ''))),
      q.status === 'completed' ? h('p.q-stage.done-all', null, 'Quest complete!') : null].filter(Boolean);
  };
  const render = () => {
    fill(points, `Quest points: ${game.quests.questPoints}`);
    fill(root, ...game.quests.quests.map((q) => h(`li.q-${q.status}`, { 'data-quest': q.questId },
      h('button.quest-name', { 'aria-expanded': open === q.questId ? 'true' : 'false', onclick: () => { open = open === q.questId ? null : q.questId; render(); } },
        q.name ?? titleCase(q.questId),
        q.status === 'in_progress' && q.count ? h('span.progress', null, ` ${q.progress ?? 0}/${q.count}`) : null))));
    const q = game.quests.quests.find((x) => x.questId === open);
    fill(detail, ...(q ? journal(q) : [h('p.hint', null, 'Click a quest for its journal.')]));
  };
  game.on('quests', render);
  render();
  return h('section.panel#panel-quests', null, h('h2', null, 'Quests'), points, root, detail);
}

/** @param {Game} game */
export function prayerPanel(game) {
  const root = h('div.prayers');
  const bar = h('div.prayer-points');
  /** @type {any[]} */
  let defs = [];
  fetchOnce('/manifests/prayers.json').then((d) => { defs = d.prayers ?? []; render(); }).catch(() => {});
  const render = () => {
    fill(bar, `Prayer: ${game.prayer.points} / ${game.prayer.maxPoints}`);
    const lv = game.skills.prayer?.level ?? 1;
    fill(root, ...defs.map((p) => {
      const on = game.prayer.active.includes(p.id);
      return h(`button.prayer${on ? '.on' : ''}${p.level > lv ? '.locked' : ''}`,
        { 'data-prayer': p.id, title: `${p.name} (level ${p.level}): ${p.description}`, 'aria-pressed': on ? 'true' : 'false',
          onclick: () => game.send('prayer:toggle', { prayerId: p.id, active: !on }) },
        h('span', null, p.name), h('small', null, `Lv ${p.level}`));
    }));
  };
  game.on('prayer', render);
  game.on('skills', render);
  render();
  return h('section.panel#panel-prayer', null, h('h2', null, 'Prayer'), bar, root);
}

/** @param {Game} game @param {(name: string) => void} whisper */
export function friendsPanel(game, whisper) {
  const list = h('div.friends');
  const input = /** @type {HTMLInputElement} */ (h('input', { placeholder: 'Name', maxlength: 12, 'aria-label': 'Player name' }));
  const render = () => {
    const f = game.friends;
    fill(list,
      h('h3', null, `Friends (${f.friends.length})`),
      ...f.friends.map((x) => h('div.friend', null, h(`span.dot${x.online ? '.online' : ''}`), h('span.fname', null, x.name),
        x.online ? h('button.small', { onclick: () => whisper(x.name) }, 'Message') : null,
        h('button.small', { onclick: () => game.send('friend:remove', { name: x.name }) }, 'Remove'))),
      ...f.incoming.map((x) => h('div.friend.incoming', null, h('span.fname', null, `${x.name} asks`),
        h('button.small', { onclick: () => game.send('friend:respond', { name: x.name, accept: true }) }, 'Accept'),
        h('button.small', { onclick: () => game.send('friend:respond', { name: x.name, accept: false }) }, 'Decline'))),
      ...f.outgoing.map((x) => h('div.friend.pending', null, h('span.fname', null, `${x.name} (pending)`))),
      h('h3', null, `Ignored (${f.ignored.length})`),
      ...f.ignored.map((x) => h('div.friend', null, h('span.fname', null, x.name),
        h('button.small', { onclick: () => game.send('ignore:remove', { name: x.name }) }, 'Unignore'))));
  };
  game.on('friends', render);
  render();
  const add = (type) => () => {
    if (input.value.trim()) game.send(type, { name: input.value.trim() });
    input.value = '';
  };
  return h('section.panel#panel-friends', null, h('h2', null, 'Friends'),
    h('div.row', null, input, h('button.small', { onclick: add('friend:request') }, 'Add'), h('button.small', { onclick: add('ignore:add') }, 'Ignore')),
    list);
}
