// The spellbook's model (CONTRACT.md section 11): spells from `/manifests/spells.json` into rows
// (level, runes with what the player carries, whether they can cast it now and why not), and the
// actions a choice sends. Pure, unit-tested; ui/spellbook.js shows it.

/**
 * @typedef {{id: string, name: string, level: number, type?: string, element?: string,
 *   baseMaxHit?: number, xp?: number, runes?: {itemId: string, quantity: number}[]}} Spell
 * @typedef {{spellId: string, name: string, level: number, element: string|null, maxHit: number|null,
 *   runes: {itemId: string, quantity: number, held: number, enough: boolean}[], canCast: boolean, why: string|null}} SpellRow
 */

/** The spells of a manifest (`{spells: [...]}` or a bare list), in level order. @param {any} manifest @returns {Spell[]} */
export function spellsOf(manifest) {
  const list = Array.isArray(manifest) ? manifest : Array.isArray(manifest?.spells) ? manifest.spells : [];
  return list.filter((s) => s && typeof s.id === 'string').sort((a, b) => (a.level ?? 1) - (b.level ?? 1));
}

/**
 * Rows of the spellbook for a player of magic level `level`, who holds `held(itemId)` of each rune;
 * `free` lists the runes their weapon stands in for (`providesInfiniteRunes`).
 * @param {Spell[]} spells @param {number} level @param {(itemId: string) => number} held @param {string[]} [free]
 * @param {(itemId: string) => string} [nameOf]
 * @returns {SpellRow[]}
 */
export function spellRows(spells, level, held, free = [], nameOf = (id) => id.replace(/_/g, ' ')) {
  return spells.map((s) => {
    const runes = (s.runes ?? []).map((r) => {
      const infinite = free.includes(r.itemId);
      const n = infinite ? Infinity : held(r.itemId);
      return { itemId: r.itemId, quantity: r.quantity, held: n, enough: n >= r.quantity };
    });
    const short = runes.find((r) => !r.enough);
    const why = (s.level ?? 1) > level ? `Needs Magic ${s.level}` : short ? `Needs ${short.quantity} ${nameOf(short.itemId)}` : null;
    return { spellId: s.id, name: s.name, level: s.level ?? 1, element: s.element ?? null, maxHit: s.baseMaxHit ?? null, runes, canCast: !why, why };
  });
}

/** The action casting a spell on a target sends. @param {string} spellId @param {string} targetId */
export function castAction(spellId, targetId) {
  return { action: 'cast', spellId, targetId };
}

/** The action setting (or, with null, clearing) the spell one's attacks use. @param {string|null} spellId */
export function autocastAction(spellId) {
  return { action: 'autocast', spellId };
}
