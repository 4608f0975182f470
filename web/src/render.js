// Draws the world on the main canvas each animation frame: terrain chunks (cached images), then
// entities sorted by row, then names, health bars, hit splats and the click marker. XP drops and
// level-ups are DOM overlays (ui/effects.js).

import { drawnPosition } from './state.js';
import { PX } from './terrain.js';

/** @typedef {import('./state.js').Entity} Entity */

const RESOURCE_COLOURS = /** @type {Record<string, string>} */ ({
  tree: '#2f6e2a', rock: '#8a8a8a', ore: '#8a8a8a', fishing: '#58a6d6', fire: '#ff8a1f',
  bank: '#8b5a2b', furnace: '#7a3b1e', anvil: '#4a4f57', range: '#6b4a33', altar: '#d8d2c0',
});

/** A stable colour per name so players are told apart. @param {string} s */
function hue(s) {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return `hsl(${Math.abs(h) % 360} 55% 52%)`;
}

export class Renderer {
  /** @param {HTMLCanvasElement} canvas @param {import('./terrain.js').Terrain} terrain */
  constructor(canvas, terrain) {
    this.canvas = canvas;
    this.g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
    this.terrain = terrain;
    /** Screen pixels per tile. */
    this.tile = 32;
    this.cam = { x: 0, z: 0 };
    this.dpr = 1;
    /** @type {{id: string, damage: number, at: number}[]} */
    this.splats = [];
    /** @type {{x: number, z: number, at: number, act: boolean}|null} */
    this.marker = null;
    /** @type {string|null} */
    this.hoverId = null;
    /** Frame durations (ms), newest last, for the benchmark. */
    this.frameMs = [];
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    this.dpr = Math.min(2, window.devicePixelRatio || 1);
    this.canvas.width = Math.max(1, Math.round(r.width * this.dpr));
    this.canvas.height = Math.max(1, Math.round(r.height * this.dpr));
    // Phones: a little closer in so entities stay tappable.
    this.tile = r.width < 700 ? 28 : 32;
  }

  /** Screen CSS pixel of a tile's centre. */
  toScreen(x, z) {
    const w = this.canvas.width / this.dpr, hh = this.canvas.height / this.dpr;
    return { sx: (x - this.cam.x) * this.tile + w / 2, sy: (z - this.cam.z) * this.tile + hh / 2 };
  }

  /** The tile under a CSS pixel of the canvas. */
  toTile(px, py) {
    const w = this.canvas.width / this.dpr, hh = this.canvas.height / this.dpr;
    return {
      x: Math.round((px - w / 2) / this.tile + this.cam.x),
      z: Math.round((py - hh / 2) / this.tile + this.cam.z),
    };
  }

  /**
   * @param {import('./state.js').World} world
   * @param {string} selfId
   * @param {number} now
   * @param {number} tickMs
   */
  draw(world, selfId, now, tickMs) {
    const t0 = performance.now();
    const g = this.g;
    const T = this.tile;
    const self = world.entities.get(selfId);
    if (self) {
      const p = drawnPosition(self, now, tickMs);
      this.cam = { x: p.x, z: p.z };
    }
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const W = this.canvas.width / this.dpr, H = this.canvas.height / this.dpr;
    g.fillStyle = '#1d3a52';
    g.fillRect(0, 0, W, H);

    // Terrain: the chunks overlapping the view.
    const s = this.terrain.summary;
    if (s) {
      const n = s.chunkTiles;
      const halfW = W / 2 / T + 1, halfH = H / 2 / T + 1;
      const cx0 = Math.floor((this.cam.x - halfW) / n), cx1 = Math.floor((this.cam.x + halfW) / n);
      const cz0 = Math.floor((this.cam.z - halfH) / n), cz1 = Math.floor((this.cam.z + halfH) / n);
      g.imageSmoothingEnabled = false;
      for (let cz = cz0; cz <= cz1; cz++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const c = this.terrain.chunks.get(`${cx},${cz}`);
          if (!c) {
            this.terrain.want(cx, cz);
            continue;
          }
          const { sx, sy } = this.toScreen(cx * n - 0.5, cz * n - 0.5);
          g.drawImage(c.image, sx, sy, n * T, n * T);
        }
      }
    }

    // Marker of the last click: yellow for a walk, red for an action.
    if (this.marker && now - this.marker.at < 900) {
      const { sx, sy } = this.toScreen(this.marker.x, this.marker.z);
      const k = 1 - (now - this.marker.at) / 900;
      g.strokeStyle = this.marker.act ? `rgba(255,70,50,${k})` : `rgba(255,230,80,${k})`;
      g.lineWidth = 2;
      g.beginPath();
      g.moveTo(sx - 6, sy - 6); g.lineTo(sx + 6, sy + 6);
      g.moveTo(sx + 6, sy - 6); g.lineTo(sx - 6, sy + 6);
      g.stroke();
    }

