// The world as a place (CONTRACT §13): what is painted into the cached chunk images (laid grounds,
// walls on tile edges, props) and what the renderer draws over the entities (roofs that fade when
// the player is inside, doors open or shut, quest markers, overhead chat), plus the map icons of
// each point-of-interest kind. Pure helpers are exported for the unit tests.

/** Pixels per tile in a cached chunk image (terrain.js's PX). */
const PX = 16;

/** Icons of the points of interest (GET /api/map `pois`), on the minimap and the world map:
 * [glyph, colour, name]. */
export const POI_ICONS = /** @type {Record<string, [string, string, string]>} */ ({
  bank: ['$', '#f2c94c', 'Bank'],
  shop: ['S', '#6fcf97', 'Shop'],
  furnace: ['F', '#f2994a', 'Furnace'],
  anvil: ['A', '#bdbdbd', 'Anvil'],
  range: ['R', '#eb5757', 'Range'],
  altar: ['+', '#ffffff', 'Altar'],
  runeAltar: ['*', '#bb86fc', 'Rune altar'],
  fishing: ['~', '#56ccf2', 'Fishing'],
  tanner: ['T', '#c8a878', 'Tanner'],
  quest: ['!', '#ffe066', 'Quest'],
  agility: ['>', '#9be15d', 'Agility'],
  arena: ['X', '#ff8f80', 'Arena'],
  spawn: ['o', '#ffffff', 'Spawn'],
  teleport: ['@', '#7fd3ff', 'Teleport'],
});

/** The icon of a POI kind (a grey dot for a kind this client does not know). @param {string} kind */
export function poiIcon(kind) {
  return POI_ICONS[kind] ?? ['•', '#cccccc', kind];
}

/** Draws a map icon: a dark disc with a coloured ring and glyph. @param {CanvasRenderingContext2D} g
 * @param {string} kind @param {number} x @param {number} y @param {number} r radius */
export function drawPoiIcon(g, kind, x, y, r) {
  const [glyph, colour] = poiIcon(kind);
  g.beginPath();
  g.arc(x, y, r, 0, Math.PI * 2);
  g.fillStyle = 'rgba(15,12,8,0.85)';
  g.fill();
  g.lineWidth = Math.max(1, r / 4);
  g.strokeStyle = colour;
  g.stroke();
  g.fillStyle = colour;
  g.font = `700 ${Math.round(r * 1.4)}px system-ui, sans-serif`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(glyph, x, y + r * 0.08);
  g.textBaseline = 'alphabetic';
}

/** The wall bits of a tile side (CONTRACT §13). */
export const NORTH = 1, EAST = 2, SOUTH = 4, WEST = 8;

/** A laid ground's look: plank lines for piers, bridges and floors, cobbles for paths. */
const PLANKS = { pier: '#8d6b43', bridge: '#7f5e3a', floor: '#8a6845' };

/**
 * Paints a laid ground's detail over a tile already filled with its colour: planks (pier, bridge,
 * floor), cobbles (path), grains (sand, dirt). `wetAt(dx, dz)` says whether a neighbour is water.
 * @param {CanvasRenderingContext2D} g @param {string} name @param {number} x @param {number} z tile in the chunk
 * @param {number} r a stable random 0–1 of the tile @param {(dx: number, dz: number) => boolean} wetAt
 */
