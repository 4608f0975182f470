// The world map (M, or the Map button by the minimap): the whole generated island from GET
// /api/map's `overview` (one character a block of tiles), the towns labelled with their size, their
// stations, and where the player is. A world without an overview (the bundled one) is drawn from
// the map's areas: each its ground's colour, named, a PvP area outlined in red. Drawn once into an
// image when first opened; the player's marker is drawn over it each time.

import { HEIGHT_ALPHABET, groundColours, STATION_ICONS } from './terrain.js';
import { drawPoiIcon, roofColours } from './place.js';

/** The ground index of every block of an overview, rows from the south.
 * @param {{width:number, rows:string}} overview */
export function decodeOverview(overview) {
  const out = new Uint8Array(overview.width * overview.width);
  for (let i = 0; i < out.length && i < overview.rows.length; i++) {
    const v = HEIGHT_ALPHABET.indexOf(overview.rows[i]);
    out[i] = v < 0 ? 0 : v;
  }
  return out;
}

/** Where a tile lands on a map `side` pixels wide showing the overview.
 * @param {{block:number, width:number, min:{x:number,z:number}}} overview
 * @param {number} side @param {number} x @param {number} z */
export function toMap(overview, side, x, z) {
  const tiles = overview.block * overview.width;
  return { mx: ((x - overview.min.x) / tiles) * side, my: ((z - overview.min.z) / tiles) * side };
}

/**
 * The square frame of a map without an overview: the areas' bounds (else the map's), in the
 * overview's terms (`block` 1), so `toMap` places tiles on it.
 * @param {{min:{x:number,z:number}, max:{x:number,z:number}, areas?: {min:{x:number,z:number}, max:{x:number,z:number}}[]}} s
 */
export function areaFrame(s) {
  const boxes = s.areas?.length ? s.areas : [s];
  const minX = Math.min(...boxes.map((a) => a.min.x)), maxX = Math.max(...boxes.map((a) => a.max.x));
  const minZ = Math.min(...boxes.map((a) => a.min.z)), maxZ = Math.max(...boxes.map((a) => a.max.z));
  const side = Math.max(maxX - minX, maxZ - minZ) + 1;
  // A margin of water around, the shorter side centred.
  const pad = Math.ceil(side * 0.04);
  const width = side + 2 * pad;
  return { block: 1, width, min: { x: Math.floor((minX + maxX - width) / 2) + 1, z: Math.floor((minZ + maxZ - width) / 2) + 1 } };
}

/** The label of a town on the map: its name, and its size in brackets unless it is a town.
 * @param {{name:string, size:string}} town */
export function townLabel(town) {
  return town.size === 'town' ? town.name : `${town.name} (${town.size})`;
}

export class WorldMap {
  /** @param {import('./terrain.js').Terrain} terrain */
  constructor(terrain) {
    this.terrain = terrain;
    /** @type {HTMLCanvasElement|null} */
    this.image = null;
    this.canvas = /** @type {HTMLCanvasElement} */ (document.createElement('canvas'));
    this.canvas.className = 'worldmap';
    this.canvas.setAttribute('aria-label', 'World map');
    Object.assign(this.canvas.style, {
      position: 'fixed', left: '50%', top: '50%', transform: 'translate(-50%, -50%)',
      width: 'min(86vmin, 900px)', height: 'min(86vmin, 900px)', zIndex: '40',
      border: '3px solid #c9a45c', borderRadius: '6px', background: '#10202e', display: 'none',
    });
    this.canvas.addEventListener('click', () => this.close());
    document.body.appendChild(this.canvas);
    /** How many chunks the island image was drawn with (a world without an overview is drawn
     * from its chunks, loaded when the map first opens). */
    this.drawnChunks = -1;
    /** @type {{x:number, z:number}|null} */
    this.player = null;
    terrain.onLoaded = ((prev) => () => { prev(); if (this.open && this.player) this.draw(this.player); })(terrain.onLoaded);
  }

  get open() {
    return this.canvas.style.display !== 'none';
  }

  close() {
    this.canvas.style.display = 'none';
  }

  /** Opens or closes the map; `player` is the tile to mark. @param {{x:number, z:number}} player */
  toggle(player) {
    if (this.open) return this.close();
    this.canvas.style.display = 'block';
    // A world of hand-placed areas is small (15 chunks for the bundled one): all of it is loaded
    // for the map, so the lake, the paths and the buildings show.
    const sm = this.terrain.summary;
    if (sm && !sm.overview) {
      const n = (sm.chunks.maxX - sm.chunks.minX + 1) * (sm.chunks.maxZ - sm.chunks.minZ + 1);
      if (n <= 64) for (let cz = sm.chunks.minZ; cz <= sm.chunks.maxZ; cz++) for (let cx = sm.chunks.minX; cx <= sm.chunks.maxX; cx++) this.terrain.want(cx, cz);
    }
    this.draw(player);
  }

