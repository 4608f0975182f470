// The controls players expect: the combat tab (styles, auto-retaliate, autocast), the
// hitpoints, prayer and run orbs beside the minimap (the run orb toggles running), and the
// settings tab (names on or off, zoom, the key bindings listed).

import { h, fill, titleCase } from '../dom.js';
import { itemLook } from '../icons.js';
import { setPref } from '../prefs.js';

/** @typedef {import('../game.js').Game} Game */

/** The styles a weapon family takes (the server's `CombatStyle::suits`), with what each trains. */
export const MELEE_STYLES = [
  { id: 'accurate', trains: 'Attack' }, { id: 'aggressive', trains: 'Strength' },
  { id: 'defensive', trains: 'Defence' }, { id: 'controlled', trains: 'Attack, Strength and Defence' },
];
export const RANGED_STYLES = [
  { id: 'accurate', trains: 'Ranged' }, { id: 'rapid', trains: 'Ranged, faster' },
  { id: 'longrange', trains: 'Ranged and Defence, farther' },
];

/** The styles shown for a wielded weapon (none wielded: fists, melee). @param {string|undefined} weaponId */
export function stylesFor(weaponId) {
  return weaponId && /bow$/.test(itemLook(weaponId).shape) ? RANGED_STYLES : MELEE_STYLES;
}

/**
 * The style the server fights with: the chosen one when the weapon takes it, else accurate (the
 * server's `loadout`: a melee style with a bow, or rapid with a sword, falls back to accurate).
 * @param {string} chosen @param {string|undefined} weaponId
 */
export function effectiveStyle(chosen, weaponId) {
  return stylesFor(weaponId).some((s) => s.id === chosen) ? chosen : 'accurate';
}

/** The keys, as the settings tab lists them. */
export const KEY_BINDINGS = [
  ['Enter', 'Chat (/g global, @name private)'], ['I', 'Inventory'], ['E', 'Worn equipment'], ['K', 'Skills'],
  ['Q', 'Quests'], ['P', 'Prayer'], ['F', 'Friends'], ['C', 'Combat'], ['B', 'Magic (spellbook)'], ['M', 'World map'], ['O', 'Settings'], ['R', 'Run on/off'],
  ['X', 'Stop'], ['+ / −', 'Zoom (or the wheel, a pinch)'], ['1–9', 'Dialogue answer, make option'],
  ['Escape', 'Close menus and windows'], ['Right click', 'All options (a long press on a phone)'],
];

/** @param {Game} game */
export function combatPanel(game) {
  const root = h('div.styles', { role: 'radiogroup', 'aria-label': 'Combat style' });
  const weapon = h('div.cb-weapon');
  const render = () => {
    const w = game.equipment.weapon?.itemId;
    fill(weapon, w ? `Wielding: ${titleCase(w)}` : 'Unarmed');
    const styles = stylesFor(w);
    const on = effectiveStyle(game.combatStyle, w);
    fill(root, ...styles.map((s) => h(`button.style${on === s.id ? '.on' : ''}`, {
      'data-style': s.id, role: 'radio', 'aria-checked': on === s.id ? 'true' : 'false',
      onclick: () => game.setCombatStyle(s.id),
    }, h('b', null, titleCase(s.id)), h('small', null, s.trains))));
  };
  // Autocast (CONTRACT.md section 11): which spell the attacks cast, chosen in the spellbook (B),
  // stopped here.
  const autocast = h('div.cb-autocast');
  const renderAutocast = () => fill(autocast, ...(game.autocast
    ? [`Autocasting: ${titleCase(game.autocast)} `, h('button.small', { 'data-action': 'autocast-off', onclick: () => game.setAutocast(null) }, 'Stop autocast')]
    : ['Autocast: none (choose a combat spell in the spellbook, B)']));
  // Auto-retaliate: on, an attack on the idle (or gathering, making) player is answered.
  const retaliate = h('button.small.auto-retaliate', { 'aria-pressed': 'true', onclick: () => game.setAutoRetaliate(!game.autoRetaliate) });
  const renderRetaliate = () => {
    retaliate.setAttribute('aria-pressed', String(game.autoRetaliate));
    retaliate.classList.toggle('on', game.autoRetaliate);
    fill(retaliate, `Auto retaliate: ${game.autoRetaliate ? 'On' : 'Off'}`);
  };
  game.on('equipment', render);
  game.on('combatStyle', render);
  game.on('autocast', renderAutocast);
  game.on('autoRetaliate', renderRetaliate);
  render();
  renderAutocast();
  renderRetaliate();
  return h('section.panel#panel-combat', null, h('h2', null, 'Combat'), weapon, root, h('div.cb-retaliate', null, retaliate), autocast,
    h('p.hint', null, 'Your style decides which skills your hits train. A style the weapon does not take fights as Accurate.'));
}

