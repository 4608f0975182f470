// Item pictures drawn by the client from the item's data: a shape per kind of thing (sword, axe,
// pickaxe, fish, log, ore, bar, rune, …) and colours from its material, tier, wood, species or
// element, so no two items of different ids look alike (test/icons.test.js checks the looks of
// the bundled and the reference content; the browser test hashes the drawings). `itemLook` is
// pure (what to draw); `drawItem` draws a look on a canvas; `itemImage` keeps one drawing per
// id, drawn once, which the inventory, bank, shop and the ground copy from.

/** @typedef {{shape: string, colour: string, accent: string, mark?: string}} ItemLook */

/** Metal and material colours by the word naming them. */
export const MATERIALS = /** @type {Record<string, string>} */ ({
  bronze: '#b87333', iron: '#7c7f87', steel: '#b4bec8', mithril: '#4e5fb4', adamant: '#3d8a55',
  adamantite: '#3d8a55', rune: '#3fb0c9', runite: '#3fb0c9', black: '#2c2c30', gold: '#e8b830',
  dragon: '#c0281d', copper: '#c8773a', tin: '#d8dde0', coal: '#26221f', leather: '#8b5a2b',
  studded: '#6a4a2c', green: '#3f9a45', wooden: '#9a6a38', silver: '#d0d4da',
});

/** Wood colours (logs, bows). */
export const WOODS = /** @type {Record<string, string>} */ ({
  normal: '#9a6a38', oak: '#b98a4c', willow: '#9ba35a', maple: '#d08f3b', yew: '#7a3b28',
  magic: '#4a6fc0', teak: '#8c5a30', mahogany: '#6e2a1e',
});

/** Rune, staff orb and amulet colours. */
const ELEMENTS = /** @type {Record<string, string>} */ ({
  air: '#eef4ff', water: '#2f78e0', earth: '#7a5526', fire: '#e8431f', mind: '#e0a21a',
  body: '#9aa0b0', chaos: '#d6b51a', death: '#e8e8e8', nature: '#2f9a3a', law: '#2a3fb0',
  cosmic: '#e6e05a', blood: '#a01010', soul: '#7a5ab0',
});
const GEMS = /** @type {Record<string, string>} */ ({
  sapphire: '#2a4fd0', emerald: '#1f9a4a', ruby: '#c8102e', diamond: '#e8f6ff',
  dragonstone: '#a040c8', onyx: '#1a1a1a', opal: '#f0d8e8', jade: '#5fbf7f', topaz: '#d06a20',
});
const AMULETS = /** @type {Record<string, string>} */ ({
  accuracy: '#3fa0e0', fury: '#e0a020', glory: '#d03030', power: '#e0e0f0', strength: '#c85a20',
  vigour: '#40c060', magic: '#7050d0', defence: '#909090',
});
/** Fish and meat: the raw colour; cooked and burnt are drawn from it. */
const SPECIES = /** @type {Record<string, string>} */ ({
  shrimp: '#c9a0a0', anchovies: '#7a8c9a', sardine: '#8fa8b8', herring: '#9ab0a0', trout: '#b89a7a',
  salmon: '#e08a70', pike: '#8a9a5a', tuna: '#5a6a9a', lobster: '#4a6a8a', swordfish: '#6a8ab8',
  monkfish: '#9a7a6a', shark: '#7a8a9a', karambwan: '#7a9a4a', fish: '#a0a8b0', chicken: '#f0c0b0',
  meat: '#d07070', beef: '#c05050',
});
/** Fish drawn with their own outline rather than the common fish. */
const SPECIES_SHAPE = /** @type {Record<string, string>} */ ({ shrimp: 'shrimp', anchovies: 'smallfish', sardine: 'smallfish', lobster: 'lobster', swordfish: 'swordfish', shark: 'shark', chicken: 'meat', meat: 'meat', beef: 'meat' });

