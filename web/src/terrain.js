// The ground: chunks from GET /api/map/chunk/<cx>/<cz>, each painted once into its own canvas at
// PX pixels a tile (static layers drawn once and cached, as BrowserQuest does), then blitted.

import { fetchOnce } from './api.js';
import { paintGroundDetail, paintWalls, paintProp } from './place.js';

/** Pixels per tile in a cached chunk image; the view scales it. */
export const PX = 16;

/**
 * @typedef {{chunkTiles: number, min: {x:number,z:number}, max: {x:number,z:number},
 *   chunks: {minX:number,maxX:number,minZ:number,maxZ:number}, spawn: {x:number,z:number},
 *   grounds: string[], areas: {id:string,name:string,ground:string,safeZone:boolean,pvp:boolean,
 *   min:{x:number,z:number},max:{x:number,z:number}}[], towns?: Town[],
 *   overview?: {block:number, width:number, min:{x:number,z:number}, rows:string},
 *   buildings?: Building[], pois?: Poi[], props?: Prop[]}} MapSummary
 * @typedef {{id:string, name:string, size:string, centre:{x:number,z:number}, safeRadius:number,
 *   buildings:{x:number,z:number}[][], stations:{station:string, tile:{x:number,z:number}}[]}} Town
 * @typedef {{cx:number, cz:number, x:number, z:number, size:number, walkable:string, ground:number[],
 *   height?: string, walls?: string}} ChunkData
 * @typedef {{id:string, name?:string, tiles:{x:number,z:number}[][], roof:string, doors:{x:number,z:number}[]}} Building
 * @typedef {{kind:string, name?:string, tile:{x:number,z:number}}} Poi
 * @typedef {{kind:string, tile:{x:number,z:number}, text?:string}} Prop
 */

/** Colours of each ground type: [base, variation]. Unknown types fall back to grass. A generated
 * island's grounds are water, shore, road, town, building and its biomes (GET /api/map `grounds`). */
const PALETTE = /** @type {Record<string, [string, string]>} */ ({
  void: ['#1f4560', '#224a66'],
  water: ['#25587f', '#275c85'],
  shore: ['#c9b57b', '#cdb97f'],
  road: ['#9b8561', '#a08a65'],
  town: ['#6a8c45', '#6e9148'],
  starter_town: ['#6a8c45', '#6e9148'],
  building: ['#7b4b33', '#815037'],
  grass: ['#5f8a3c', '#638e3f'],
  meadow: ['#6b9a43', '#6f9e46'],
  plains: ['#78a24c', '#7ca64f'],
  valley: ['#679a47', '#6b9e4a'],
  forest: ['#3f6b2f', '#426f31'],
  lakes: ['#5d9252', '#619656'],
  swamp: ['#4b6439', '#4f683c'],
  desert: ['#d2bd83', '#d6c187'],
  mountains: ['#85857c', '#898980'],
  tundra: ['#dde6ea', '#e1eaee'],
  highlands: ['#7d8161', '#81856a'],
  wastes: ['#6e5a48', '#73604d'],
  // The bundled duel arena's sanded ring (its area's biomeType).
  arena: ['#d8c08c', '#dcc490'],
  // Grounds content lays over an area's (CONTRACT §13): piers and bridges over water, paths,
  // a building's floor.
  pier: ['#9a7850', '#9e7c54'],
  bridge: ['#8a6a44', '#8e6e48'],
  path: ['#a38d68', '#a7916c'],
  floor: ['#97744e', '#9b7852'],
  sand: ['#d7c48c', '#dbc890'],
  dirt: ['#84684a', '#886c4e'],
});

/** The base and variation colours of a ground type (grass when unknown). @param {string} name */
export function groundColours(name) {
  return PALETTE[name] ?? PALETTE.grass;
}

/** The characters of a chunk's `height` string, level 0 to 63 (the server's alphabet). */
export const HEIGHT_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The height level (0–63) of one character of a chunk's `height`; 0 for anything else.
 * @param {string} ch */
export function heightLevel(ch) {
  const i = HEIGHT_ALPHABET.indexOf(ch);
  return i < 0 ? 0 : i;
}

