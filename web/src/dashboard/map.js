// The position panel's small map: the game's own terrain (terrain.js: /api/map and its chunks,
// each painted once and cached) around the agent, the areas' names, the agent's recent trail and
// the account's other agents. Redrawn when a position arrives or a chunk finishes loading, never
// every frame.

/** CSS pixels per tile. */
const SCALE = 3;

export class AgentMap {
  /** @param {HTMLCanvasElement} canvas @param {import('../terrain.js').Terrain} terrain */
  constructor(canvas, terrain) {
    this.canvas = canvas;
    this.terrain = terrain;
    /** @type {{centre: {x: number, z: number}|null, name: string, trail: {x: number, z: number}[], others: {name: string, tile: {x: number, z: number}}[], online: boolean}} */
    this.scene = { centre: null, name: '', trail: [], others: [], online: true };
    terrain.onLoaded = () => this.draw();
  }

  /** @param {Partial<AgentMap['scene']>} scene */
  show(scene) {
    this.scene = { ...this.scene, ...scene };
    this.draw();
  }

  draw() {
    const c = this.canvas;
    const r = c.getBoundingClientRect();
    if (!r.width) return;
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    const W = Math.round(r.width * dpr), H = Math.round(r.height * dpr);
    if (c.width !== W || c.height !== H) {
      c.width = W;
      c.height = H;
    }
    const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const w = r.width, h = r.height;
    g.fillStyle = '#1f4560';
    g.fillRect(0, 0, w, h);
    const { centre, trail, others, name, online } = this.scene;
    const s = this.terrain.summary;
    if (!centre || !s) return;
    const cx = centre.x + 0.5, cz = centre.z + 0.5;
    /** Screen point of a tile's centre. */
    const at = (x, z) => [(x + 0.5 - cx) * SCALE + w / 2, (z + 0.5 - cz) * SCALE + h / 2];

    // Ground: the chunks the view touches (asked for here; each arrives once and redraws).
    const n = s.chunkTiles;
    const spanX = w / SCALE / 2 + 1, spanZ = h / SCALE / 2 + 1;
    g.imageSmoothingEnabled = true;
    for (let chx = Math.floor((cx - spanX) / n); chx <= Math.floor((cx + spanX) / n); chx++) {
      for (let chz = Math.floor((cz - spanZ) / n); chz <= Math.floor((cz + spanZ) / n); chz++) {
        const chunk = this.terrain.chunks.get(`${chx},${chz}`);
        if (!chunk) {
          this.terrain.want(chx, chz);
          continue;
        }
        const [x, y] = at(chunk.data.x - 0.5, chunk.data.z - 0.5);
        g.drawImage(chunk.image, x, y, chunk.data.size * SCALE, chunk.data.size * SCALE);
      }
    }

    // Area names at their centres, faint, for orientation (moved clear of the agent's marker).
    g.font = '600 11px system-ui, sans-serif';
    g.textAlign = 'center';
    const [ax, ay] = at(centre.x, centre.z);
    for (const a of s.areas) {
      const [x, ly] = at((a.min.x + a.max.x) / 2, (a.min.z + a.max.z) / 2);
      const y = Math.abs(x - ax) < 70 && Math.abs(ly - ay) < 22 ? ay + 24 : ly;
      if (x < -40 || y < -10 || x > w + 40 || y > h + 10) continue;
      // Kept whole inside the frame when the area's centre is near an edge.
      const half = g.measureText(a.name).width / 2 + 6;
      const lx = Math.min(Math.max(x, half), w - half);
      g.fillStyle = 'rgba(0,0,0,.45)';
      g.fillText(a.name, lx + 1, y + 1);
      g.fillStyle = 'rgba(255,248,220,.8)';
      g.fillText(a.name, lx, y);
    }

    // The trail, older points fainter.
    g.lineCap = 'round';
    g.lineJoin = 'round';
    g.lineWidth = 2;
    for (let i = 1; i < trail.length; i++) {
      const [x0, y0] = at(trail[i - 1].x, trail[i - 1].z);
      const [x1, y1] = at(trail[i].x, trail[i].z);
      g.strokeStyle = `rgba(255, 226, 122, ${0.15 + (0.75 * i) / trail.length})`;
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
      g.stroke();
    }

    // The account's other agents.
    for (const o of others) {
      const [x, y] = at(o.tile.x, o.tile.z);
      if (x < 0 || y < 0 || x > w || y > h) continue;
      g.fillStyle = '#4fd1ff';
      g.beginPath();
      g.arc(x, y, 3.5, 0, Math.PI * 2);
      g.fill();
      g.fillStyle = '#dff6ff';
      g.fillText(o.name, x, y - 7);
    }

    // The agent: a gold marker with its name.
    const [x, y] = at(centre.x, centre.z);
    g.fillStyle = online ? '#ffd34d' : '#a0a0a0';
    g.strokeStyle = '#1b1208';
    g.lineWidth = 2;
    g.beginPath();
    g.arc(x, y, 6, 0, Math.PI * 2);
    g.fill();
    g.stroke();
    g.font = '700 12px system-ui, sans-serif';
    g.lineWidth = 3;
    g.strokeStyle = 'rgba(0,0,0,.75)';
    g.strokeText(name, x, y - 11);
    g.fillStyle = '#fff';
    g.fillText(name, x, y - 11);

    g.strokeStyle = '#8c6b3f';
    g.lineWidth = 2;
    g.strokeRect(1, 1, w - 2, h - 2);
  }
}
