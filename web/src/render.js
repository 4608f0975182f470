// Draws the world on the main canvas each animation frame: terrain chunks (cached images), then
// entities sorted by row (figures and resources from cached sprites, sprites.js; poses from
// anim.js), fires above them, then names (placed so they never overlap), health bars, hit splats
// and the click marker. XP drops and level-ups are DOM overlays (ui/effects.js). The camera is
// centred on the player; the zoom (wheel, pinch) scales the tile.

import { drawnPosition } from './state.js';
import { Sprites, npcLook, playerLook, figureKey, resourceLook, FIGURE_SCALE, FIGURE_BOX, FIGURE_FEET } from './sprites.js';
import { Motion } from './anim.js';
import { itemImage } from './icons.js';
import { items, npcs } from './content.js';
import { placeLabel } from './labels.js';
import { roofImage, insideBuilding, fadeToward, drawDoor, questMarker, drawQuestMarker, overheadLines, overheadText } from './place.js';

/** @typedef {import('./state.js').Entity} Entity */

/** How long (ms) one frame may spend drawing figures it has not drawn before (the rest wait as plain figures). */
const NEW_FIGURES_MS = 1.5;

/** Zoom bounds (a factor of the base tile size). */
export const MIN_ZOOM = 0.5;
export const MAX_ZOOM = 2;

export class Renderer {
  /** @param {HTMLCanvasElement} canvas @param {import('./terrain.js').Terrain} terrain */
  constructor(canvas, terrain) {
    this.canvas = canvas;
    this.g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
    this.terrain = terrain;
    /** Screen pixels per tile at zoom 1 (smaller on phones). */
    this.baseTile = 32;
    this.zoom = 1;
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
    /** Whether names are drawn (a setting); one's own and the hovered one's always are. */
    this.showNames = true;
    /** What the player wears (their own figure shows it). @type {Record<string, {itemId: string}>} */
    this.equipment = {};
    this.sprites = new Sprites();
    this.motion = new Motion();
    /** @type {Map<string, {name?: string, typeId?: string, worn: object|undefined, key: string, look: any}>} figure looks by
     * entity, recomputed when its name, type or what it wears changes (a new `worn` or equipment object) */
    this.looks = new Map();
    /** Frame durations (ms), newest last, for the benchmark. */
    this.frameMs = [];
    /** Roofs by building id: the image (at the current tile size) and its opacity, fading out
     * while the player stands inside. @type {Map<string, {img: HTMLCanvasElement, T: number, alpha: number}>} */
    this.roofs = new Map();
    /** Local chat said in view, by speaker id, shown over the speaker's head (place.js OVERHEAD_MS).
     * @type {Map<string, {text: string, at: number}[]>} */
    this.said = new Map();
    /** Screen pixels at the bottom of the view that UI covers (the chat box): overhead text and
     * markers stay above it. */
    this.reservedBottom = 0;
    /** A tile the quest tracker points at, drawn as an arrow over it (or at the view's edge). @type {{x: number, z: number}|null} */
    this.guide = null;
    this.lastDraw = 0;
  }

  /** A local chat line over its speaker's head. @param {string} id @param {string} text @param {number} now */
  say(id, text, now) {
    const lines = this.said.get(id) ?? [];
    lines.push({ text: overheadText(text), at: now });
    this.said.set(id, lines);
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    this.dpr = Math.min(2, window.devicePixelRatio || 1);
    this.canvas.width = Math.max(1, Math.round(r.width * this.dpr));
    this.canvas.height = Math.max(1, Math.round(r.height * this.dpr));
    // Phones: a little closer in so entities stay tappable.
    this.baseTile = r.width < 700 ? 28 : 32;
    this.setZoom(this.zoom);
  }