/** A `#rrggbb` colour lit by `k` (1 = as is), as `rgb(...)`. @param {string} hex @param {number} k */
export function shade(hex, k) {
  const n = parseInt(hex.slice(1), 16);
  const c = (v) => Math.max(0, Math.min(255, Math.round(v * k)));
  return `rgb(${c((n >> 16) & 255)},${c((n >> 8) & 255)},${c(n & 255)})`;
}

/** How bright a tile is drawn: higher ground lighter, a slope facing the north-west light lighter
 * still (relief), water darker where it is deep. @param {string} name @param {number} level
 * @param {number} west the level of the tile to the north-west */
export function lightOf(name, level, west) {
  if (name === 'water') return 0.7 + 0.5 * (level / 63);
  const relief = Math.max(-0.18, Math.min(0.18, (level - west) * 0.06));
  return 0.82 + 0.32 * (level / 63) + relief;
}

/** What a station looks like on the maps: [glyph, colour]. */
export const STATION_ICONS = /** @type {Record<string, [string, string]>} */ ({
  bank: ['$', '#f2c94c'],
  furnace: ['F', '#f2994a'],
  anvil: ['A', '#bdbdbd'],
  range: ['R', '#eb5757'],
  altar: ['+', '#ffffff'],
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

/** Grounds laid by content whose tiles get their own detail (planks, cobbles, grains). */
const LAID = { pier: 1, bridge: 1, floor: 1, path: 1, sand: 1, dirt: 1 };

/** The water tiles of a chunk that carry a moving ripple (about one in four, fixed per tile), as
 * x, z pairs in the chunk: the renderer animates only these, no per-frame search.
 * @param {ChunkData} d @param {string[]} grounds */
export function ripples(d, grounds) {
  const out = [];
  for (let z = 0; z < d.size; z++) {
    for (let x = 0; x < d.size; x++) {
      const name = grounds[d.ground[z * d.size + x]];
      if (name === 'water' && noise(d.x + x + 131, d.z + z + 71) > 0.74) out.push(x, z);
    }
  }
  return Int16Array.from(out);
}

export class Terrain {
  constructor() {
    /** @type {MapSummary|null} */
    this.summary = null;
    /** @type {Map<string, {data: ChunkData, image: HTMLCanvasElement, mini: HTMLCanvasElement, water: Int16Array}>} */
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
        this.chunks.set(key, { data, image, mini: shrink(image, data.size * MINI_PX), water: ripples(data, this.summary?.grounds ?? []) });
        this.onLoaded();
      })
      .catch(() => {})
      .finally(() => this.loading.delete(key));
  }

  /** Paints one chunk: ground colour with texture (lit by height on a generated island), shore
   * lines where land meets water, then the towns' station icons and names over it.
   * @param {ChunkData} d */
  paint(d) {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = d.size * PX;
    const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    const grounds = this.summary?.grounds ?? ['void'];
    const at = (x, z) => (x < 0 || z < 0 || x >= d.size || z >= d.size ? -1 : d.ground[z * d.size + x]);
    const nameAt = (x, z) => grounds[at(x, z)] ?? 'void';
    const wet = (x, z) => at(x, z) >= 0 && (nameAt(x, z) === 'water' || nameAt(x, z) === 'void');
    const level = (x, z) => (d.height ? heightLevel(d.height[Math.max(0, Math.min(d.size - 1, z)) * d.size + Math.max(0, Math.min(d.size - 1, x))]) : 32);
    for (let z = 0; z < d.size; z++) {
      for (let x = 0; x < d.size; x++) {
        const gi = d.ground[z * d.size + x];
        const name = grounds[gi] ?? 'grass';
        const [base, vary] = groundColours(name);
        const r = noise(d.x + x, d.z + z);
        // Blocked land tiles are under a station or resource, which is drawn over them: the same
        // ground, so footprints do not show as dark squares. A faint variation breaks up the grid.
        const colour = r < 0.5 ? base : vary;
        g.fillStyle = d.height ? shade(colour, lightOf(name, level(x, z), level(x - 1, z - 1))) : colour;
        g.fillRect(x * PX, z * PX, PX, PX);
        if (name === 'void' || name === 'water') {
          if (r > 0.85) {
            g.fillStyle = 'rgba(255,255,255,0.08)';
            g.fillRect(x * PX + 3, z * PX + 6, 7, 1);
          }
          // Shore: a sandy rim where the land meets the water.
          g.fillStyle = '#b9a66f';
          const land = (x2, z2) => at(x2, z2) > 0 && !wet(x2, z2) && nameAt(x2, z2) !== 'pier' && nameAt(x2, z2) !== 'bridge';
          if (land(x, z - 1)) g.fillRect(x * PX, z * PX, PX, 3);
          if (land(x, z + 1)) g.fillRect(x * PX, z * PX + PX - 3, PX, 3);
          if (land(x - 1, z)) g.fillRect(x * PX, z * PX, 3, PX);
          if (land(x + 1, z)) g.fillRect(x * PX + PX - 3, z * PX, 3, PX);
        } else if (name === 'building') {
          // A roof: a darker rim where the building meets open ground.
          g.fillStyle = 'rgba(30,15,5,0.45)';
          if (nameAt(x, z - 1) !== 'building') g.fillRect(x * PX, z * PX, PX, 2);
          if (nameAt(x, z + 1) !== 'building') g.fillRect(x * PX, z * PX + PX - 2, PX, 2);
          if (nameAt(x - 1, z) !== 'building') g.fillRect(x * PX, z * PX, 2, PX);
          if (nameAt(x + 1, z) !== 'building') g.fillRect(x * PX + PX - 2, z * PX, 2, PX);
        } else if (name in LAID) {
          paintGroundDetail(g, name, x, z, r, (dx, dz) => wet(x + dx, z + dz));
        } else if (name !== 'road' && name !== 'town') {
          // Tufts and pebbles: a little texture, fixed per tile, so the ground does not read as flat paint.
          const r2 = noise(d.x + x + 7919, d.z + z);
          g.fillStyle = name === 'wastes' || name === 'highlands' || name === 'mountains' || name === 'desert' || name === 'shore'
            ? 'rgba(40,30,20,0.25)' : 'rgba(20,50,10,0.35)';
          g.fillRect(x * PX + Math.floor(r * 13), z * PX + Math.floor(r2 * 13), 2, 3);
          if (r2 > 0.6) g.fillRect(x * PX + Math.floor(r2 * 11), z * PX + Math.floor(r * 11), 1, 2);
          g.fillStyle = 'rgba(255,255,220,0.06)';
          if (r > 0.7) g.fillRect(x * PX + Math.floor(r2 * 12), z * PX + Math.floor(r * 12), 2, 2);
        }
      }
    }
    paintWalls(g, d.walls ?? '', d.size, (x, z) => nameAt(x, z) === 'floor');
    // Props (GET /api/map `props`), each on its tile; one standing by the chunk's edge is painted
    // into both chunks, each clipped to its own canvas.
    for (const p of this.summary?.props ?? []) {
      const px = p.tile.x - d.x, pz = p.tile.z - d.z;
      if (px < -1 || pz < -1 || px > d.size || pz > d.size) continue;
      paintProp(g, p.kind, px * PX, pz * PX);
    }
    this.paintTowns(g, d);
    return canvas;
  }

  /** Town names of the generated towns over one chunk image (a label that runs over a chunk edge
   * is painted into both chunks, each clipped to its own canvas). Stations are not painted into
   * the ground: the world draws each as its own figure with a badge, and the minimap and the world
   * map mark them with `STATION_ICONS`' colours.
   * @param {CanvasRenderingContext2D} g @param {ChunkData} d */
  paintTowns(g, d) {
    const towns = this.summary?.towns ?? [];
    const span = d.size + 16;
    for (const town of towns) {
      const cx = town.centre.x - d.x, cz = town.centre.z - d.z;
      if (cx < -span || cz < -span || cx > span || cz > span) continue;
      g.font = '700 22px system-ui, sans-serif';
      g.textAlign = 'center';
      g.lineWidth = 4;
      g.strokeStyle = 'rgba(0,0,0,0.6)';
      g.fillStyle = '#fff6d5';
      const lx = cx * PX + PX / 2, lz = (cz - town.safeRadius / 3 - 1) * PX;
      g.strokeText(town.name, lx, lz);
      g.fillText(town.name, lx, lz);
    }
  }
}