/** A stable number from a string (the fallback colour of an unknown item). @param {string} s */
export function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** @param {string} a @param {string} b @param {number} t */
export function mix(a, b, t) {
  const pa = parseInt(a.slice(1), 16), pb = parseInt(b.slice(1), 16);
  const c = (s) => Math.round(((pa >> s) & 255) * (1 - t) + ((pb >> s) & 255) * t);
  return `#${((1 << 24) | (c(16) << 16) | (c(8) << 8) | c(0)).toString(16).slice(1)}`;
}

/** The first key of `table` that is a word of `id`. @param {string} id @param {Record<string, string>} table */
function wordIn(id, table) {
  const words = id.split('_');
  return words.find((w) => w in table) ?? null;
}

/**
 * What an item's picture shows: its shape, main colour, second colour and an optional mark.
 * @param {string} id
 * @param {{type?: string, equipSlot?: string, weaponType?: string, tier?: string, name?: string}|undefined} [def]
 * @returns {ItemLook}
 */
export function itemLook(id, def) {
  const hashed = `hsl(${hashString(id) % 360} 45% 50%)`;
  const mat = wordIn(id, MATERIALS);
  const metal = mat ? MATERIALS[mat] : MATERIALS[def?.tier ?? ''] ?? '#9aa0a8';
  const wood = WOODS[wordIn(id, WOODS) ?? def?.tier ?? 'normal'] ?? WOODS.normal;
  const look = (shape, colour, accent = '#3a2a1a', mark) => (mark ? { shape, colour, accent, mark } : { shape, colour, accent });
  if (id === 'coins' || def?.type === 'currency') return look('coins', '#f2c94c', '#a8780a');
  let m;
  if ((m = /^(\w+)_rune$/.exec(id))) return look('rune', '#9a9a9a', ELEMENTS[m[1]] ?? hashed);
  if ((m = /^(raw_|burnt_|cooked_)?(\w+)$/.exec(id)) && (m[2] in SPECIES)) {
    const species = m[2] in SPECIES ? m[2] : 'fish';
    const raw = SPECIES[species];
    const state = m[1] === 'raw_' ? 'raw' : m[1] === 'burnt_' ? 'burnt' : 'cooked';
    const colour = state === 'raw' ? raw : state === 'burnt' ? mix(raw, '#1a1008', 0.72) : mix(raw, '#c8742e', 0.45);
    return look(SPECIES_SHAPE[species] ?? 'fish', colour, state === 'burnt' ? '#000' : mix(colour, '#ffffff', 0.35), state === 'burnt' ? 'burnt' : undefined);
  }
  if (/essence$/.test(id)) return look('essence', id.startsWith('pure') ? '#f4f4f0' : '#b8b8c0', '#8a8a90');
  if (/arrowtips$/.test(id)) return look('arrowtips', metal);
  if (id === 'arrow_shaft') return look('shaft', WOODS.normal);
  if (id === 'headless_arrow') return look('headless', WOODS.normal, '#f0f0f0');
  if (/_arrow$/.test(id)) return look('arrow', metal, '#8a6a3a');
  if (/_bar$/.test(id)) return look('bar', metal);
  if (/_ore$/.test(id) || id === 'coal') return look('ore', '#6a625a', id === 'coal' ? '#111' : metal);
  if (/(^|_)logs$/.test(id)) return look('logs', wood, mix(wood, '#f0d8a8', 0.5));
  if (/bow/.test(id) && /bowstring/.test(id)) return look('string', '#e8e0c8');
  if ((m = /(short|long)bow(_u)?$/.exec(id))) return look(`${m[1]}bow${m[2] ? '_u' : ''}`, wood, '#eee');
  if (/staff/.test(id)) {
    const orb = ELEMENTS[wordIn(id, ELEMENTS) ?? ''] ?? (id.startsWith('magic') ? '#8a40d0' : id.startsWith('apprentice') ? '#6a8ab0' : '');
    return look('staff', '#6a4a2a', orb || '#6a4a2a', orb ? 'orb' : undefined);
  }
  if (/pickaxe/.test(id)) return look('pickaxe', metal, '#7a5230');
  if (/hatchet|(^|_)axe$/.test(id)) return look('axe', metal, '#7a5230');
  if (/dagger/.test(id)) return look('dagger', metal, '#5a3a20');
  if (/scimitar/.test(id)) return look('scimitar', metal, '#5a3a20');
  if (/sword/.test(id) && def?.type !== 'consumable') return look(/2h|longsword/.test(id) ? 'longsword' : 'sword', metal, '#5a3a20');
  if (/mace/.test(id)) return look('mace', metal, '#5a3a20');
  if (/coif/.test(id)) return look('coif', mat ? metal : '#a87a4a');
  if (/cowl|hood/.test(id)) return look('cowl', mat ? metal : '#8b5a2b');
  if (/helm/.test(id) || def?.equipSlot === 'helmet') return look('helmet', metal);
  if (/body|platebody|chest|top$/.test(id) || def?.equipSlot === 'body') return look('body', mat ? metal : '#8b5a2b', '#00000040', /studded/.test(id) ? 'studs' : undefined);
  if (/chaps|legs|skirt/.test(id) || def?.equipSlot === 'legs') return look('legs', mat ? metal : '#8b5a2b', '#00000040', /studded/.test(id) ? 'studs' : undefined);
  if (/vambraces|bracelet/.test(id)) return look('vambraces', mat ? metal : '#8b5a2b');
  if (/gloves|gauntlets/.test(id) || def?.equipSlot === 'gloves') return look('gloves', mat ? metal : '#8b5a2b');
  if (/boots/.test(id) || def?.equipSlot === 'boots') return look('boots', mat ? metal : '#6a4526');
  if (/shield/.test(id) || def?.equipSlot === 'shield') return look('shield', mat === 'wooden' || !mat ? WOODS.normal : metal, '#5a5a5a');
  if (/mould$/.test(id)) return look(/ring/.test(id) ? 'mould_ring' : 'mould_amulet', '#8a8a8a', '#4a4a4a');
  if ((m = /^amulet_of_(\w+)$/.exec(id)) || def?.equipSlot === 'amulet') return look('amulet', '#e8b830', AMULETS[m?.[1] ?? ''] ?? hashed);
  if (/(^|_)ring$/.test(id) || def?.equipSlot === 'ring') return look('ring', metal, GEMS[wordIn(id, GEMS) ?? ''] ?? metal);
  if ((m = /^uncut_(\w+)$/.exec(id))) return look('uncut', GEMS[m[1]] ?? hashed, '#ffffff60');
  if (id in GEMS) return look('gem', GEMS[id], '#ffffffa0');
  if (/bones$/.test(id)) return look(id === 'bones' ? 'bones' : 'bigbones', id.startsWith('dragon') ? '#c8d8b0' : '#ece6d4', '#a8a090');
  if (id === 'ashes') return look('ashes', '#8a8a8a', '#5a5a5a');
  if (id === 'bread' || /bread|cake|pie/.test(id)) return look('bread', '#d8a050', '#a86a28');
  if (/hide$/.test(id)) return look('hide', id.startsWith('green') ? '#3f8a3f' : '#8a6a4a', '#f0e8e0');
  if (/leather$/.test(id)) return look('leather', id.startsWith('green') ? '#2f7a3a' : '#8b5a2b', '#5a3a1a');
  if (id === 'thread') return look('thread', '#e8e4d8', '#8a7a6a');
  if (id === 'feathers' || /feather/.test(id)) return look('feather', '#f4f4f4', '#c0c0c0');
  if (/bait|worm/.test(id)) return look('bait', '#c87a8a', '#8a4a5a');
  if (/studs$/.test(id)) return look('studs', metal);
  if (id === 'hammer') return look('hammer', '#5a5a60', '#7a5230');
  if (id === 'knife') return look('knife', '#c0c8d0', '#3a2a1a');
  if (id === 'chisel') return look('chisel', '#a0a8b0', '#7a5230');
  if (id === 'needle') return look('needle', '#d8dce0');
  if (id === 'tinderbox') return look('tinderbox', '#8a6a3a', '#e8a030');
  if (/fly_fishing_rod/.test(id)) return look('rod', '#6a4a2a', '#e0e0e0', 'fly');
  if (/fishing_rod/.test(id)) return look('rod', '#8a6a3a', '#e0e0e0');
  if (/net$/.test(id)) return look('net', '#c8b890', '#7a5230');
  if (/harpoon/.test(id)) return look('harpoon', '#8a9098', '#7a5230');
  if (/lobster_pot|cage/.test(id)) return look('pot', '#9a7a4a', '#5a3a1a');
  if (/lamp/.test(id)) return look('lamp', /knowledge/.test(id) ? '#e8b830' : '#c0c8d0', '#ffe080');
  if (def?.type === 'consumable' || def?.type === 'food') return look('bread', hashed, '#5a3a1a');
  if (def?.type === 'tool') return look('tool', hashed, '#7a5230');
  if (def?.type === 'weapon') return look('sword', hashed, '#5a3a20');
  return look('bag', hashed, '#3a2a1a');
}