    // Entities in view, back to front (north first) so nearer ones overlap.
    /** @type {{e: Entity, x: number, y: number}[]} */
    const shown = [];
    const margin = 2 * T;
    for (const e of world.entities.values()) {
      const p = e.kind === 'player' || e.kind === 'npc' ? drawnPosition(e, now, tickMs) : e;
      const { sx, sy } = this.toScreen(p.x, p.z);
      if (sx < -margin || sy < -margin || sx > W + margin || sy > H + margin) continue;
      shown.push({ e, x: sx, y: sy });
    }
    const order = { resource: 0, groundItem: 1, npc: 2, player: 3 };
    shown.sort((a, b) => order[a.e.kind] - order[b.e.kind] || a.y - b.y);
    for (const { e, x, y } of shown) this.drawEntity(e, x, y, e.id === selfId, now);

    // Names and health bars on top of every body. With a crowd, names only near the cursor and
    // for oneself, so hundreds of labels do not turn into a grey smear (and fillText stays cheap).
    const crowd = shown.length > 60;
    g.textAlign = 'center';
    g.font = '600 11px system-ui, sans-serif';
    // Several on one tile stack their names instead of printing over each other.
    /** @type {Map<string, number>} */
    const labelsAt = new Map();
    for (const { e, x, y } of shown) {
      if (e.kind !== 'player' && e.kind !== 'npc') continue;
      const hurt = e.health !== undefined && e.maxHealth && e.health < e.maxHealth;
      if (hurt) {
        const f = Math.max(0, (e.health ?? 0) / (e.maxHealth || 1));
        g.fillStyle = '#b3261e';
        g.fillRect(x - 14, y - T * 0.75, 28, 4);
        g.fillStyle = '#3ec43e';
        g.fillRect(x - 14, y - T * 0.75, 28 * f, 4);
      }
      if (!crowd || e.id === selfId || e.id === this.hoverId) {
        const label = e.name ?? e.id;
        const key = `${Math.round(x)},${Math.round(y)}`;
        const n = labelsAt.get(key) ?? 0;
        labelsAt.set(key, n + 1);
        const ly = y - T * 0.8 - n * 12;
        g.fillStyle = 'rgba(0,0,0,0.75)';
        g.fillText(label, x + 1, ly + 1);
        g.fillStyle = e.kind === 'npc' ? '#ffe066' : e.id === selfId ? '#ffffff' : '#9fe6ff';
        g.fillText(label, x, ly);
      }
    }

