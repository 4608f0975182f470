// What lives in the world, drawn: NPC and mob kinds (a chicken is a chicken, a goblin small and
// green, a skeleton bones), players in their shirt colour with their worn equipment, trees by
// wood, rocks by ore, fishing spots, stations with a badge of what they are for. `npcLook`,
// `playerLook` and `resourceLook` are pure (what to draw, unit-tested); each look is drawn once
// per pose and tile size into a small canvas (`Sprites`), which frames then copy.

import { MATERIALS, WOODS, hashString, mix, itemLook } from './icons.js';

/**
 * @typedef {{body: string, skin: string, shirt: string, legs: string, hat?: string, hatShape?: string,
 *   weapon?: string, weaponShape?: string, shield?: string, cape?: string, gloves?: string, boots?: string,
 *   amulet?: string, size: number}} FigureLook
 */

const HUMAN = '#e8c39e';
const hsl = (s, sat = 50, light = 48) => `hsl(${hashString(s) % 360} ${sat}% ${light}%)`;

/** Each known NPC kind's figure; unknown kinds are a person in colours of their own id. */
const NPCS = /** @type {Record<string, Partial<FigureLook>>} */ ({
  chicken: { body: 'chicken', skin: '#f4f0e6', shirt: '#d23c2c', legs: '#e8a83a', size: 0.8 },
  giant_rat: { body: 'rat', skin: '#7a6a5a', shirt: '#5a4a3a', legs: '#e0a0a0', size: 0.8 },
  rat: { body: 'rat', skin: '#8a7a6a', shirt: '#6a5a4a', legs: '#e0a0a0', size: 0.55 },
  wolf: { body: 'wolf', skin: '#8a8a90', shirt: '#5a5a60', legs: '#3a3a40', size: 0.9 },
  cow: { body: 'cow', skin: '#f0f0f0', shirt: '#2a2a2a', legs: '#e8b0a0', size: 1 },
  spider: { body: 'spider', skin: '#3a2a2a', shirt: '#a02020', legs: '#1a1010', size: 0.7 },
  skeleton: { body: 'skeleton', skin: '#ece6d4', shirt: '#ece6d4', legs: '#ece6d4', weapon: '#9a9a9a', weaponShape: 'sword', size: 1 },
  goblin: { body: 'human', skin: '#6a9a3a', shirt: '#7a5a3a', legs: '#4a3a2a', weapon: MATERIALS.bronze, weaponShape: 'sword', size: 0.8 },
  hobgoblin: { body: 'human', skin: '#9a7a3a', shirt: '#8a3a2a', legs: '#4a3a2a', weapon: MATERIALS.iron, weaponShape: 'spear', size: 1.05 },
  bandit: { body: 'human', skin: HUMAN, shirt: '#5a4a3a', legs: '#3a2a20', hat: '#2a2a2a', hatShape: 'mask', weapon: MATERIALS.iron, weaponShape: 'dagger', size: 1 },
  barbarian: { body: 'human', skin: '#d8a878', shirt: '#8a5a2a', legs: '#6a4a2a', hat: '#9a9a9a', hatShape: 'horns', weapon: MATERIALS.iron, weaponShape: 'axe', size: 1.05 },
  guard: { body: 'human', skin: HUMAN, shirt: '#3a5a9a', legs: '#2a2a3a', hat: MATERIALS.steel, hatShape: 'helm', weapon: MATERIALS.steel, weaponShape: 'spear', size: 1 },
  dark_knight: { body: 'human', skin: '#2c2c30', shirt: '#2c2c30', legs: '#1c1c20', hat: '#2c2c30', hatShape: 'helm', weapon: '#4a4a50', weaponShape: 'sword', shield: '#3a1a1a', size: 1.05 },
  black_knight: { body: 'human', skin: '#2c2c30', shirt: '#1a1a1e', legs: '#101014', hat: '#1a1a1e', hatShape: 'helm', weapon: '#3a3a40', weaponShape: 'sword', shield: '#1a1a1e', size: 1.05 },
  dark_warrior: { body: 'human', skin: HUMAN, shirt: '#3a2a3a', legs: '#2a1a2a', hat: '#3a3a44', hatShape: 'helm', weapon: '#5a5a60', weaponShape: 'mace', size: 1 },
  ice_warrior: { body: 'human', skin: '#a8d8f0', shirt: '#7ab8e0', legs: '#5a98c0', hat: '#d8f0ff', hatShape: 'helm', weapon: '#c8e8ff', weaponShape: 'sword', size: 1.1 },
  dark_ranger: { body: 'human', skin: HUMAN, shirt: '#2a3a2a', legs: '#1a2a1a', hat: '#1a2a1a', hatShape: 'hood', weapon: WOODS.yew, weaponShape: 'bow', size: 1 },
  banker_elsie: { body: 'human', skin: HUMAN, shirt: '#5a3a8a', legs: '#2a2a3a', hat: '#8a6a3a', hatShape: 'hair', size: 1 },
  bank_clerk: { body: 'human', skin: HUMAN, shirt: '#4a2a7a', legs: '#2a2a3a', hat: '#3a2a1a', hatShape: 'hair', size: 1 },
  merchant_tobin: { body: 'human', skin: HUMAN, shirt: '#3a7a3a', legs: '#5a4a2a', hat: '#6a4a2a', hatShape: 'cap', size: 1 },
  shopkeeper: { body: 'human', skin: HUMAN, shirt: '#2a6a5a', legs: '#4a3a2a', hat: '#6a4a2a', hatShape: 'cap', size: 1 },
  tanner_ewan: { body: 'human', skin: HUMAN, shirt: '#8b5a2b', legs: '#4a3a2a', hat: '#c89a5a', hatShape: 'apron', size: 1 },
  old_marta: { body: 'human', skin: HUMAN, shirt: '#7a4a6a', legs: '#5a3a4a', hat: '#d0d0d0', hatShape: 'hair', size: 0.9 },
  foreman_garrick: { body: 'human', skin: HUMAN, shirt: '#c87a2a', legs: '#3a3a4a', hat: '#e8c030', hatShape: 'hardhat', size: 1.05 },
  captain_holt: { body: 'human', skin: HUMAN, shirt: '#a02020', legs: '#2a2a3a', hat: MATERIALS.steel, hatShape: 'helm', weapon: MATERIALS.steel, weaponShape: 'sword', size: 1.05 },
  guide_rowan: { body: 'human', skin: HUMAN, shirt: '#2a6a9a', legs: '#4a3a2a', hat: '#3a6a2a', hatShape: 'hood', size: 1 },
});