  /** @param {number} z a factor of the base tile, kept within MIN_ZOOM–MAX_ZOOM */
  setZoom(z) {
    this.zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));
    this.tile = Math.round(this.baseTile * this.zoom);
    this.sprites.setScale(this.tile, this.dpr);
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
   * The figure look of a player or NPC, kept per entity: one's own follows what one wears
   * (`equipment:update`), another player what their entity's `worn` says. Checked each frame by
   * identity (a change brings a new object), so a crowd costs no string building; the sprites
   * are cached per look (`figureKey`), so players dressed alike share them.
   * @param {Entity} e @param {boolean} self
   */
  lookOf(e, self) {
    const worn = e.kind !== 'player' ? undefined : self ? this.equipment : e.worn;
    let l = this.looks.get(e.id);
    if (!l || l.worn !== worn || l.name !== e.name || l.typeId !== e.typeId) {
      const look = e.kind === 'npc' ? npcLook(e.typeId ?? '', e.name) : playerLook(e.name ?? e.id, worn ?? {});
      l = { name: e.name, typeId: e.typeId, worn, look, key: figureKey(look) };
      this.looks.set(e.id, l);
      if (this.looks.size > 4096) this.looks.clear();
    }
    return l;
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
          // Ripples drifting on the water (a fixed quarter of its tiles, found when the chunk loaded).
          const wv = c.water;
          if (wv.length) {
            g.fillStyle = 'rgba(220,240,255,0.22)';
            const drift = (now / 900) % 1;
            for (let i = 0; i < wv.length; i += 2) {
              const tx = sx + wv[i] * T, ty = sy + wv[i + 1] * T;
              if (tx < -T || ty < -T || tx > W || ty > H) continue;
              const phase = (drift + (wv[i] * 7 + wv[i + 1] * 3) % 10 / 10) % 1;
              g.fillRect(tx + T * (0.15 + 0.5 * phase), ty + T * (0.3 + ((wv[i] + wv[i + 1]) % 3) * 0.2), T * 0.3, Math.max(1, T / 16));
            }
          }
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
    // The dead the server has removed finish their fall where they stood.
    for (const e of this.motion.fallen((id) => world.entities.has(id), now)) {
      const { sx, sy } = this.toScreen(e.x, e.z);
      shown.push({ e, x: sx, y: sy });
    }
    const order = { resource: 0, groundItem: 1, npc: 2, player: 3 };
    this.sprites.beginFrame(NEW_FIGURES_MS);
    shown.sort((a, b) => a.y - b.y || order[a.e.kind] - order[b.e.kind]);
    g.imageSmoothingEnabled = true;
    /** @type {{x: number, y: number}[]} */
    const fires = [];
    /** @type {{e: Entity, x: number, y: number}[]} */
    const doors = [];
    for (const item of shown) {
      const { e, x, y } = item;
      if (e.kind === 'resource' && e.resourceType === 'fire') fires.push({ x, y });
      else if (e.kind === 'resource' && (e.resourceType === 'door' || e.resourceType === 'gate')) doors.push(item);
      else this.drawEntity(e, x, y, e.id === selfId, now, tickMs);
    }
    // Fires burn above whoever stands at them: a flame hidden under a player is no use.
    for (const f of fires) drawFire(g, f.x, f.y, T, now);
    // Roofs over the buildings, faded out over the one the player stands in; then the doors,
    // seen from outside too.
    this.drawRoofs(self, now);
    for (const { e, x, y } of doors) drawDoor(g, x, y, T, e.side ?? 4, !!e.open, e.resourceType === 'gate');

    // Names and health bars on top of every body. Names are placed so that none overlaps another
    // (stacked upwards); with a crowd, or names switched off, only one's own and the hovered.
    const crowd = shown.length > 60;
    g.textAlign = 'center';
    g.font = '600 11px system-ui, sans-serif';
    /** @type {{x: number, y: number, w: number, h: number}[]} */
    const placed = [];
    for (let i = shown.length - 1; i >= 0; i--) {
      const { e, x, y } = shown[i];
      if (e.kind !== 'player' && e.kind !== 'npc') continue;
      const top = y - T * 1.2;
      const hurt = e.health !== undefined && e.maxHealth && e.health < e.maxHealth;
      if (hurt) {
        const f = Math.max(0, (e.health ?? 0) / (e.maxHealth || 1));
        g.fillStyle = '#b3261e';
        g.fillRect(x - 14, top, 28, 4);
        g.fillStyle = '#3ec43e';
        g.fillRect(x - 14, top, 28 * f, 4);
      }
      const mine = e.id === selfId || e.id === this.hoverId;
      const mark = e.kind === 'npc' ? questMarker(e.quest) : null;
      /** The name's baseline, where a quest marker goes above. */
      let nameY = top;
      if (mine || (this.showNames && !crowd)) {
        const label = nameLabel(e);
        g.font = '600 11px system-ui, sans-serif';
        g.textAlign = 'center';
        const w = g.measureText(label).width + 4;
        // A figure at the view's edge keeps its whole name in view ("…chant" read as nothing).
        const lx = Math.min(Math.max(x, w / 2 + 2), W - w / 2 - 2);
        const spot = placeLabel(placed, lx, top - 4, w, 12);
        if (spot) {
          nameY = spot.y;
          g.fillStyle = 'rgba(0,0,0,0.75)';
          g.fillText(label, lx + 1, spot.y + 1);
          g.fillStyle = e.kind === 'npc' ? '#ffe066' : e.id === selfId ? '#ffffff' : '#9fe6ff';
          g.fillText(label, lx, spot.y);
        }
      }
      if (mark) {
        // Over the name; overhead chat keeps clear of it.
        drawQuestMarker(g, mark.glyph, mark.colour, x, nameY - 14, now);
        placed.push({ x: x - 8, y: nameY - 12, w: 16, h: 22 });
      }
    }

    this.drawOverhead(world, now, tickMs, placed);
    this.drawGuide(now);

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

  /**
   * The roofs of the buildings in view (GET /api/map `buildings`, pens have none): each drawn once
   * into an image at the tile size, its opacity easing to 0 while the player stands inside.
   * @param {Entity|undefined} self @param {number} now
   */
  drawRoofs(self, now) {
    const list = this.terrain.summary?.buildings;
    const dt = this.lastDraw ? now - this.lastDraw : 0;
    this.lastDraw = now;
    if (!list?.length) return;
    const g = this.g;
    const T = this.tile;
    const W = this.canvas.width / this.dpr, H = this.canvas.height / this.dpr;
    const px = self ? Math.round(self.x) : NaN, pz = self ? Math.round(self.z) : NaN;
    const eave = 0.2;
    for (const b of list) {
      if (b.roof === 'none' || !b.tiles.length) continue;
      const [a, c] = b.tiles[0];
      const p = this.toScreen(a.x - 0.5 - eave, a.z - 0.5 - eave);
      const w = (c.x - a.x + 1 + 2 * eave) * T, h = (c.z - a.z + 1 + 2 * eave) * T;
      if (p.sx > W || p.sy > H || p.sx + w < 0 || p.sy + h < 0) continue;
      let r = this.roofs.get(b.id);
      if (!r || r.T !== T) {
        r = { img: roofImage(b.roof, c.x - a.x + 1 + 2 * eave, c.z - a.z + 1 + 2 * eave, T * this.dpr), T, alpha: r?.alpha ?? 1 };
        this.roofs.set(b.id, r);
      }
      r.alpha = fadeToward(r.alpha, insideBuilding(b, px, pz) ? 0 : 1, dt);
      if (r.alpha <= 0) continue;
      g.globalAlpha = r.alpha;
      g.drawImage(r.img, p.sx, p.sy, w, h);
      g.globalAlpha = 1;
    }
  }

  /**
   * Local chat over the speakers' heads for a few seconds, up to three lines each (the newest
   * lowest), placed so no line covers a name or another line, and kept above the chat box.
   * @param {import('./state.js').World} world @param {number} now @param {number} tickMs
   * @param {{x: number, y: number, w: number, h: number}[]} placed
   */
  drawOverhead(world, now, tickMs, placed) {
    if (!this.said.size) return;
    const g = this.g;
    const T = this.tile;
    const W = this.canvas.width / this.dpr, H = this.canvas.height / this.dpr - this.reservedBottom;
    g.font = '700 12px system-ui, sans-serif';
    g.textAlign = 'center';
    for (const [id, lines] of overheadLines(this.said, now)) {
      const e = world.entities.get(id);
      if (!e) continue;
      const p = drawnPosition(e, now, tickMs);
      const { sx, sy } = this.toScreen(p.x, p.z);
      let y = sy - T * 1.2 - 18;
      for (let i = lines.length - 1; i >= 0; i--) {
        const text = lines[i].text;
        const w = g.measureText(text).width + 6;
        const x = Math.min(Math.max(sx, w / 2 + 2), W - w / 2 - 2);
        const spot = placeLabel(placed, x, Math.min(Math.max(y, 30), H - 4), w, 14);
        if (!spot) break;
        g.fillStyle = 'rgba(0,0,0,0.8)';
        g.fillText(text, x + 1, spot.y + 1);
        g.fillStyle = '#ffff3a';
        g.fillText(text, x, spot.y);
        y = spot.y - 14;
      }
    }
  }

  /** The quest tracker's target: a bouncing arrow over its tile, or at the view's edge pointing
   * to it when it is off screen. @param {number} now */
  drawGuide(now) {
    if (!this.guide) return;
    const g = this.g;
    const T = this.tile;
    const W = this.canvas.width / this.dpr, H = this.canvas.height / this.dpr - this.reservedBottom;
    const { sx, sy } = this.toScreen(this.guide.x, this.guide.z);
    const m = 28;
    // In view while the arrow over the head is (the figure may stand just above the chat box).
    const inView = sx > m && sy > m + 40 && sx < W - m && sy < H + T;
    g.save();
    if (inView) {
      const bob = Math.abs(Math.sin(now / 250)) * 6;
      // Above the head, its name and a quest marker.
      g.translate(sx, sy - T * 1.2 - 56 - bob);
      g.rotate(Math.PI / 2);
    } else {
      const cx = W / 2, cy = (H + 40) / 2;
      const a = Math.atan2(sy - cy, sx - cx);
      const k = Math.min((W / 2 - m) / Math.abs(Math.cos(a) || 1e-6), ((H - 40) / 2 - m) / Math.abs(Math.sin(a) || 1e-6));
      g.translate(cx + Math.cos(a) * k, cy + Math.sin(a) * k);
      g.rotate(a);
    }
    g.beginPath();
    g.moveTo(12, 0); g.lineTo(-8, -10); g.lineTo(-3, 0); g.lineTo(-8, 10); g.closePath();
    g.fillStyle = '#ffd83a';
    g.fill();
    g.lineWidth = 2;
    g.strokeStyle = '#1a1208';
    g.stroke();
    g.restore();
  }

  /** @param {Entity} e @param {number} x @param {number} y @param {boolean} self @param {number} now @param {number} tickMs */
  drawEntity(e, x, y, self, now, tickMs) {
    const g = this.g;
    const T = this.tile;
    if (e.kind === 'player' || e.kind === 'npc') {
      const { look, key } = this.lookOf(e, self);
      const { pose, dying } = this.motion.pose(e, self, now, tickMs);
      const img = this.sprites.figure(look, pose, key);
      const w = T * (FIGURE_BOX.w / 32) * FIGURE_SCALE, h = T * (FIGURE_BOX.h / 32) * FIGURE_SCALE;
      if (dying !== null) {
        // Falls over in the first half, fades in the second.
        g.save();
        g.globalAlpha = dying < 0.5 ? 1 : 2 - dying * 2;
        g.translate(x, y + T * 0.35);
        g.rotate(-Math.min(1, dying * 2) * Math.PI / 2);
        g.drawImage(img, -w / 2, -h * (FIGURE_FEET / FIGURE_BOX.h), w, h);
        g.restore();
      } else {
        // At the sprite's own size and on whole pixels: no resampling, the cheapest copy there is.
        const iw = img.width / this.dpr, ih = img.height / this.dpr;
        g.drawImage(img, Math.round(x - iw / 2), Math.round(y + T * 0.35 - ih * (FIGURE_FEET / FIGURE_BOX.h)), iw, ih);
      }
      if (self || e.id === this.hoverId) {
        g.strokeStyle = self ? 'rgba(255,255,255,0.8)' : '#ffe066';
        g.lineWidth = 1.5;
        g.beginPath();
        g.ellipse(x, y + T * 0.35, T * 0.32, T * 0.12, 0, 0, Math.PI * 2);
        g.stroke();
      }
      return;
    }
    if (e.kind === 'groundItem') {
      const s = T * 0.62;
      g.drawImage(itemImage(e.itemId ?? '', items.get(e.itemId ?? '')), x - s / 2, y - s / 2 + T * 0.1, s, s);
      if ((e.quantity ?? 1) > 1 && T >= 24) {
        g.font = 'bold 9px system-ui, sans-serif';
        g.textAlign = 'left';
        g.fillStyle = '#000';
        g.fillText(String(e.quantity), x - s / 2 + 1, y - s / 2 + 9);
        g.fillStyle = '#ffff60';
        g.fillText(String(e.quantity), x - s / 2, y - s / 2 + 8);
      }
      return;
    }
    const look = resourceLook(e);
    if (look.kind === 'fishing') {
      drawFishingSpot(g, x, y, T, now, look);
      return;
    }
    const key = `res|${look.kind}|${look.colour}|${look.accent}|${e.depleted ? 1 : 0}`;
    let img = this.sprites.cache.get(key);
    if (!img) {
      img = document.createElement('canvas');
      const px = T * this.dpr;
      img.width = Math.ceil(px * 2);
      img.height = Math.ceil(px * 2.25);
      const c = /** @type {CanvasRenderingContext2D} */ (img.getContext('2d'));
      c.scale(px / 32, px / 32);
      c.translate(32, 44);
      drawResource(c, look, !!e.depleted);
      if (look.badge && !e.depleted) {
        // The station's badge: the picture of what it is for, on a small disc.
        c.beginPath(); c.arc(10, -26, 8, 0, Math.PI * 2); c.fillStyle = 'rgba(20,15,10,0.8)'; c.fill();
        c.strokeStyle = '#c9a45c'; c.lineWidth = 1; c.stroke();
        c.drawImage(itemImage(look.badge, items.get(look.badge)), 3, -33, 14, 14);
      }
      this.sprites.cache.set(key, img);
    }
    g.drawImage(img, x - T, y - T * (44 / 32), T * 2, T * 2.25);
    if ((look.kind === 'furnace' || look.kind === 'range') && !e.depleted) {
      g.fillStyle = `rgba(255,${150 + Math.floor(60 * Math.sin(now / 150))},40,0.85)`;
      g.fillRect(x - T * 0.15, y + T * 0.02, T * 0.3, T * 0.16);
    }
  }
}

