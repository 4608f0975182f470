// The client's view of the world, built only from server messages. Pure functions over plain
// objects so the unit tests (web/test) can drive them without a browser.

/**
 * @typedef {'player'|'npc'|'resource'|'groundItem'|'obstacle'} EntityKind
 * @typedef {{id: string, kind: EntityKind, x: number, z: number, name?: string, health?: number,
 *   maxHealth?: number, itemId?: string, quantity?: number, resourceType?: string,
 *   depleted?: boolean, typeId?: string, worn?: Record<string, string>, px?: number, pz?: number,
 *   movedAt?: number, open?: boolean, side?: number, quest?: string}} Entity
 * @typedef {{id: string, x: number, z: number}} Moved
 * @typedef {{id: string, health?: number, maxHealth?: number, name?: string, quantity?: number,
 *   depleted?: boolean, worn?: Record<string, string>, open?: boolean, quest?: string}} Changed
 * @typedef {{tick: number, added?: Entity[], moved?: Moved[], changed?: Changed[],
 *   removed?: string[]}} WorldUpdate
 * @typedef {{tick: number, entities: Map<string, Entity>}} World
 */

/** @returns {World} */
export function emptyWorld() {
  return { tick: 0, entities: new Map() };
}

/**
 * Applies one `world:update` in the server's order: removals first (an id can be removed and
 * re-added in one tick when an entity leaves and comes back), then additions, moves, changes.
 * A move or change for an id the client does not hold is ignored rather than inventing an entity
 * with missing fields. `now` (ms) stamps moves so the renderer can slide from the old tile.
 * @param {World} world
 * @param {WorldUpdate} update
 * @param {number} [now]
 * @returns {World}
 */
export function applyWorldUpdate(world, update, now = 0) {
  const entities = world.entities;
  for (const id of update.removed ?? []) entities.delete(id);
  for (const e of update.added ?? []) {
    entities.set(e.id, { ...e, px: e.x, pz: e.z, movedAt: now });
  }
  for (const m of update.moved ?? []) {
    const e = entities.get(m.id);
    if (!e) continue;
    e.px = e.x;
    e.pz = e.z;
    e.x = m.x;
    e.z = m.z;
    e.movedAt = now;
  }
  for (const c of update.changed ?? []) {
    const e = entities.get(c.id);
    if (!e) continue;
    for (const [k, v] of Object.entries(c)) {
      if (k !== 'id' && v !== undefined && v !== null) /** @type {any} */ (e)[k] = v;
    }
  }
  if (update.tick > world.tick) world.tick = update.tick;
  return world;
}

/**
 * Where an entity is drawn at `now`: sliding from its previous tile to its current one over one
 * tick, so 2-tile steps do not jump.
 * @param {Entity} e
 * @param {number} now
 * @param {number} tickMs
 * @returns {{x: number, z: number}}
 */
export function drawnPosition(e, now, tickMs) {
  const t = Math.min(1, Math.max(0, (now - (e.movedAt ?? 0)) / tickMs));
  const px = e.px ?? e.x;
  const pz = e.pz ?? e.z;
  return { x: px + (e.x - px) * t, z: pz + (e.z - pz) * t };
}

/**
 * The entities nearest a tile (within `radius`, Chebyshev), nearest first: what is under a click.
 * @param {World} world
 * @param {number} x
 * @param {number} z
 * @param {number} [radius]
 * @returns {Entity[]}
 */
export function entitiesAt(world, x, z, radius = 0) {
  /** @type {Entity[]} */
  const out = [];
  for (const e of world.entities.values()) {
    const d = Math.max(Math.abs(e.x - x), Math.abs(e.z - z));
    if (d <= radius) out.push(e);
  }
  return out.sort(
    (a, b) =>
      Math.max(Math.abs(a.x - x), Math.abs(a.z - z)) - Math.max(Math.abs(b.x - x), Math.abs(b.z - z)),
  );
}