/** @param {string} typeId @param {string} [name] @returns {FigureLook} */
export function npcLook(typeId, name = '') {
  const known = NPCS[typeId] ?? NPCS[Object.keys(NPCS).find((k) => typeId.includes(k) || name.toLowerCase().replace(/ /g, '_').includes(k)) ?? ''];
  if (known) return /** @type {FigureLook} */ ({ body: 'human', skin: HUMAN, shirt: '#888', legs: '#444', size: 1, ...known });
  return { body: 'human', skin: HUMAN, shirt: hsl(typeId || name), legs: hsl(`${typeId}legs`, 30, 28), hat: hsl(`${typeId}hat`, 40, 35), hatShape: 'cap', size: 1 };
}

/** Colour of an item on a figure: its look's main colour. @param {string} itemId */
const wornColour = (itemId) => {
  const l = itemLook(itemId);
  return l.colour.startsWith('#') ? l.colour : '#8a8a8a';
};

/**
 * A player: a shirt in a colour of their own name, and what they wear on top of it: one's own
 * from `equipment:update` (`{slot: {itemId}}`), others' from their entity's `worn` (`{slot: itemId}`),
 * drawn the same way.
 * @param {string} name @param {Record<string, {itemId: string}|string>} [equipment]
 * @returns {FigureLook}
 */