export function paintGroundDetail(g, name, x, z, r, wetAt) {
  const X = x * PX, Z = z * PX;
  if (name in PLANKS) {
    // Boards run across a pier (east–west), gaps between them darker; a floor's boards are offset.
    g.fillStyle = 'rgba(40,24,10,0.45)';
    for (let i = 0; i < PX; i += 4) g.fillRect(X, Z + i, PX, 1);
    g.fillStyle = 'rgba(255,230,190,0.10)';
    g.fillRect(X + Math.floor(r * 10), Z + 1, 5, 2);
    if (name !== 'floor') {
      // Posts where the pier or bridge meets the water.
      g.fillStyle = '#4a3320';
      if (wetAt(-1, 0)) { g.fillRect(X, Z, 3, 3); g.fillRect(X, Z + PX - 3, 3, 3); }
      if (wetAt(1, 0)) { g.fillRect(X + PX - 3, Z, 3, 3); g.fillRect(X + PX - 3, Z + PX - 3, 3, 3); }
      if (wetAt(0, 1)) { g.fillStyle = 'rgba(20,40,60,0.5)'; g.fillRect(X, Z + PX - 2, PX, 2); }
    }
  } else if (name === 'path') {
    g.fillStyle = 'rgba(60,45,30,0.28)';
    g.fillRect(X + Math.floor(r * 8), Z + 3, 5, 4);
    g.fillRect(X + 2 + Math.floor(r * 5), Z + 10, 6, 4);
    g.fillStyle = 'rgba(255,245,220,0.10)';
    g.fillRect(X + 9, Z + Math.floor(r * 10), 4, 3);
  } else if (name === 'sand' || name === 'dirt') {
    g.fillStyle = name === 'sand' ? 'rgba(120,95,50,0.25)' : 'rgba(40,25,10,0.3)';
    g.fillRect(X + Math.floor(r * 13), Z + Math.floor(r * 7) + 3, 2, 2);
    g.fillRect(X + Math.floor(r * 5) + 6, Z + 11, 1, 1);
  }
}

/**
 * Paints the walls of a chunk on its tile edges: stone where a side is a building's floor, a
 * wooden fence with posts elsewhere. `walls` is the chunk's hex string; `floorAt(x, z)` whether a
 * tile (chunk coordinates, may be outside) is a building floor.
 * @param {CanvasRenderingContext2D} g @param {string} walls @param {number} size
 * @param {(x: number, z: number) => boolean} floorAt
 */
export function paintWalls(g, walls, size, floorAt) {
  if (!walls) return;
  for (let i = 0; i < walls.length; i++) {
    const bits = parseInt(walls[i], 16);
    if (!bits) continue;
    const x = i % size, z = Math.floor(i / size);
    for (const [bit, dx, dz] of [[NORTH, 0, -1], [EAST, 1, 0], [SOUTH, 0, 1], [WEST, -1, 0]]) {
      if (!(bits & bit)) continue;
      const stone = floorAt(x, z) || floorAt(x + dx, z + dz);
      paintEdge(g, x, z, bit, stone);
    }
  }
}

/** One wall segment on a side of a tile. @param {CanvasRenderingContext2D} g @param {number} x
 * @param {number} z @param {number} bit @param {boolean} stone */
function paintEdge(g, x, z, bit, stone) {
  const t = stone ? 5 : 3; // thickness in chunk pixels
  const X = x * PX, Z = z * PX;
  const along = bit === NORTH || bit === SOUTH;
  const ex = bit === EAST ? X + PX - t / 2 : bit === WEST ? X - t / 2 : X;
  const ez = bit === SOUTH ? Z + PX - t / 2 : bit === NORTH ? Z - t / 2 : Z;
  const w = along ? PX : t, hgt = along ? t : PX;
  if (stone) {
    g.fillStyle = '#5b534a';
    g.fillRect(ex, ez, w, hgt);
    g.fillStyle = '#8b8378';
    g.fillRect(ex, ez, along ? w : t - 2, along ? t - 2 : hgt);
    // Mortar joints.
    g.fillStyle = 'rgba(30,25,20,0.5)';
    if (along) { g.fillRect(ex + 5, ez, 1, t); g.fillRect(ex + 12, ez, 1, t); } else { g.fillRect(ex, ez + 5, t, 1); g.fillRect(ex, ez + 12, t, 1); }
  } else {
    g.fillStyle = '#6b4a2a';
    if (along) { g.fillRect(ex, ez + 0.5, w, 1); g.fillRect(ex, ez + 2, w, 1); } else { g.fillRect(ex + 0.5, ez, 1, hgt); g.fillRect(ex + 2, ez, 1, hgt); }
    g.fillStyle = '#4a3018';
    g.fillRect(ex - (along ? 0 : 0.5), ez - (along ? 0.5 : 0), 4, 4);
  }
}