/** A look as one string: two items with the same key would be drawn the same. @param {ItemLook} l */
export function lookKey(l) {
  return `${l.shape}|${l.colour}|${l.accent}|${l.mark ?? ''}`;
}

/**
 * Draws a look into a `size`×`size` square at (0, 0) of `g` (drawn on a 32-unit grid).
 * @param {CanvasRenderingContext2D} g @param {ItemLook} l @param {number} size
 */
export function drawItem(g, l, size) {
  g.save();
  g.scale(size / 32, size / 32);
  g.lineJoin = 'round';
  g.lineCap = 'round';
  const C = l.colour, A = l.accent;
  const dark = mix(C.length === 7 ? C : '#808080', '#000000', 0.45);
  const light = mix(C.length === 7 ? C : '#808080', '#ffffff', 0.4);
  const fill = (c) => { g.fillStyle = c; g.fill(); };
  const outline = (w = 1.5, c = '#1a120a') => { g.lineWidth = w; g.strokeStyle = c; g.stroke(); };
  const poly = (pts) => { g.beginPath(); g.moveTo(pts[0], pts[1]); for (let i = 2; i < pts.length; i += 2) g.lineTo(pts[i], pts[i + 1]); g.closePath(); };
  const circle = (x, y, r) => { g.beginPath(); g.arc(x, y, r, 0, Math.PI * 2); };
  const line = (x1, y1, x2, y2, w, c) => { g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.lineWidth = w; g.strokeStyle = c; g.stroke(); };
  const ell = (x, y, rx, ry, rot = 0) => { g.beginPath(); g.ellipse(x, y, rx, ry, rot, 0, Math.PI * 2); };
  const handle = (x1, y1, x2, y2) => { line(x1, y1, x2, y2, 4.5, '#1a120a'); line(x1, y1, x2, y2, 2.8, A); };
  switch (l.shape) {
    case 'coins':
      for (const [x, y] of [[11, 21], [20, 22], [15, 14]]) { ell(x, y, 7, 4.5); fill(C); outline(1.2, A); ell(x, y - 1, 4, 2); fill(light); }
      break;
    case 'rune':
      poly([16, 4, 27, 10, 27, 22, 16, 28, 5, 22, 5, 10]); fill(C); outline();
      circle(16, 16, 6); fill(A); outline(1, '#222');
      break;
    case 'essence':
      poly([9, 6, 23, 5, 27, 17, 20, 27, 7, 24, 5, 14]); fill(C); outline(); poly([11, 9, 19, 8, 14, 15]); fill('#ffffff90');
      break;
    case 'arrowtips':
      for (const [x, y] of [[9, 10], [19, 12], [13, 21]]) { poly([x, y - 5, x + 4, y + 4, x - 4, y + 4]); fill(C); outline(1.2); }
      break;
    case 'arrow': case 'headless': case 'shaft':
      for (const d of [0, 6]) {
        line(6 + d, 26, 24 + d, 8, 2.5, '#8a6a3a');
        if (l.shape !== 'shaft') { poly([5 + d, 27, 4 + d, 21, 9 + d, 24]); fill(A); poly([5 + d, 27, 11 + d, 28, 8 + d, 23]); fill(A); }
        if (l.shape === 'arrow') { poly([24 + d, 8, 27 + d, 5, 26 + d, 11]); fill(C); outline(1); }
      }
      break;
    case 'bar':
      poly([4, 20, 10, 12, 28, 12, 24, 20]); fill(light); outline(); poly([4, 20, 24, 20, 24, 26, 4, 26]); fill(C); outline(); poly([24, 20, 28, 12, 28, 18, 24, 26]); fill(dark); outline();
      break;
    case 'ore':
      poly([6, 20, 9, 9, 18, 5, 27, 11, 27, 22, 18, 28, 9, 26]); fill(C); outline();
      for (const [x, y, r] of [[13, 13, 3], [20, 19, 3.5], [12, 21, 2], [21, 11, 2]]) { circle(x, y, r); fill(A); }
      break;
    case 'logs':
      for (const [y, x] of [[22, 4], [13, 8]]) {
        g.beginPath(); g.rect(x, y - 4, 18, 8); fill(C); outline();
        ell(x + 18, y, 3, 4); fill(A); outline(1);
      }
      break;
    case 'shortbow': case 'longbow': case 'shortbow_u': case 'longbow_u': {
      const long = l.shape.startsWith('long');
      const [y0, y1] = long ? [2, 30] : [6, 26];
      g.beginPath(); g.moveTo(22, y0); g.quadraticCurveTo(long ? 2 : 6, 16, 22, y1); g.lineWidth = 4.5; g.strokeStyle = '#1a120a'; g.stroke(); g.lineWidth = 3; g.strokeStyle = C; g.stroke();
      if (!l.shape.endsWith('_u')) line(22, y0, 22, y1, 1, A);
      break;
    }
    case 'string': case 'thread':
      g.beginPath(); g.moveTo(6, 24); g.bezierCurveTo(30, 30, 2, 4, 26, 8); g.lineWidth = 2.5; g.strokeStyle = C; g.stroke();
      if (l.shape === 'thread') { ell(16, 16, 6, 8); fill(C); outline(1.2, A); line(10, 12, 22, 12, 1, A); line(10, 18, 22, 18, 1, A); }
      break;
    case 'staff':
      handle(8, 28, 24, 6);
      if (l.mark === 'orb') { circle(24, 6, 4.5); fill(A); outline(1.2); }
      break;
    case 'pickaxe':
      handle(9, 28, 20, 9);
      g.beginPath(); g.moveTo(6, 12); g.quadraticCurveTo(18, 0, 30, 12); g.quadraticCurveTo(18, 5, 6, 12); fill(C); outline(1.2);
      break;
    case 'axe':
      handle(8, 28, 20, 6);
      poly([17, 5, 27, 3, 28, 14, 19, 13]); fill(C); outline(1.2);
      break;
    case 'dagger':
      poly([22, 4, 24, 6, 15, 18, 13, 16]); fill(C); outline(1.2); line(10, 14, 17, 21, 3, '#3a2a1a'); handle(8, 24, 13, 19);
      break;
    case 'sword': case 'longsword': case 'scimitar': {
      const tip = l.shape === 'longsword' ? 2 : 5;
      if (l.shape === 'scimitar') { g.beginPath(); g.moveTo(11, 19); g.quadraticCurveTo(22, 16, 27, tip); g.quadraticCurveTo(24, 18, 13, 21); fill(C); outline(1.2); }
      else { poly([27 - tip + 2, tip, 29, tip, 29, tip + 2, 13, 21, 11, 19]); fill(C); outline(1.2); line(14, 12 + 2, 21 + 0, 19 + 0, 1, light); }
      line(8, 16, 16, 24, 3.5, '#3a2a1a'); handle(5, 27, 11, 21);
      break;
    }
    case 'mace':
      handle(8, 28, 19, 11); circle(21, 9, 6); fill(C); outline();
      break;
    case 'helmet':
      g.beginPath(); g.arc(16, 17, 11, Math.PI, 0); g.lineTo(27, 26); g.lineTo(5, 26); g.closePath(); fill(C); outline();
      g.beginPath(); g.rect(9, 17, 14, 3); fill('#111');
      line(16, 6, 16, 26, 2, light);
      break;
    case 'coif': case 'cowl':
      g.beginPath(); g.arc(16, 16, 11, Math.PI * 0.85, Math.PI * 2.15); g.lineTo(26, 29); g.lineTo(6, 29); g.closePath(); fill(C); outline();
      ell(16, 18, 6, 7); fill(l.shape === 'coif' ? '#2a1a10' : '#000');
      if (l.shape === 'cowl') { poly([12, 6, 16, 1, 20, 6]); fill(C); outline(1); }
      break;
    case 'body':
      poly([8, 6, 13, 4, 16, 7, 19, 4, 24, 6, 29, 13, 25, 16, 24, 12, 24, 28, 8, 28, 8, 12, 7, 16, 3, 13]); fill(C); outline();
      line(16, 8, 16, 27, 1.5, A);
      if (l.mark === 'studs') for (const [x, y] of [[12, 13], [20, 13], [12, 20], [20, 20], [12, 25], [20, 25]]) { circle(x, y, 1.3); fill('#d0d4da'); }
      break;
    case 'legs':
      poly([8, 4, 24, 4, 26, 28, 19, 28, 16, 12, 13, 28, 6, 28]); fill(C); outline(); line(8, 8, 24, 8, 1.5, A);
      if (l.mark === 'studs') for (const [x, y] of [[10, 14], [22, 14], [9, 22], [23, 22]]) { circle(x, y, 1.3); fill('#d0d4da'); }
      break;
    case 'gloves':
      poly([8, 28, 8, 14, 10, 6, 13, 6, 13, 13, 15, 5, 18, 5, 18, 13, 20, 6, 23, 7, 22, 15, 27, 12, 28, 15, 22, 22, 22, 28]); fill(C); outline();
      break;
    case 'vambraces':
      poly([8, 6, 24, 6, 22, 26, 10, 26]); fill(C); outline(); line(9, 12, 23, 12, 1.5, dark); line(9, 20, 23, 20, 1.5, dark);
      break;
    case 'boots':
      poly([8, 4, 17, 4, 17, 19, 28, 22, 28, 28, 6, 28]); fill(C); outline(); line(6, 25, 28, 25, 1.5, dark);
      break;
    case 'shield':
      g.beginPath(); g.moveTo(5, 6); g.lineTo(27, 6); g.lineTo(27, 15); g.quadraticCurveTo(26, 25, 16, 30); g.quadraticCurveTo(6, 25, 5, 15); g.closePath(); fill(C); outline(); line(16, 7, 16, 28, 2, A); line(6, 14, 26, 14, 2, A);
      break;
    case 'mould_ring': case 'mould_amulet':
      g.beginPath(); g.rect(5, 7, 22, 18); fill(C); outline();
      if (l.shape === 'mould_ring') { circle(16, 16, 5); outline(2.5, A); } else { g.beginPath(); g.moveTo(10, 10); g.quadraticCurveTo(16, 24, 22, 10); outline(2, A); circle(16, 19, 3); fill(A); }
      break;
    case 'amulet':
      g.beginPath(); g.moveTo(7, 4); g.quadraticCurveTo(16, 26, 25, 4); outline(2, C);
      circle(16, 21, 6); fill(C); outline(1.2); circle(16, 21, 3.5); fill(A);
      break;
    case 'ring':
      circle(16, 18, 8); outline(3.5, C); circle(16, 9, 3.5); fill(A); outline(1);
      break;
    case 'uncut':
      poly([8, 12, 14, 6, 24, 9, 26, 20, 17, 26, 7, 21]); fill(C); outline(); poly([12, 12, 17, 9, 16, 15]); fill(A);
      break;
    case 'gem':
      poly([6, 12, 11, 6, 21, 6, 26, 12, 16, 27]); fill(C); outline(); poly([6, 12, 26, 12, 16, 27]); fill(mix(C, '#000000', 0.25)); poly([11, 6, 16, 12, 21, 6]); fill(A);
      break;
    case 'bones': case 'bigbones': {
      const w = l.shape === 'bones' ? 2.5 : 4;
      for (const [x1, y1, x2, y2] of [[7, 25, 25, 7], [7, 9, 25, 23]].slice(0, l.shape === 'bones' ? 1 : 2)) {
        line(x1, y1, x2, y2, w + 2, '#3a3428'); line(x1, y1, x2, y2, w, C);
        for (const [x, y] of [[x1, y1], [x2, y2]]) { circle(x - 1.5, y, w * 0.9); fill(C); outline(1, '#3a3428'); circle(x + 1.5, y + 1, w * 0.9); fill(C); }
      }
      break;
    }
    case 'ashes':
      g.beginPath(); g.moveTo(4, 27); g.quadraticCurveTo(16, 8, 28, 27); g.closePath(); fill(C); outline(1.2, A);
      for (const [x, y] of [[12, 22], [18, 19], [20, 24]]) { circle(x, y, 1.5); fill(A); }
      break;
    case 'fish': case 'smallfish': case 'swordfish': case 'shark': {
      const s = l.shape === 'smallfish' ? 0.7 : 1;
      g.save(); g.translate(16, 16); g.scale(s, s);
      ell(-1, 0, 10, 5.5, -0.3); fill(C); outline();
      poly([8, -4, 14, -10, 13, 2]); fill(C); outline(1.2);
      if (l.shape === 'swordfish') line(-10, 3, -17, 6, 2, C);
      if (l.shape === 'shark') { poly([-2, -5, 2, -11, 4, -4]); fill(C); outline(1); }
      circle(-7, 0, 1.3); fill('#111');
      line(-3, -3, 4, -5, 1, A);
      g.restore();
      if (l.shape === 'smallfish') { g.save(); g.translate(12, 24); g.scale(0.5, 0.5); ell(0, 0, 10, 5.5, -0.3); fill(C); outline(2); g.restore(); }
      break;
    }
    case 'shrimp':
      g.beginPath(); g.arc(16, 16, 9, Math.PI * 0.2, Math.PI * 1.6); g.lineWidth = 6; g.strokeStyle = '#1a120a'; g.stroke(); g.lineWidth = 4.5; g.strokeStyle = C; g.stroke();
      line(22, 10, 28, 5, 1, A); line(22, 10, 28, 9, 1, A);
      break;
    case 'lobster':
      ell(16, 18, 5, 9); fill(C); outline(); circle(9, 7, 4); fill(C); outline(1.2); circle(23, 7, 4); fill(C); outline(1.2); line(12, 10, 10, 9, 2, C); line(20, 10, 22, 9, 2, C);
      break;
    case 'meat':
      ell(14, 18, 10, 8, -0.4); fill(C); outline(); line(20, 13, 27, 5, 3.5, '#ece6d4'); circle(27, 5, 2.5); fill('#ece6d4');
      break;
    case 'bread':
      g.beginPath(); g.moveTo(4, 24); g.quadraticCurveTo(4, 8, 16, 8); g.quadraticCurveTo(28, 8, 28, 24); g.closePath(); fill(C); outline(); line(10, 14, 12, 20, 1.5, A); line(16, 12, 17, 20, 1.5, A); line(22, 14, 21, 20, 1.5, A);
      break;
    case 'hide':
      poly([6, 8, 12, 5, 20, 5, 26, 8, 24, 16, 28, 26, 18, 24, 14, 28, 4, 26, 8, 16]); fill(C); outline(); ell(15, 15, 4, 3); fill(A);
      break;
    case 'leather':
      g.beginPath(); g.rect(6, 8, 20, 16); fill(C); outline(); line(8, 12, 24, 12, 1, A); line(8, 20, 24, 20, 1, A);
      break;
    case 'feather':
      g.beginPath(); g.moveTo(6, 27); g.quadraticCurveTo(8, 8, 26, 4); g.quadraticCurveTo(22, 22, 6, 27); fill(C); outline(1.2, A); line(6, 27, 24, 6, 1, A);
      break;
    case 'bait':
      for (const y of [10, 18]) { g.beginPath(); g.moveTo(6, y); g.bezierCurveTo(12, y - 6, 16, y + 6, 26, y); g.lineWidth = 3.5; g.strokeStyle = C; g.stroke(); }
      break;
    case 'studs':
      for (const [x, y] of [[10, 10], [22, 10], [16, 17], [10, 24], [22, 24]]) { circle(x, y, 3.5); fill(C); outline(1); }
      break;
    case 'hammer':
      handle(10, 28, 18, 12); g.beginPath(); g.rect(10, 5, 16, 8); fill(C); outline(1.2);
      break;
    case 'knife':
      poly([14, 18, 26, 5, 27, 7, 17, 20]); fill(C); outline(1.2); handle(7, 27, 14, 19);
      break;
    case 'chisel':
      handle(8, 26, 16, 17); poly([15, 16, 25, 6, 28, 9, 18, 19]); fill(C); outline(1.2);
      break;
    case 'needle':
      line(7, 26, 26, 6, 2, C); circle(24, 8, 1.5); fill('#333');
      break;
    case 'tinderbox':
      g.beginPath(); g.rect(6, 12, 20, 14); fill(C); outline(); g.beginPath(); g.rect(6, 10, 20, 5); fill(mix(C, '#000000', 0.3)); outline(1); circle(16, 20, 3); fill(A);
      break;
    case 'rod':
      line(5, 28, 26, 4, 2.5, C); g.beginPath(); g.moveTo(26, 4); g.quadraticCurveTo(30, 16, 25, 24); g.lineWidth = 0.8; g.strokeStyle = A; g.stroke();
      if (l.mark === 'fly') { poly([24, 24, 27, 22, 26, 27]); fill('#e04040'); }
      circle(10, 22, 2.5); fill('#444');
      break;
    case 'net':
      handle(4, 29, 14, 17); circle(20, 11, 9); fill('#00000030'); outline(2, A);
      for (let i = 13; i <= 27; i += 4) { line(i, 4, i, 18, 0.8, C); line(12, i - 9, 28, i - 9, 0.8, C); }
      break;
    case 'harpoon':
      handle(5, 28, 20, 12); poly([19, 13, 27, 4, 23, 14]); fill(C); outline(1.2); poly([19, 13, 27, 4, 18, 9]); fill(C); outline(1.2);
      break;
    case 'pot':
      g.beginPath(); g.rect(5, 10, 22, 16); fill(C); outline(); for (let x = 9; x < 27; x += 4) line(x, 10, x, 26, 1, A); g.beginPath(); g.arc(16, 10, 8, Math.PI, 0); outline(1.5, A);
      break;
    case 'lamp':
      g.beginPath(); g.moveTo(4, 20); g.quadraticCurveTo(16, 28, 26, 18); g.lineTo(29, 12); g.lineTo(22, 16); g.quadraticCurveTo(12, 12, 4, 20); fill(C); outline(); ell(10, 18, 2, 4); fill(A);
      break;
    case 'tool':
      handle(8, 26, 18, 14); circle(20, 11, 5); fill(C); outline();
      break;
    default:
      // An unknown kind: a tied sack in the item's own colour.
      g.beginPath(); g.moveTo(16, 8); g.quadraticCurveTo(4, 14, 7, 26); g.lineTo(25, 26); g.quadraticCurveTo(28, 14, 16, 8); fill(C); outline();
      poly([12, 4, 20, 4, 17, 9, 15, 9]); fill(A);
  }
  if (l.mark === 'burnt') { for (const [x, y] of [[11, 14], [19, 18], [15, 21]]) { circle(x, y, 1.6); fill('#000'); } }
  g.restore();
}

/** Pixels an item picture is drawn at (twice the largest size shown, for sharp high-DPI screens). */
export const ICON_PX = 64;

/** @type {Map<string, HTMLCanvasElement>} one drawing per item id, drawn on first use */
const cache = new Map();

/**
 * The picture of an item (drawn once per id and kept).
 * @param {string} itemId
 * @param {any} [def] the item's definition (content.js), when known
 * @returns {HTMLCanvasElement}
 */
export function itemImage(itemId, def) {
  let c = cache.get(itemId);
  if (!c) {
    c = document.createElement('canvas');
    c.width = c.height = ICON_PX;
    drawItem(/** @type {CanvasRenderingContext2D} */ (c.getContext('2d')), itemLook(itemId, def), ICON_PX);
    cache.set(itemId, c);
  }
  return c;
}