export function playerLook(name, equipment = {}) {
  /** @type {FigureLook} */
  const l = { body: 'human', skin: HUMAN, shirt: hsl(name, 55, 50), legs: hsl(`${name}.legs`, 25, 30), hat: hsl(`${name}.hair`, 40, 25), hatShape: 'hair', size: 1 };
  /** @param {string} slot @returns {string|undefined} */
  const eq = (slot) => { const v = equipment[slot]; return typeof v === 'string' ? v : v?.itemId; };
  if (eq('body')) l.shirt = wornColour(eq('body'));
  if (eq('legs')) l.legs = wornColour(eq('legs'));
  if (eq('helmet')) { l.hat = wornColour(eq('helmet')); l.hatShape = /coif|cowl|hood/.test(eq('helmet')) ? 'hood' : 'helm'; }
  if (eq('cape')) l.cape = wornColour(eq('cape'));
  if (eq('shield')) l.shield = wornColour(eq('shield'));
  if (eq('gloves')) l.gloves = wornColour(eq('gloves'));
  if (eq('boots')) l.boots = wornColour(eq('boots'));
  if (eq('amulet')) l.amulet = itemLook(eq('amulet')).accent;
  const w = eq('weapon');
  if (w) {
    const shape = itemLook(w).shape;
    l.weapon = shape === 'staff' || /bow/.test(shape) ? itemLook(w).colour : wornColour(w);
    l.weaponShape = /bow/.test(shape) ? 'bow' : shape === 'pickaxe' || shape === 'axe' || shape === 'staff' || shape === 'dagger' || shape === 'mace' ? shape : 'sword';
  }
  return l;
}

/** @param {FigureLook} l */
export function figureKey(l) {
  return [l.body, l.skin, l.shirt, l.legs, l.hat, l.hatShape, l.weapon, l.weaponShape, l.shield, l.cape, l.gloves, l.boots, l.amulet, l.size].join('|');
}

/** Rock colours by ore word; trees by wood word. */
const ORES = /** @type {Record<string, string>} */ ({
  copper: MATERIALS.copper, tin: MATERIALS.tin, iron: '#8a4a3a', coal: '#1a1614', mithril: MATERIALS.mithril,
  adamant: MATERIALS.adamant, adamantite: MATERIALS.adamant, runite: MATERIALS.rune, rune: MATERIALS.rune,
  gold: MATERIALS.gold, silver: MATERIALS.silver, essence: '#e0e0f0', clay: '#c8a878',
});

/**
 * A resource, station or agility obstacle: its kind and colours (`depleted` greys a rock, fells a tree).
 * @param {{kind?: string, resourceType?: string, typeId?: string, name?: string, depleted?: boolean}} e
 * @returns {{kind: string, colour: string, accent: string, badge?: string}}
 */