/** Paints a prop (GET /api/map `props`) at a tile of a chunk image, centred on the tile.
 * @param {CanvasRenderingContext2D} g @param {string} kind @param {number} x @param {number} z chunk pixel of the tile's north-west corner */
export function paintProp(g, kind, x, z) {
  const cx = x + PX / 2, cz = z + PX / 2;
  const disc = (px, pz, r, c) => { g.beginPath(); g.arc(px, pz, r, 0, Math.PI * 2); g.fillStyle = c; g.fill(); };
  const shadow = () => { g.beginPath(); g.ellipse(cx + 1, cz + 5, 6, 2.2, 0, 0, Math.PI * 2); g.fillStyle = 'rgba(0,0,0,0.3)'; g.fill(); };
  switch (kind) {
    case 'barrel':
      shadow();
      g.fillStyle = '#7a5230'; g.fillRect(cx - 5, cz - 7, 10, 12);
      g.fillStyle = '#3a2a1a'; g.fillRect(cx - 5, cz - 5, 10, 1); g.fillRect(cx - 5, cz + 2, 10, 1);
      g.beginPath(); g.ellipse(cx, cz - 7, 5, 2, 0, 0, Math.PI * 2); g.fillStyle = '#9a6a40'; g.fill();
      return;
    case 'crate':
      shadow();
      g.fillStyle = '#a07a45'; g.fillRect(cx - 6, cz - 6, 12, 11);
      g.strokeStyle = '#5a3f1f'; g.lineWidth = 1; g.strokeRect(cx - 5.5, cz - 5.5, 11, 10);
      g.beginPath(); g.moveTo(cx - 5, cz - 5); g.lineTo(cx + 5, cz + 4); g.stroke();
      return;
    case 'lamp':
      shadow();
      g.fillStyle = '#2a2a2e'; g.fillRect(cx - 1, cz - 12, 2, 17);
      disc(cx, cz - 13, 4, 'rgba(255,220,120,0.35)');
      disc(cx, cz - 13, 2.2, '#ffe9a0');
      return;
    case 'signpost':
      shadow();
      g.fillStyle = '#5a3f1f'; g.fillRect(cx - 1, cz - 10, 2, 15);
      g.fillStyle = '#b08a55'; g.fillRect(cx - 7, cz - 11, 14, 5);
      g.fillStyle = '#3a2a1a'; g.fillRect(cx - 5, cz - 9, 9, 1);
      return;
    case 'stall':
      g.fillStyle = '#7a5230'; g.fillRect(x + 1, cz - 2, PX - 2, 7);
      for (let i = 0; i < 4; i++) { g.fillStyle = i % 2 ? '#f2efe6' : '#c0392b'; g.fillRect(x + i * 4, z - 2, 4, 7); }
      g.fillStyle = '#e0b040'; g.fillRect(cx - 4, cz - 1, 3, 2); g.fillStyle = '#6fae3f'; g.fillRect(cx + 1, cz - 1, 3, 2);
      return;
    case 'flowers':
      for (const [dx, dz, c] of /** @type {[number, number, string][]} */ ([[-4, -3, '#ff6fa8'], [3, -4, '#ffd24d'], [-1, 2, '#b48cff'], [4, 3, '#ff6f6f'], [-5, 4, '#ffffff']])) {
        g.fillStyle = '#3f7a2e'; g.fillRect(cx + dx, cz + dz + 1, 1, 2);
        disc(cx + dx + 0.5, cz + dz, 1.6, c);
      }
      return;
    case 'rug':
      g.fillStyle = '#8a2a2a'; g.fillRect(x + 2, z + 3, PX - 4, PX - 6);
      g.strokeStyle = '#e0b040'; g.lineWidth = 1; g.strokeRect(x + 3.5, z + 4.5, PX - 7, PX - 9);
      return;
    case 'well_cover': case 'well':
      disc(cx, cz, 6, '#6a6a70'); disc(cx, cz, 4, kind === 'well' ? '#1a3a5a' : '#5a3f1f');
      return;
    case 'fence':
      g.fillStyle = '#6b4a2a'; g.fillRect(x, cz - 3, PX, 1.5); g.fillRect(x, cz, PX, 1.5);
      g.fillStyle = '#4a3018'; g.fillRect(cx - 1.5, cz - 5, 3, 8);
      return;
    default:
      shadow();
      g.fillStyle = '#8a7a6a'; g.fillRect(cx - 4, cz - 5, 8, 9);
  }
}