/** A figure's name; a creature that fights shows its combat level ("Chicken (level 1)").
 * @param {Entity} e */
export function nameLabel(e) {
  const name = e.name ?? e.id;
  if (e.kind !== 'npc') return name;
  const def = /** @type {any} */ (npcs.get(e.typeId ?? ''));
  const level = def?.combat?.attackable ? def?.stats?.level : undefined;
  return level ? `${name} (level ${level})` : name;
}

/**
 * A resource or station on a 32-unit grid centred on its tile (0, 0), up to 44 units above.
 * @param {CanvasRenderingContext2D} g @param {{kind: string, colour: string, accent: string}} l @param {boolean} depleted
 */
function drawResource(g, l, depleted) {
  const shadow = (rx) => { g.beginPath(); g.ellipse(2, 10, rx, rx * 0.35, 0, 0, Math.PI * 2); g.fillStyle = 'rgba(0,0,0,0.28)'; g.fill(); };
  const circle = (x, y, r, c) => { g.beginPath(); g.arc(x, y, r, 0, Math.PI * 2); g.fillStyle = c; g.fill(); };
  const box = (x, y, w, h, c) => { g.fillStyle = c; g.fillRect(x, y, w, h); };
  const edge = () => { g.strokeStyle = 'rgba(0,0,0,0.55)'; g.lineWidth = 1.2; g.stroke(); };
  const dark = l.colour.startsWith('#') ? l.colour : '#555';
  switch (l.kind) {
    case 'tree': case 'willow': case 'pine': {
      shadow(16);
      box(-3, -6, 6, 16, l.accent);
      if (depleted) { g.beginPath(); g.ellipse(0, -6, 3.5, 1.6, 0, 0, Math.PI * 2); g.fillStyle = '#d8b27a'; g.fill(); return; }
      if (l.kind === 'pine') {
        for (const [y, w] of [[-4, 14], [-14, 11], [-23, 8]]) { g.beginPath(); g.moveTo(-w, y); g.lineTo(0, y - 14); g.lineTo(w, y); g.closePath(); g.fillStyle = dark; g.fill(); edge(); }
      } else {
        circle(0, -15, 19, mixHex(dark, '#000000', 0.15));
        circle(-5, -20, 12, dark);
        circle(7, -12, 9, mixHex(dark, '#ffffff', 0.1));
        circle(-8, -23, 5, 'rgba(255,255,255,0.14)');
        if (l.kind === 'willow') for (let i = -14; i <= 14; i += 5) { g.beginPath(); g.moveTo(i, -12); g.lineTo(i + 1, 2); g.strokeStyle = mixHex(dark, '#ffffff', 0.2); g.lineWidth = 1.5; g.stroke(); }
      }
      return;
    }
    case 'rock': {
      shadow(13);
      g.beginPath(); g.moveTo(-13, 8); g.lineTo(-10, -6); g.lineTo(-2, -12); g.lineTo(9, -9); g.lineTo(14, 2); g.lineTo(10, 9); g.closePath();
      g.fillStyle = depleted ? '#5d5a56' : l.colour; g.fill(); edge();
      if (!depleted) for (const [x, y, r] of [[-5, -4, 3.5], [4, 1, 4], [-6, 4, 2.5], [6, -6, 2.5]]) { circle(x, y, r, l.accent); g.strokeStyle = 'rgba(0,0,0,0.35)'; g.lineWidth = 0.6; g.stroke(); }
      return;
    }
    case 'bank':
      shadow(14);
      box(-13, -16, 26, 26, l.colour); box(-13, -2, 26, 5, '#5a3a1c'); box(-10, -13, 20, 9, '#2a1d10');
      circle(0, -9, 3, l.accent);
      return;
    case 'furnace':
      shadow(13);
      g.beginPath(); g.moveTo(-12, 10); g.lineTo(-10, -16); g.lineTo(10, -16); g.lineTo(12, 10); g.closePath(); g.fillStyle = l.colour; g.fill(); edge();
      box(-4, -26, 8, 10, '#4a3a30'); box(-6, -2, 12, 7, '#1a0a05');
      return;
    case 'anvil':
      shadow(12);
      box(-4, -2, 8, 10, '#2a2e34'); box(-7, 6, 14, 4, '#2a2e34');
      g.beginPath(); g.moveTo(-14, -8); g.lineTo(10, -8); g.lineTo(14, -4); g.lineTo(-10, -3); g.closePath(); g.fillStyle = l.colour; g.fill(); edge();
      return;
    case 'range':
      shadow(14);
      box(-13, -10, 26, 20, l.colour); box(-13, -12, 26, 3, '#2a2a2a'); circle(-6, -11, 3, '#3a3a3a'); circle(6, -11, 3, '#3a3a3a'); box(-6, -2, 12, 7, '#1a0a05');
      return;
    case 'altar': case 'runecrafting_altar':
      shadow(13);
      box(-12, -6, 24, 14, l.colour); box(-14, -9, 28, 4, mixHex(l.colour, '#000000', 0.15));
      box(-1.5, -24, 3, 15, l.accent); box(-6, -20, 12, 3, l.accent);
      return;
    case 'obstacle_log_balance':
      shadow(16);
      g.beginPath(); g.roundRect(-16, -4, 32, 8, 4); g.fillStyle = l.colour; g.fill(); edge();
      for (const x of [-10, -2, 6]) box(x, -3, 1.2, 6, l.accent);
      g.beginPath(); g.ellipse(16, 0, 2.5, 4, 0, 0, Math.PI * 2); g.fillStyle = '#d8b27a'; g.fill();
      return;
    case 'obstacle_ledge':
      shadow(15);
      box(-15, -14, 30, 22, l.accent); box(-16, -16, 32, 5, l.colour);
      g.beginPath(); g.moveTo(-12, -6); g.lineTo(-4, -2); g.lineTo(4, -8); g.lineTo(12, -3); g.strokeStyle = 'rgba(0,0,0,0.35)'; g.lineWidth = 1; g.stroke();
      return;
    case 'obstacle_net':
      shadow(14);
      box(-14, -26, 3, 34, l.accent); box(11, -26, 3, 34, l.accent);
      g.strokeStyle = l.colour; g.lineWidth = 1.2;
      for (let i = -24; i <= 6; i += 6) { g.beginPath(); g.moveTo(-11, i); g.lineTo(11, i); g.stroke(); }
      for (let i = -8; i <= 8; i += 6) { g.beginPath(); g.moveTo(i, -24); g.lineTo(i, 6); g.stroke(); }
      return;
    case 'obstacle_pipe':
      shadow(16);
      g.beginPath(); g.roundRect(-16, -9, 32, 16, 8); g.fillStyle = l.colour; g.fill(); edge();
      g.beginPath(); g.ellipse(-14, -1, 4, 7, 0, 0, Math.PI * 2); g.fillStyle = l.accent; g.fill();
      return;
    case 'obstacle':
      shadow(13);
      box(-12, -10, 3, 18, l.colour); box(9, -10, 3, 18, l.colour); box(-12, -6, 24, 3, l.accent); box(-12, 1, 24, 3, l.accent);
      return;
    default:
      shadow(12);
      g.beginPath(); g.roundRect(-11, -12, 22, 22, 4); g.fillStyle = l.colour; g.fill(); edge();
  }
}