  /** The island image, made once per map summary. @param {number} side */
  island(side) {
    const s = this.terrain.summary;
    if (this.image && this.image.width === side && (s?.overview || this.drawnChunks === this.terrain.chunks.size)) return this.image;
    this.drawnChunks = this.terrain.chunks.size;
    const img = document.createElement('canvas');
    img.width = img.height = side;
    const g = /** @type {CanvasRenderingContext2D} */ (img.getContext('2d'));
    g.fillStyle = groundColours('water')[0];
    g.fillRect(0, 0, side, side);
    const o = s?.overview;
    if (o) {
      const cells = decodeOverview(o);
      const px = side / o.width;
      for (let bz = 0; bz < o.width; bz++) {
        for (let bx = 0; bx < o.width; bx++) {
          const name = s.grounds[cells[bz * o.width + bx]] ?? 'void';
          g.fillStyle = groundColours(name)[0];
          g.fillRect(Math.floor(bx * px), Math.floor(bz * px), Math.ceil(px), Math.ceil(px));
        }
      }
      for (const town of s.towns ?? []) {
        for (const st of town.stations) {
          const { mx, my } = toMap(o, side, st.tile.x, st.tile.z);
          g.fillStyle = (STATION_ICONS[st.station] ?? ['?', '#fff'])[1];
          g.fillRect(mx - 2, my - 2, 4, 4);
        }
        const { mx, my } = toMap(o, side, town.centre.x, town.centre.z);
        // Sized to the map (16 and 13 px on a 900 px map; a phone's is a third of that) and kept
        // inside it: a name at the island's edge was cut by the frame.
        const px = Math.max(town.size === 'town' ? 10 : 9, Math.round(side / (town.size === 'town' ? 56 : 70)));
        g.font = `700 ${px}px system-ui, sans-serif`;
        g.textAlign = 'center';
        g.lineWidth = Math.max(2, px / 4);
        g.lineJoin = 'round';
        g.strokeStyle = 'rgba(0,0,0,0.7)';
        g.fillStyle = '#fff6d5';
        const label = townLabel(town);
        const half = g.measureText(label).width / 2 + 3;
        const lx = Math.min(Math.max(mx, half), side - half);
        g.strokeText(label, lx, my - px * 0.7);
        g.fillText(label, lx, my - px * 0.7);
      }
    } else if (s?.areas?.length) {
      const f = areaFrame(s);
      const labels = [];
      for (const a of s.areas) {
        const p = toMap(f, side, a.min.x, a.min.z), q = toMap(f, side, a.max.x + 1, a.max.z + 1);
        g.fillStyle = groundColours(a.ground)[0];
        g.fillRect(p.mx, p.my, q.mx - p.mx, q.my - p.my);
        g.strokeStyle = a.pvp ? '#ff4d3d' : 'rgba(0,0,0,0.45)';
        g.lineWidth = a.pvp ? 3 : 1.5;
        g.strokeRect(p.mx, p.my, q.mx - p.mx, q.my - p.my);
        // Near the area's top (the spawn, and so the player's marker, is often its middle); a
        // small area is named above its box.
        const tall = q.my - p.my > side / 8;
        // A name over a small area's box may be wider than the box.
        labels.push({ a, x: (p.mx + q.mx) / 2, y: tall ? p.my + Math.max(20, side / 30) : p.my - 6, w: tall ? q.mx - p.mx : Math.max(q.mx - p.mx, side / 4) });
      }
      // The chunks as the world draws them (water, paths, walls), then the roofs.
      for (const { data, image } of this.terrain.chunks.values()) {
        const p = toMap(f, side, data.x, data.z), q = toMap(f, side, data.x + data.size, data.z + data.size);
        g.imageSmoothingEnabled = true;
        g.drawImage(image, p.mx, p.my, q.mx - p.mx, q.my - p.my);
      }
      for (const a of s.areas) {
        if (!a.pvp) continue;
        const p = toMap(f, side, a.min.x, a.min.z), q = toMap(f, side, a.max.x + 1, a.max.z + 1);
        g.strokeStyle = '#ff4d3d';
        g.lineWidth = 3;
        g.strokeRect(p.mx, p.my, q.mx - p.mx, q.my - p.my);
      }
      for (const b of s.buildings ?? []) {
        if (b.roof === 'none') continue;
        for (const [a, c] of b.tiles) {
          const p = toMap(f, side, a.x, a.z), q = toMap(f, side, c.x + 1, c.z + 1);
          g.fillStyle = roofColours(b.roof)[1];
          g.fillRect(p.mx, p.my, q.mx - p.mx, q.my - p.my);
          g.strokeStyle = 'rgba(0,0,0,0.6)';
          g.lineWidth = 1;
          g.strokeRect(p.mx, p.my, q.mx - p.mx, q.my - p.my);
        }
      }
      g.textAlign = 'center';
      g.lineWidth = 4;
      g.lineJoin = 'round';
      g.strokeStyle = 'rgba(0,0,0,0.7)';
      for (const { a, x, y, w } of labels) {
        // As large as reads well, smaller where the area is narrow (neighbours' names never touch).
        let px = Math.max(12, Math.round(side / 40));
        do g.font = `700 ${px}px system-ui, sans-serif`;
        while (g.measureText(a.name).width > w - 6 && --px > 8);
        g.fillStyle = a.pvp ? '#ff8f80' : '#fff6d5';
        g.strokeText(a.name, x, y);
        g.fillText(a.name, x, y);
        const note = a.pvp ? 'PvP' : a.safeZone ? 'safe' : '';
        if (note) {
          g.font = `600 ${Math.max(10, Math.round(side / 60))}px system-ui, sans-serif`;
          g.strokeText(note, x, y + Math.max(14, side / 36));
          g.fillText(note, x, y + Math.max(14, side / 36));
        }
      }
    } else {
      g.fillStyle = '#fff6d5';
      g.font = '600 16px system-ui, sans-serif';
      g.textAlign = 'center';
      g.fillText('No map of this world', side / 2, side / 2);
    }
    const frame = o ?? (s?.areas?.length ? areaFrame(s) : null);
    if (frame) {
      // The points of interest, each its icon; named ones labelled beside where the name has room
      // (a town's many names would cover each other: those are read on hover in the world).
      const r = Math.max(6, Math.round(side / 90));
      const named = new Set();
      const px = Math.max(10, Math.round(side / 75));
      /** @type {{x: number, y: number, w: number, h: number}[]} */
      const taken = [];
      const free = (x, y, w, h) => !taken.some((t) => x < t.x + t.w && t.x < x + w && y < t.y + t.h && t.y < y + h);
      for (const p of s.pois ?? []) {
        const { mx, my } = toMap(frame, side, p.tile.x + 0.5, p.tile.z + 0.5);
        drawPoiIcon(g, p.kind, mx, my, r);
        taken.push({ x: mx - r, y: my - r, w: 2 * r, h: 2 * r });
      }
      g.font = `600 ${px}px system-ui, sans-serif`;
      g.textAlign = 'left';
      g.lineWidth = 3;
      g.lineJoin = 'round';
      for (const p of s.pois ?? []) {
        if (!p.name || named.has(p.name)) continue;
        const { mx, my } = toMap(frame, side, p.tile.x + 0.5, p.tile.z + 0.5);
        const w = g.measureText(p.name).width;
        const tx = Math.min(mx + r + 3, side - w - 2);
        if (!free(tx, my - px / 2, w, px)) continue;
        named.add(p.name);
        taken.push({ x: tx, y: my - px / 2, w, h: px });
        g.strokeStyle = 'rgba(0,0,0,0.75)';
        g.fillStyle = '#fff6d5';
        g.strokeText(p.name, tx, my + px / 2 - 2);
        g.fillText(p.name, tx, my + px / 2 - 2);
      }
    }
    this.image = img;
    return img;
  }