/** Roof colours by style: [slope lit, slope shaded, ridge]. */
const ROOFS = /** @type {Record<string, [string, string, string]>} */ ({
  thatch: ['#c9a24e', '#a8843a', '#8a6a2a'],
  slate: ['#5d6b78', '#4a5662', '#38424c'],
  tile: ['#b5553a', '#96452f', '#6e3222'],
});

/** The roof colours of a style (thatch for an unknown one). @param {string} style */
export function roofColours(style) {
  return ROOFS[style] ?? ROOFS.thatch;
}

/**
 * A roof's image, `w` × `h` tiles at `px` pixels a tile: two slopes meeting at a ridge along the
 * longer side, with courses (thatch lines, slates, tiles). Drawn once per building and size.
 * @param {string} style @param {number} w @param {number} h @param {number} px
 */
export function roofImage(style, w, h, px) {
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(w * px));
  c.height = Math.max(1, Math.round(h * px));
  const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
  const [lit, dark, ridge] = roofColours(style);
  const W = c.width, H = c.height;
  const across = W >= H; // the ridge runs east–west
  g.fillStyle = lit;
  if (across) g.fillRect(0, 0, W, H / 2); else g.fillRect(0, 0, W / 2, H);
  g.fillStyle = dark;
  if (across) g.fillRect(0, H / 2, W, H - H / 2); else g.fillRect(W / 2, 0, W - W / 2, H);
  // Courses parallel to the ridge.
  const step = Math.max(3, px / 4);
  g.fillStyle = 'rgba(0,0,0,0.16)';
  for (let i = step; i < (across ? H : W); i += step) {
    if (across) g.fillRect(0, i, W, 1); else g.fillRect(i, 0, 1, H);
  }
  if (style === 'slate' || style === 'tile') {
    g.fillStyle = 'rgba(0,0,0,0.12)';
    for (let i = 0, row = 0; i < (across ? H : W); i += step, row++) {
      for (let j = (row % 2) * step / 2; j < (across ? W : H); j += step) {
        if (across) g.fillRect(j, i, 1, step); else g.fillRect(i, j, step, 1);
      }
    }
  }
  g.fillStyle = ridge;
  if (across) g.fillRect(0, H / 2 - 2, W, 4); else g.fillRect(W / 2 - 2, 0, 4, H);
  g.strokeStyle = 'rgba(0,0,0,0.5)';
  g.lineWidth = 2;
  g.strokeRect(1, 1, W - 2, H - 2);
  return c;
}

/** Whether a tile lies on a building's floor (inside its walls).
 * @param {{tiles: {x:number,z:number}[][]}} b @param {number} x @param {number} z */
export function insideBuilding(b, x, z) {
  return b.tiles.some(([a, c]) => x >= a.x && x <= c.x && z >= a.z && z <= c.z);
}

/** The next opacity of a roof moving towards `target` at a steady pace (a full fade in 250 ms).
 * @param {number} alpha @param {number} target @param {number} dtMs */
export function fadeToward(alpha, target, dtMs) {
  const step = Math.min(1, Math.max(0, dtMs) / 250);
  return alpha < target ? Math.min(target, alpha + step) : Math.max(target, alpha - step);
}

/**
 * A door or gate on the side of its tile (`side` a wall bit): shut, a board along the edge; open,
 * swung into the tile from its hinge.
 * @param {CanvasRenderingContext2D} g @param {number} x @param {number} y the tile's centre on screen
 * @param {number} T tile size @param {number} side @param {boolean} open @param {boolean} gate
 */