/** Flame on logs, flickering. @param {CanvasRenderingContext2D} g */
function drawFire(g, x, y, T, now) {
  const k = T / 32;
  const f = 0.8 + 0.2 * Math.sin(now / 90 + x);
  g.fillStyle = '#5b3a1e';
  g.fillRect(x - 9 * k, y + 4 * k, 18 * k, 4 * k);
  g.fillStyle = 'rgba(255,140,40,0.25)';
  g.beginPath(); g.arc(x, y - 4 * k, 16 * k, 0, Math.PI * 2); g.fill();
  g.fillStyle = '#ff6a1f';
  g.beginPath(); g.moveTo(x - 9 * k, y + 5 * k); g.quadraticCurveTo(x - 2 * k, y - 26 * k * f, x + 9 * k, y + 5 * k); g.fill();
  g.fillStyle = '#ffb43d';
  g.beginPath(); g.moveTo(x - 6 * k, y + 5 * k); g.quadraticCurveTo(x + 2 * k, y - 16 * k * f, x + 6 * k, y + 5 * k); g.fill();
  g.fillStyle = '#fff2a8';
  g.beginPath(); g.moveTo(x - 3 * k, y + 5 * k); g.quadraticCurveTo(x, y - 6 * k * f, x + 3 * k, y + 5 * k); g.fill();
}