/**
 * @param {Game} game
 * @param {{renderer: import('../render.js').Renderer, signOut: () => void, logOut: () => void, collapseChat: (on: boolean) => void}} opts
 */
export function settingsPanel(game, opts) {
  const names = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', name: 'names' }));
  names.checked = opts.renderer.showNames;
  names.addEventListener('change', () => {
    opts.renderer.showNames = names.checked;
    setPref('wayfarer.names', String(names.checked));
  });
  const zoom = h('span.zoom-level');
  const showZoom = () => fill(zoom, `${Math.round(opts.renderer.zoom * 100)}%`);
  game.on('zoom', showZoom);
  showZoom();
  const zoomBy = (k) => { opts.renderer.setZoom(opts.renderer.zoom * k); game.emit('zoom'); };
  return h('section.panel#panel-settings', null, h('h2', null, 'Settings'),
    h('label.setting', null, names, ' Show names over heads'),
    h('div.setting.row', null, 'Zoom ', h('button.small', { onclick: () => zoomBy(1 / 1.25), 'aria-label': 'Zoom out' }, '−'), zoom,
      h('button.small', { onclick: () => zoomBy(1.25), 'aria-label': 'Zoom in' }, '+')),
    h('div.setting.row', null, h('button.small', { onclick: () => opts.logOut() }, 'Log out'), h('button.small', { onclick: () => opts.signOut() }, 'Sign out')),
    h('h3', null, 'Keys'),
    h('dl.keys', null, ...KEY_BINDINGS.flatMap(([k, what]) => [h('dt', null, k), h('dd', null, what)])));
}

/** Hitpoints, prayer and run energy as three orbs; the run orb switches running. @param {Game} game */
export function orbs(game) {
  const orb = (cls, label) => {
    const value = h('span.orb-value');
    const el = h(`div.orb.${cls}`, { title: label, 'aria-label': label }, h('span.orb-fill'), value);
    return { el, value, fill: /** @type {HTMLElement} */ (el.firstChild) };
  };
  const hp = orb('hp', 'Hitpoints'), pr = orb('pr', 'Prayer points');
  const run = orb('run', 'Run energy (click to run or walk)');
  run.el = h('button.orb.run', { title: 'Run energy: click to run or walk (R)', 'aria-pressed': 'false', onclick: () => game.setRun(!game.run) }, run.fill, run.value);
  const set = (o, v, max) => {
    fill(o.value, String(v));
    o.fill.style.height = `${max ? Math.max(0, Math.min(100, (v / max) * 100)) : 0}%`;
  };
  const render = () => {
    if (game.player) set(hp, game.player.health, game.player.maxHealth);
    set(pr, game.prayer.points, game.prayer.maxPoints);
    set(run, game.energy, 100);
    run.el.classList.toggle('on', game.run);
    run.el.setAttribute('aria-pressed', String(game.run));
  };
  for (const ev of ['player', 'prayer', 'world', 'run']) game.on(ev, render);
  render();
  return h('div.orbs', null, hp.el, pr.el, run.el);
}