export function drawDoor(g, x, y, T, side, open, gate) {
  const h = T / 2;
  // The edge's two ends, hinge first.
  const ends = {
    [NORTH]: [x - h, y - h, x + h, y - h],
    [SOUTH]: [x - h, y + h, x + h, y + h],
    [WEST]: [x - h, y - h, x - h, y + h],
    [EAST]: [x + h, y - h, x + h, y + h],
  }[side] ?? [x - h, y + h, x + h, y + h];
  const [hx, hy, fx, fy] = ends;
  let [tx, ty] = [fx, fy];
  if (open) {
    // Swung a quarter turn into the tile from its hinge.
    if (side === NORTH) [tx, ty] = [hx, hy + T];
    else if (side === SOUTH) [tx, ty] = [hx, hy - T];
    else if (side === WEST) [tx, ty] = [hx + T, hy];
    else [tx, ty] = [hx - T, hy];
    tx = hx + (tx - hx) * 0.9; ty = hy + (ty - hy) * 0.9;
  }
  g.lineCap = 'butt';
  if (gate) {
    g.strokeStyle = '#4a3018';
    g.lineWidth = Math.max(2, T * 0.1);
    g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke();
    g.strokeStyle = '#8a6238';
    g.lineWidth = Math.max(1, T * 0.05);
    g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke();
  } else {
    g.strokeStyle = '#3a2410';
    g.lineWidth = Math.max(3, T * 0.24);
    g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke();
    g.strokeStyle = open ? '#8a5a30' : '#a0693a';
    g.lineWidth = Math.max(2, T * 0.16);
    g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke();
  }
  // The hinge post.
  g.fillStyle = '#2a1a0a';
  g.fillRect(hx - T * 0.07, hy - T * 0.07, T * 0.14, T * 0.14);
}

/** The quest marker's glyph and colour (CONTRACT §13): `!` a quest to start, `?` one to hand in
 * (yellow), grey `?` one under way with this NPC; null for none.
 * @param {string|undefined} quest */
export function questMarker(quest) {
  if (quest === 'available') return { glyph: '!', colour: '#ffd83a' };
  if (quest === 'ready') return { glyph: '?', colour: '#ffd83a' };
  if (quest === 'active') return { glyph: '?', colour: '#b8b8b8' };
  return null;
}

/** Draws a quest marker above a head. @param {CanvasRenderingContext2D} g @param {string} glyph
 * @param {string} colour @param {number} x @param {number} y baseline @param {number} now */
export function drawQuestMarker(g, glyph, colour, x, y, now) {
  const bob = Math.sin(now / 300) * 2;
  g.font = '900 22px system-ui, sans-serif';
  g.textAlign = 'center';
  g.lineWidth = 4;
  g.lineJoin = 'round';
  g.strokeStyle = '#1a1208';
  g.strokeText(glyph, x, y + bob);
  g.fillStyle = colour;
  g.fillText(glyph, x, y + bob);
}

/** How long (ms) a line of overhead chat stays over its speaker. */
export const OVERHEAD_MS = 3000;
/** At most this many lines stack over one speaker (the newest lowest). */
export const OVERHEAD_LINES = 3;

/**
 * The lines to show over each speaker at `now`: the speaker's last lines younger than OVERHEAD_MS,
 * oldest first, at most OVERHEAD_LINES. Prunes expired lines from `said` in place.
 * @param {Map<string, {text: string, at: number}[]>} said by speaker id
 * @param {number} now
 */
export function overheadLines(said, now) {
  for (const [id, lines] of said) {
    const live = lines.filter((l) => now - l.at < OVERHEAD_MS).slice(-OVERHEAD_LINES);
    if (live.length) said.set(id, live);
    else said.delete(id);
  }
  return said;
}

/** A line cut to fit over a head (80 characters, an ellipsis past that). @param {string} text */
export function overheadText(text) {
  const t = text.trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}