export function resourceLook(e) {
  const type = e.resourceType ?? '';
  // An agility obstacle: its own shape by what it is (`resourceType` carries it: log_balance, ledge,
  // net, pipe, …), others a stile.
  if (e.kind === 'obstacle') {
    const shapes = /** @type {Record<string, {colour: string, accent: string}>} */ ({
      log_balance: { colour: '#7a4a22', accent: '#b07a44' },
      ledge: { colour: '#8a8478', accent: '#5e5a52' },
      net: { colour: '#c8b27a', accent: '#6a5430' },
      pipe: { colour: '#5a6068', accent: '#2a2e34' },
    });
    const s = shapes[type];
    return { kind: s ? `obstacle_${type}` : 'obstacle', colour: s?.colour ?? '#8a6a3a', accent: s?.accent ?? '#4a3a20', badge: undefined };
  }
  const id = `${e.typeId ?? ''} ${(e.name ?? '').toLowerCase()}`;
  const word = (table) => Object.keys(table).find((k) => new RegExp(`(^|[_ ])${k}([_ ]|$)`).test(id));
  if (type === 'tree' || /tree/.test(id)) {
    const w = word(WOODS) ?? 'normal';
    const leaves = { normal: '#2f6e2a', oak: '#3f7a2e', willow: '#6e9b45', maple: '#c0602a', yew: '#1f4a2a', magic: '#3a5ab0', teak: '#4a7a2a', mahogany: '#5a3a1a' }[w] ?? '#2f6e2a';
    return { kind: w === 'willow' ? 'willow' : w === 'yew' || w === 'magic' ? 'pine' : 'tree', colour: leaves, accent: WOODS[w] ?? WOODS.normal };
  }
  if (type === 'fishing_spot' || type === 'fishing' || /fish/.test(id)) {
    const tool = /bait/.test(id) ? 'fishing_bait' : /fly|lure/.test(id) ? 'fly_fishing_rod' : /harpoon|cage/.test(id) ? 'harpoon' : 'small_fishing_net';
    return { kind: 'fishing', colour: '#cfe9ff', accent: '#2a6aa0', badge: tool };
  }
  if (type === 'ore' || type === 'rock' || /ore|rock/.test(id)) {
    const o = word(ORES);
    return { kind: 'rock', colour: '#7a746c', accent: o ? ORES[o] : '#4a4440' };
  }
  const stations = /** @type {Record<string, {colour: string, accent: string, badge: string}>} */ ({
    bank: { colour: '#8b5a2b', accent: '#f2c94c', badge: 'coins' },
    furnace: { colour: '#6a4a3a', accent: '#ff8a1f', badge: 'bronze_bar' },
    anvil: { colour: '#3a3f47', accent: '#8a9098', badge: 'hammer' },
    range: { colour: '#5a4a3a', accent: '#ff7a1f', badge: 'bread' },
    altar: { colour: '#d8d2c0', accent: '#8a7f6a', badge: 'bones' },
    runecrafting_altar: { colour: '#9a9aa8', accent: '#7a5ab0', badge: 'air_rune' },
    spinning_wheel: { colour: '#9a6a38', accent: '#e8e4d8', badge: 'bowstring' },
    tanning_rack: { colour: '#8b5a2b', accent: '#c8a878', badge: 'leather' },
  });
  if (type === 'fire') return { kind: 'fire', colour: '#ff8a1f', accent: '#ffd34d' };
  // A runecrafting altar of an element: its rune as the badge, its colour on the stone.
  const altar = /^(\w+)_altar$/.exec(type);
  if (altar) return { kind: 'runecrafting_altar', colour: '#9a9aa8', accent: itemLook(`${altar[1]}_rune`).accent, badge: `${altar[1]}_rune` };
  const s = stations[type] ?? (/altar/.test(type) ? stations.runecrafting_altar : null);
  if (s) return { kind: type in stations ? type : 'runecrafting_altar', ...s };
  return { kind: 'station', colour: hsl(type || id, 30, 40), accent: '#ddd', badge: undefined };
}

/** Stand-ins while a crowd's figures are being drawn, one per body. */
const PLAIN = /** @type {Record<string, FigureLook>} */ (Object.fromEntries(['human', 'skeleton', 'chicken', 'rat', 'wolf', 'cow', 'spider'].map((b) =>
  [b, { body: b, skin: '#c8b8a0', shirt: '#8a8a8a', legs: '#5a5a5a', size: 1 }])));

/** A figure's canvas in units of its 32-unit grid, and where its feet are in it. */
export const FIGURE_BOX = { w: 40, h: 36 };
export const FIGURE_FEET = 33;

/** A figure's height over its tile's: people stand taller than the tile is deep. */
export const FIGURE_SCALE = 1.35;

/** Most figure sprites kept (each look in each pose it was drawn in): a crowd of 255 players and
 * 255 NPCs in four poses is about 2,000. */
export const MAX_SPRITES = 4096;

/** Poses a figure is cached in: standing, two steps, a swing (attack, chop, hammer). */
export const POSES = ['stand', 'stepL', 'stepR', 'swing'];

/**
 * Draws a figure in a pose on a 32-unit grid, feet at (16, 30).
 * @param {CanvasRenderingContext2D} g @param {FigureLook} l @param {string} pose
 */