    // Hit splats: a red disc with the damage (blue for a miss), for a second.
    this.splats = this.splats.filter((sp) => now - sp.at < 1000);
    g.font = 'bold 12px system-ui, sans-serif';
    for (const sp of this.splats) {
      const e = world.entities.get(sp.id);
      if (!e) continue;
      const p = drawnPosition(e, now, tickMs);
      const { sx, sy } = this.toScreen(p.x, p.z);
      const rise = ((now - sp.at) / 1000) * 10;
      g.fillStyle = sp.damage > 0 ? '#c0281d' : '#2a62c9';
      g.beginPath();
      g.arc(sx, sy - rise, 9, 0, Math.PI * 2);
      g.fill();
      g.fillStyle = '#fff';
      g.fillText(String(sp.damage), sx, sy - rise + 4);
    }
    this.frameMs.push(performance.now() - t0);
    if (this.frameMs.length > 600) this.frameMs.splice(0, this.frameMs.length - 600);
  }

  /** @param {Entity} e @param {number} x @param {number} y @param {boolean} self @param {number} now */
  drawEntity(e, x, y, self, now) {
    const g = this.g;
    const T = this.tile;
    if (e.kind === 'player' || e.kind === 'npc') {
      // Shadow, body, head: a small figure readable at 32 px.
      g.fillStyle = 'rgba(0,0,0,0.3)';
      g.beginPath();
      g.ellipse(x, y + T * 0.3, T * 0.3, T * 0.12, 0, 0, Math.PI * 2);
      g.fill();
      const body = e.kind === 'npc' ? (e.typeId && /rat|goblin|wolf|bandit|skeleton|knight|chicken/.test(e.typeId) ? '#a33b2b' : '#c99a2e') : hue(e.name ?? e.id);
      g.fillStyle = body;
      g.beginPath();
      g.roundRect(x - T * 0.24, y - T * 0.18, T * 0.48, T * 0.5, 4);
      g.fill();
      g.fillStyle = 'rgba(0,0,0,0.25)';
      g.fillRect(x - T * 0.24, y + T * 0.12, T * 0.48, T * 0.06);
      g.fillStyle = '#e8c39e';
      g.beginPath();
      g.arc(x, y - T * 0.32, T * 0.17, 0, Math.PI * 2);
      g.fill();
      if (self || e.id === this.hoverId) {
        g.strokeStyle = self ? '#fff' : '#ffe066';
        g.lineWidth = 1.5;
        g.strokeRect(x - T * 0.26, y - T * 0.48, T * 0.52, T * 0.85);
      }
      return;
    }
    if (e.kind === 'groundItem') {
      g.fillStyle = e.itemId === 'coins' ? '#f2c94c' : '#c8b08a';
      g.strokeStyle = '#3b2a14';
      g.lineWidth = 1;
      g.beginPath();
      g.arc(x, y + 4, T * 0.17, 0, Math.PI * 2);
      g.fill();
      g.stroke();
      return;
    }
    const type = e.resourceType ?? '';
    const depleted = !!e.depleted;
    if (type === 'tree') {
      // Trunk and a layered canopy, taller than a tile like a real tree; a stump when felled.
      g.fillStyle = 'rgba(0,0,0,0.28)';
      g.beginPath();
      g.ellipse(x + 3, y + T * 0.3, T * 0.55, T * 0.2, 0, 0, Math.PI * 2);
      g.fill();
      g.fillStyle = '#5b3a1e';
      g.fillRect(x - T * 0.1, y - T * 0.2, T * 0.2, T * 0.5);
      if (depleted) {
        g.fillStyle = '#c9a26b';
        g.beginPath();
        g.ellipse(x, y - T * 0.2, T * 0.1, T * 0.05, 0, 0, Math.PI * 2);
        g.fill();
        return;
      }
      const oak = /oak/.test(e.typeId ?? ''), willow = /willow/.test(e.typeId ?? '');
      const dark = willow ? '#4f7a34' : oak ? '#2c5a22' : '#2f6e2a';
      const light = willow ? '#6e9b45' : oak ? '#3f7a2e' : '#46913b';
      g.fillStyle = dark;
      g.beginPath();
      g.arc(x, y - T * 0.45, T * 0.62, 0, Math.PI * 2);
      g.fill();
      g.fillStyle = light;
      g.beginPath();
      g.arc(x - T * 0.15, y - T * 0.6, T * 0.38, 0, Math.PI * 2);
      g.fill();
      g.fillStyle = 'rgba(255,255,255,0.12)';
      g.beginPath();
      g.arc(x - T * 0.25, y - T * 0.72, T * 0.15, 0, Math.PI * 2);
      g.fill();
      return;
    }
    if (type === 'fire') {
      const f = 0.8 + 0.2 * Math.sin(now / 90 + x);
      g.fillStyle = '#5b3a1e';
      g.fillRect(x - 8, y + 4, 16, 4);
      g.fillStyle = '#ff8a1f';
      g.beginPath();
      g.moveTo(x - 8, y + 4); g.quadraticCurveTo(x, y - 16 * f, x + 8, y + 4);
      g.fill();
      g.fillStyle = '#ffd34d';
      g.beginPath();
      g.moveTo(x - 4, y + 4); g.quadraticCurveTo(x, y - 8 * f, x + 4, y + 4);
      g.fill();
      return;
    }
    if (type === 'fishing' || type === 'fishing_spot' || /fish/.test(e.typeId ?? '')) {
      const r = (now / 400) % 1;
      g.strokeStyle = `rgba(200,235,255,${1 - r})`;
      g.lineWidth = 2;
      g.beginPath();
      g.ellipse(x, y, 6 + r * 10, 3 + r * 5, 0, 0, Math.PI * 2);
      g.stroke();
      return;
    }
    const colour = RESOURCE_COLOURS[type] ?? (/ore|rock/.test(e.typeId ?? '') ? '#8a8a8a' : '#9c7f5a');
    g.fillStyle = depleted ? '#5d5d5d' : colour;
    g.strokeStyle = 'rgba(0,0,0,0.5)';
    g.lineWidth = 1.5;
    g.beginPath();
    g.roundRect(x - T * 0.4, y - T * 0.4, T * 0.8, T * 0.8, 5);
    g.fill();
    g.stroke();
    if (type === 'bank') {
      // A counter with a coin sign.
      g.fillStyle = '#5a3a1c';
      g.fillRect(x - T * 0.4, y + T * 0.05, T * 0.8, T * 0.15);
      g.fillStyle = '#f2c94c';
      g.beginPath();
      g.arc(x, y - T * 0.15, T * 0.14, 0, Math.PI * 2);
      g.fill();
    } else if (type === 'furnace' || type === 'range') {
      g.fillStyle = `rgba(255,${120 + Math.floor(60 * Math.sin(now / 150))},30,0.9)`;
      g.fillRect(x - T * 0.18, y, T * 0.36, T * 0.22);
    } else if (type === 'altar') {
      g.fillStyle = '#8a7f6a';
      g.fillRect(x - 2, y - T * 0.3, 4, T * 0.5);
      g.fillRect(x - T * 0.18, y - T * 0.18, T * 0.36, 4);
    } else if (type === 'anvil') {
      g.fillStyle = '#2b2f35';
      g.fillRect(x - T * 0.3, y - T * 0.12, T * 0.6, T * 0.14);
      g.fillRect(x - T * 0.1, y, T * 0.2, T * 0.25);
    }
    if (!depleted && (type === 'rock' || type === 'ore' || /ore/.test(e.typeId ?? ''))) {
      g.fillStyle = /copper/.test(e.typeId ?? '') ? '#c8773a' : /tin/.test(e.typeId ?? '') ? '#cfd6db' : /iron/.test(e.typeId ?? '') ? '#8a5a4a' : '#333';
      g.fillRect(x - 5, y - 3, 4, 4);
      g.fillRect(x + 3, y + 2, 3, 3);
    }
  }
}