  /** @param {{x:number, z:number}} player */
  draw(player) {
    this.player = player;
    const side = Math.min(900, Math.round(this.canvas.getBoundingClientRect().width * (window.devicePixelRatio || 1))) || 600;
    this.canvas.width = this.canvas.height = side;
    const g = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    g.drawImage(this.island(side), 0, 0);
    const s = this.terrain.summary;
    const o = s?.overview ?? (s?.areas?.length ? areaFrame(s) : null);
    if (o && player) {
      const { mx, my } = toMap(o, side, player.x, player.z);
      g.fillStyle = '#ffffff';
      g.strokeStyle = '#000000';
      g.lineWidth = 2;
      g.beginPath();
      g.arc(mx, my, 6, 0, Math.PI * 2);
      g.fill();
      g.stroke();
      // "You are here", kept inside the map.
      g.font = `700 ${Math.max(12, Math.round(side / 60))}px system-ui, sans-serif`;
      g.textAlign = 'center';
      const label = 'You are here';
      const half = g.measureText(label).width / 2 + 4;
      const lx = Math.min(Math.max(mx, half), side - half);
      const ly = my > 40 ? my - 14 : my + 26;
      // On a dark plate: a town's icons lie all around the player.
      const fs = Math.max(12, Math.round(side / 60));
      g.fillStyle = 'rgba(10,8,5,0.85)';
      g.fillRect(lx - half, ly - fs, half * 2, fs + 6);
      g.strokeStyle = '#ffd83a';
      g.lineWidth = 1;
      g.strokeRect(lx - half + 0.5, ly - fs + 0.5, half * 2 - 1, fs + 5);
      g.fillStyle = '#ffd83a';
      g.fillText(label, lx, ly);
    }
  }
}