export function drawFigure(g, l, pose) {
  const circle = (x, y, r, c) => { g.beginPath(); g.arc(x, y, r, 0, Math.PI * 2); g.fillStyle = c; g.fill(); };
  const rect = (x, y, w, h, c) => { g.fillStyle = c; g.fillRect(x, y, w, h); };
  const line = (x1, y1, x2, y2, w, c) => { g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.lineWidth = w; g.strokeStyle = c; g.lineCap = 'round'; g.stroke(); };
  const step = pose === 'stepL' ? -1 : pose === 'stepR' ? 1 : 0;
  const s = l.size;
  g.save();
  g.translate(16, 30);
  g.scale(s, s);
  g.translate(-16, -30);
  // Shadow.
  g.beginPath(); g.ellipse(16, 30, 8, 2.5, 0, 0, Math.PI * 2); g.fillStyle = 'rgba(0,0,0,0.3)'; g.fill();
  if (l.body === 'chicken') {
    line(14 - step, 24, 13 - step * 2, 30, 1.5, l.legs); line(18 + step, 24, 19 + step * 2, 30, 1.5, l.legs);
    g.beginPath(); g.ellipse(16, 20, 8, 6, 0, 0, Math.PI * 2); g.fillStyle = l.skin; g.fill(); g.strokeStyle = '#8a8070'; g.lineWidth = 0.8; g.stroke();
    g.beginPath(); g.ellipse(11, 18, 3, 5, -0.6, 0, Math.PI * 2); g.fillStyle = '#ddd6c8'; g.fill();
    const peck = pose === 'swing' ? 4 : 0;
    circle(22, 12 + peck, 4, l.skin); circle(23, 8 + peck, 2, l.shirt);
    g.beginPath(); g.moveTo(25, 12 + peck); g.lineTo(29, 13 + peck); g.lineTo(25, 14 + peck); g.fillStyle = l.legs; g.fill();
    circle(23, 11 + peck, 0.9, '#111');
  } else if (l.body === 'rat' || l.body === 'wolf' || l.body === 'cow') {
    const long = l.body === 'wolf' ? 10 : l.body === 'cow' ? 11 : 9;
    const top = l.body === 'cow' ? 14 : 20;
    for (const [x, d] of [[10, step], [14, -step], [19, step], [23, -step]]) line(x, top + 4, x + d * 2, 30, l.body === 'rat' ? 1.5 : 2.5, l.body === 'cow' ? l.skin : l.shirt);
    g.beginPath(); g.ellipse(16, top + 3, long, l.body === 'cow' ? 6 : 4.5, 0, 0, Math.PI * 2); g.fillStyle = l.skin; g.fill();
    if (l.body === 'cow') { circle(13, top + 2, 2.5, l.shirt); circle(19, top + 4, 2, l.shirt); }
    const jaw = pose === 'swing' ? 2 : 0;
    g.beginPath(); g.ellipse(27, top - 1 + jaw, l.body === 'rat' ? 3.5 : 4.5, 3, 0.3, 0, Math.PI * 2); g.fillStyle = l.body === 'wolf' ? l.shirt : l.skin; g.fill();
    if (l.body === 'wolf') { g.beginPath(); g.moveTo(25, top - 4); g.lineTo(26, top - 8); g.lineTo(28, top - 4); g.fillStyle = l.shirt; g.fill(); }
    if (l.body === 'rat') { g.beginPath(); g.moveTo(7, top + 3); g.quadraticCurveTo(2, top - 4, 1, top + 6); g.strokeStyle = l.legs; g.lineWidth = 1.2; g.stroke(); }
    else { line(6, top + 1, 3, top - 3 + step, 2, l.body === 'cow' ? l.shirt : l.shirt); }
    circle(28, top - 2 + jaw, 0.9, pose === 'swing' && l.body === 'wolf' ? '#e02020' : '#111');
  } else if (l.body === 'spider') {
    for (let i = 0; i < 4; i++) { line(16, 22, 4 + i * 2, 16 + i * 4 + step, 1.4, l.legs); line(16, 22, 28 - i * 2, 16 + i * 4 - step, 1.4, l.legs); }
    circle(16, 22, 6, l.skin); circle(16, 22, 2.5, l.shirt);
  } else {
    const bone = l.body === 'skeleton';
    // Legs (a step swings them), body, arms, head.
    line(14, 22, 14 - step * 2.5, 29.5, bone ? 1.6 : 3.2, l.legs);
    line(18, 22, 18 + step * 2.5, 29.5, bone ? 1.6 : 3.2, l.legs);
    if (l.boots) { circle(14 - step * 2.5, 29.5, 1.9, l.boots); circle(18 + step * 2.5, 29.5, 1.9, l.boots); }
    if (l.cape) { g.beginPath(); g.moveTo(11, 12); g.lineTo(21, 12); g.lineTo(22, 25); g.lineTo(10, 25); g.fillStyle = l.cape; g.fill(); }
    if (bone) { line(16, 12, 16, 22, 1.6, l.skin); for (const y of [14, 17, 20]) line(12.5, y, 19.5, y, 1.2, l.skin); }
    else { g.beginPath(); g.roundRect(11, 11.5, 10, 11.5, 2.5); g.fillStyle = l.shirt; g.fill(); rect(11, 20, 10, 1.5, 'rgba(0,0,0,0.3)'); }
    if (l.hatShape === 'apron') rect(12.5, 15, 7, 8, l.hat ?? '#ccc');
    if (l.amulet) { line(13.5, 11.8, 16, 14.5, 0.7, '#d8b040'); line(18.5, 11.8, 16, 14.5, 0.7, '#d8b040'); circle(16, 15, 1.3, l.amulet); }
    const swing = pose === 'swing';
    // The weapon arm: raised in a swing, down at the side otherwise.
    const hx = swing ? 24 : 22.5, hy = swing ? 9 : 20 + step;
    line(20.5, 13, hx, hy, bone ? 1.4 : 2.6, bone ? l.skin : l.shirt);
    line(11.5, 13, 9 - step, 20 - (l.shield ? 3 : 0), bone ? 1.4 : 2.6, bone ? l.skin : l.shirt);
    circle(hx, hy, l.gloves ? 1.7 : 1.4, l.gloves ?? l.skin);
    if (l.gloves) circle(9 - step, 20 - (l.shield ? 3 : 0), 1.7, l.gloves);
    if (l.weapon) {
      const ws = l.weaponShape;
      const tipX = swing ? hx + 7 : hx + 2, tipY = swing ? hy - 5 : hy - 9;
      if (ws === 'bow') { g.beginPath(); g.moveTo(hx + 1, hy - 8); g.quadraticCurveTo(hx + 6, hy, hx + 1, hy + 8); g.strokeStyle = l.weapon; g.lineWidth = 1.6; g.stroke(); }
      else if (ws === 'axe' || ws === 'pickaxe') {
        line(hx, hy + 1, tipX, tipY, 1.6, '#6a4a2a');
        if (ws === 'axe') { g.beginPath(); g.moveTo(tipX, tipY); g.lineTo(tipX + 3.5, tipY - 1); g.lineTo(tipX + 3, tipY + 3.5); g.closePath(); g.fillStyle = l.weapon; g.fill(); }
        else line(tipX - 3, tipY + 1, tipX + 3, tipY - 1, 1.8, l.weapon);
      } else if (ws === 'staff' || ws === 'spear') {
        line(hx, hy + 4, tipX, tipY - 2, 1.6, ws === 'staff' ? '#6a4a2a' : '#7a5a3a'); circle(tipX, tipY - 2, ws === 'staff' ? 2 : 1.4, l.weapon);
      } else if (ws === 'mace') { line(hx, hy, tipX, tipY, 1.6, '#5a4a3a'); circle(tipX, tipY, 2.4, l.weapon); }
      else line(hx, hy, ws === 'dagger' ? (hx + tipX) / 2 : tipX, ws === 'dagger' ? (hy + tipY) / 2 : tipY, 1.8, l.weapon);
    }
    if (l.shield) { g.beginPath(); g.roundRect(5.5 - step, 14, 6, 8, 2); g.fillStyle = l.shield; g.fill(); g.strokeStyle = 'rgba(0,0,0,0.5)'; g.lineWidth = 0.8; g.stroke(); }
    circle(16, 7.5, bone ? 3.6 : 4, l.skin);
    if (bone) { circle(14.6, 7.2, 0.9, '#222'); circle(17.4, 7.2, 0.9, '#222'); }
    else { circle(17.5, 7.2, 0.6, '#2a1a10'); }
    const hat = l.hat;
    if (hat && l.hatShape === 'hair') { g.beginPath(); g.arc(16, 6.8, 4.2, Math.PI * 1.05, Math.PI * 1.95); g.fillStyle = hat; g.fill(); }
    else if (hat && l.hatShape === 'helm') { g.beginPath(); g.arc(16, 7, 4.6, Math.PI, 0); g.lineTo(20.6, 9); g.lineTo(11.4, 9); g.fillStyle = hat; g.fill(); rect(15.3, 4, 1.4, 6, 'rgba(0,0,0,0.35)'); }
    else if (hat && l.hatShape === 'hood') { g.beginPath(); g.arc(16, 7.5, 5, Math.PI * 0.9, Math.PI * 2.1); g.fillStyle = hat; g.fill(); }
    else if (hat && l.hatShape === 'cap') { g.beginPath(); g.arc(16, 6.5, 4.2, Math.PI, 0); g.fillStyle = hat; g.fill(); rect(16, 5.8, 6, 1.4, hat); }
    else if (hat && l.hatShape === 'hardhat') { g.beginPath(); g.arc(16, 6.5, 4.6, Math.PI, 0); g.fillStyle = hat; g.fill(); rect(10.5, 6, 11, 1.4, hat); }
    else if (hat && l.hatShape === 'mask') rect(12, 6, 8, 2, hat);
    else if (hat && l.hatShape === 'horns') { g.beginPath(); g.arc(16, 7, 4.4, Math.PI, 0); g.fillStyle = '#8a8a8a'; g.fill(); line(12, 5, 9.5, 1.5, 1.6, '#f0e8d0'); line(20, 5, 22.5, 1.5, 1.6, '#f0e8d0'); }
  }
  g.restore();
}