/** Water ripples with a fish leaping now and then, and the tool it takes. @param {CanvasRenderingContext2D} g */
function drawFishingSpot(g, x, y, T, now, look) {
  const k = T / 32;
  g.fillStyle = 'rgba(40,110,170,0.35)';
  g.beginPath(); g.ellipse(x, y, 14 * k, 7 * k, 0, 0, Math.PI * 2); g.fill();
  for (const d of [0, 0.5]) {
    const r = ((now / 900) + d) % 1;
    g.strokeStyle = `rgba(220,240,255,${0.9 * (1 - r)})`;
    g.lineWidth = 1.6;
    g.beginPath(); g.ellipse(x, y, (4 + r * 12) * k, (2 + r * 6) * k, 0, 0, Math.PI * 2); g.stroke();
  }
  const jump = (now / 1400) % 1;
  if (jump < 0.3) {
    const a = jump / 0.3;
    g.fillStyle = '#c8d8e8';
    g.beginPath(); g.ellipse(x - 8 * k + a * 16 * k, y - Math.sin(a * Math.PI) * 10 * k, 3.5 * k, 1.8 * k, -0.6 + a * 1.2, 0, Math.PI * 2); g.fill();
  }
  if (look.badge && T >= 24) g.drawImage(itemImage(look.badge, items.get(look.badge)), x + 6 * k, y - 16 * k, 12 * k, 12 * k);
}

/** @param {string} a @param {string} b @param {number} t */
function mixHex(a, b, t) {
  if (!a.startsWith('#') || a.length !== 7) return a;
  const pa = parseInt(a.slice(1), 16), pb = parseInt(b.slice(1), 16);
  const c = (s) => Math.round(((pa >> s) & 255) * (1 - t) + ((pb >> s) & 255) * t);
  return `rgb(${c(16)},${c(8)},${c(0)})`;
}
