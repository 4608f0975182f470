// The ground: chunks from GET /api/map/chunk/<cx>/<cz>, each painted once into its own canvas at
// PX pixels a tile (static layers drawn once and cached, as BrowserQuest does), then blitted.

import { fetchOnce } from './api.js';

/** Pixels per tile in a cached chunk image; the view scales it. */
export const PX = 16;

/**
 * @typedef {{chunkTiles: number, min: {x:number,z:number}, max: {x:number,z:number},
 *   chunks: {minX:number,maxX:number,minZ:number,maxZ:number}, spawn: {x:number,z:number},
 *   grounds: string[], areas: {id:string,name:string,ground:string,safeZone:boolean,pvp:boolean,
 *   min:{x:number,z:number},max:{x:number,z:number}}[]}} MapSummary
 * @typedef {{cx:number, cz:number, x:number, z:number, size:number, walkable:string, ground:number[]}} ChunkData
 */

/** Colours of each ground type: [base, variation]. Unknown types fall back to grass. */
const PALETTE = /** @type {Record<string, [string, string]>} */ ({
  void: ['#1f4560', '#224a66'],
  town: ['#6a8c45', '#6e9148'],
  grass: ['#5f8a3c', '#638e3f'],
  forest: ['#3f6b2f', '#426f31'],
  highlands: ['#7d8161', '#81856a'],
  wastes: ['#6e5a48', '#73604d'],
});

/** Pixels per tile on the minimap. */
export const MINI_PX = 2;

/** A copy of a chunk image at minimap size, made once (scaling 1024 px images every frame is not free). 
 * @param {HTMLCanvasElement} image @param {number} side */
function shrink(image, side) {
  const c = document.createElement('canvas');
  c.width = c.height = side;
  const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
  g.imageSmoothingEnabled = true;
  g.drawImage(image, 0, 0, side, side);
  return c;
}

/** A stable pseudo-random value per tile, for texture that does not shimmer between frames. */
function noise(x, z) {
  let n = (x * 374761393 + z * 668265263) | 0;
  n = (n ^ (n >>> 13)) * 1274126177;
  return ((n ^ (n >>> 16)) >>> 0) / 4294967296;
}

export class Terrain {
  constructor() {
    /** @type {MapSummary|null} */
    this.summary = null;
    /** @type {Map<string, {data: ChunkData, image: HTMLCanvasElement, mini: HTMLCanvasElement}>} */
    this.chunks = new Map();
    /** @type {Set<string>} */
    this.loading = new Set();
    this.onLoaded = () => {};
  }

  async load() {
    this.summary = await fetchOnce('/api/map');
  }

  /** Whether a tile can be stood on, as far as the loaded chunks know. */
  walkable(x, z) {
    const s = this.summary;
    if (!s) return true;
    const cx = Math.floor(x / s.chunkTiles), cz = Math.floor(z / s.chunkTiles);
    const c = this.chunks.get(`${cx},${cz}`);
    if (!c) return true;
    return c.data.walkable[(z - c.data.z) * c.data.size + (x - c.data.x)] === '1';
  }

  /** Starts loading a chunk unless it is loaded, loading or outside the map. */
  want(cx, cz) {
    const s = this.summary;
    const key = `${cx},${cz}`;
    if (!s || this.chunks.has(key) || this.loading.has(key)) return;
    if (cx < s.chunks.minX || cx > s.chunks.maxX || cz < s.chunks.minZ || cz > s.chunks.maxZ) return;
    this.loading.add(key);
    fetchOnce(`/api/map/chunk/${cx}/${cz}`)
      .then((data) => {
        const image = this.paint(data);
        this.chunks.set(key, { data, image, mini: shrink(image, data.size * MINI_PX) });
        this.onLoaded();
      })
      .catch(() => {})
      .finally(() => this.loading.delete(key));
  }

  /** Paints one chunk: ground colour with texture, blocked tiles darker, shore lines at void edges. 
   * @param {ChunkData} d */
  paint(d) {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = d.size * PX;
    const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    const grounds = this.summary?.grounds ?? ['void'];
    const at = (x, z) => (x < 0 || z < 0 || x >= d.size || z >= d.size ? -1 : d.ground[z * d.size + x]);
    for (let z = 0; z < d.size; z++) {
      for (let x = 0; x < d.size; x++) {
        const gi = d.ground[z * d.size + x];
        const name = grounds[gi] ?? 'grass';
        const [base, vary] = PALETTE[name] ?? PALETTE.grass;
        const r = noise(d.x + x, d.z + z);
        // Blocked land tiles are under a station or resource, which is drawn over them: the same
        // ground, so footprints do not show as dark squares. A faint variation breaks up the grid.
        g.fillStyle = r < 0.5 ? base : vary;
        g.fillRect(x * PX, z * PX, PX, PX);
        if (name === 'void') {
          if (r > 0.85) {
            g.fillStyle = 'rgba(255,255,255,0.08)';
            g.fillRect(x * PX + 3, z * PX + 6, 7, 1);
          }
          // Shore: a sandy rim where the land meets the water.
          g.fillStyle = '#b9a66f';
          if (at(x, z - 1) > 0) g.fillRect(x * PX, z * PX, PX, 3);
          if (at(x, z + 1) > 0) g.fillRect(x * PX, z * PX + PX - 3, PX, 3);
          if (at(x - 1, z) > 0) g.fillRect(x * PX, z * PX, 3, PX);
          if (at(x + 1, z) > 0) g.fillRect(x * PX + PX - 3, z * PX, 3, PX);
        } else {
          // Tufts and pebbles: a little texture, fixed per tile, so the ground does not read as flat paint.
          const r2 = noise(d.x + x + 7919, d.z + z);
          g.fillStyle = name === 'wastes' || name === 'highlands' ? 'rgba(40,30,20,0.25)' : 'rgba(20,50,10,0.35)';
          g.fillRect(x * PX + Math.floor(r * 13), z * PX + Math.floor(r2 * 13), 2, 3);
          if (r2 > 0.6) g.fillRect(x * PX + Math.floor(r2 * 11), z * PX + Math.floor(r * 11), 1, 2);
          g.fillStyle = 'rgba(255,255,220,0.06)';
          if (r > 0.7) g.fillRect(x * PX + Math.floor(r2 * 12), z * PX + Math.floor(r * 12), 2, 2);
        }
      }
    }
    return canvas;
  }
}