/**
 * Sprites drawn once per look, pose and tile size, copied each frame with one drawImage.
 */
export class Sprites {
  constructor() {
    /** @type {Map<string, HTMLCanvasElement>} */
    this.cache = new Map();
    this.size = 0;
    this.dpr = 1;
    /** Until when (performance.now()) this frame may draw new figures (see `beginFrame`). */
    this.deadline = Infinity;
  }

  /** A frame starts: new figures are drawn in it for at most `ms`. A crowd of 254 players in new
   * colours appears over a few frames (each waits as a plain figure) instead of stalling one. @param {number} ms */
  beginFrame(ms) {
    this.deadline = performance.now() + ms;
  }

  /** Drops every sprite when the tile size or pixel ratio changes (zoom, resize). @param {number} tile @param {number} dpr */
  setScale(tile, dpr) {
    if (tile === this.size && dpr === this.dpr) return;
    this.size = tile;
    this.dpr = dpr;
    this.cache.clear();
  }

  /**
   * The canvas of a figure in a pose: 1.25 × FIGURE_SCALE tiles wide, 1.125 × FIGURE_SCALE tall
   * (FIGURE_BOX units, no more than the figure and its raised weapon: every pixel is copied each frame),
   * feet at FIGURE_FEET units from its top.
   * @param {FigureLook} look @param {string} pose @param {string} [key] the look's key, when the caller keeps it
   */
  figure(look, pose, key = figureKey(look)) {
    const k = `${key}#${pose}`;
    let c = this.cache.get(k);
    if (!c && !key.startsWith('plain-') && performance.now() > this.deadline) {
      // Out of budget: the same figure standing if drawn already, else a plain one of its body
      // (drawn whatever the budget: there are only a few).
      return this.cache.get(`${key}#stand`) ?? this.figure(PLAIN[look.body] ?? PLAIN.human, 'stand', `plain-${PLAIN[look.body] ? look.body : 'human'}`);
    }
    if (!c) {
      c = document.createElement('canvas');
      const px = this.size * this.dpr * FIGURE_SCALE;
      c.width = Math.ceil(px * 1.25);
      c.height = Math.ceil(px * FIGURE_BOX.h / 32);
      const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
      g.scale(c.width / FIGURE_BOX.w, c.height / FIGURE_BOX.h);
      g.translate(4, FIGURE_FEET - 30);
      // The 32-unit figure (feet at y 30) into the box, feet at FIGURE_FEET.
      drawFigure(g, look, pose);
      // Looks come and go (names in view, outfits changed): past the bound start over rather
      // than keep every figure ever seen.
      if (this.cache.size >= MAX_SPRITES) this.cache.clear();
      this.cache.set(k, c);
    }
    return c;
  }
}
