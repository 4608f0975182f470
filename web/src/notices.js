// What the zone banner and the death screen say (CONTRACT.md section 10), from the server's
// `zone:enter` and `player:death`: pure functions, unit-tested; ui/notices.js shows them.

/**
 * The banner for a zone entered: its name, whether it is safe, and a warning for a PvP area.
 * @param {{areaId?: string, name?: string, safe?: boolean, pvp?: boolean}} d
 * @returns {{title: string, subtitle: string, pvp: boolean, safe: boolean, warning: string|null}}
 */
export function zoneNotice(d) {
  const title = d.name || (d.areaId ?? 'the wilds').replace(/_/g, ' ');
  const pvp = !!d.pvp;
  const safe = !!d.safe && !pvp;
  const subtitle = pvp ? 'PvP area: other players can attack you here' : safe ? 'Safe area' : 'Unprotected area';
  const warning = pvp ? `Warning: ${title} is a PvP area. Other players can attack you, and if you die here you keep only your 3 most valuable items.` : null;
  return { title, subtitle, pvp, safe, warning };
}

/**
 * The name of the smallest area holding a tile (areas of GET /api/map; a town inside a region is
 * named rather than the region), or null outside every area.
 * @param {{name: string, min: {x: number, z: number}, max: {x: number, z: number}}[]|undefined} areas
 * @param {number} x @param {number} z
 */
export function areaAt(areas, x, z) {
  let best = null, size = Infinity;
  for (const a of areas ?? []) {
    if (x < a.min.x || x > a.max.x || z < a.min.z || z > a.max.z) continue;
    const s = (a.max.x - a.min.x + 1) * (a.max.z - a.min.z + 1);
    if (s < size) { best = a.name; size = s; }
  }
  return best;
}

/**
 * The death screen's contents: who killed the player, what they kept and lost (named), where the
 * gravestone is and until when, or who may take what fell (docs/mechanics.md, "Player death": in a
 * PvP area a player killer has it for 60 s, then anyone; killed by anything else, anyone at once;
 * gone after 3 minutes), and where they wake.
 * @param {{killerId?: string|null, killerName?: string|null, kept?: {itemId: string, quantity: number}[],
 *   lost?: {itemId: string, quantity: number}[], gravestone?: {x: number, z: number, expiresAt: number}|null,
 *   respawn?: {x: number, z: number}}} d
 * @param {(itemId: string) => string} nameOf
 * @param {number} [now] epoch ms, for how long the gravestone lasts
 * @param {{killerIsPlayer?: boolean, areaName?: (x: number, z: number) => string|null}} [opts]
 */
export function deathSummary(d, nameOf, now = Date.now(), opts = {}) {
  const named = (list) => (list ?? []).map((i) => ({ itemId: i.itemId, quantity: i.quantity, name: nameOf(i.itemId) }));
  const g = d.gravestone ?? null;
  const minutes = g ? Math.max(0, Math.round((g.expiresAt - now) / 60000)) : 0;
  const lost = named(d.lost);
  const fell = !g && lost.length
    ? (opts.killerIsPlayer
      ? 'What you lost lies where you fell: your killer\'s for 60 seconds, then anyone\'s, gone after 3 minutes.'
      : 'What you lost lies where you fell for anyone to take, gone after 3 minutes.')
    : null;
  const r = d.respawn ?? null;
  const area = r && opts.areaName ? opts.areaName(r.x, r.z) : null;
  return {
    killer: d.killerName ?? null,
    kept: named(d.kept),
    lost,
    gravestone: g ? { x: g.x, z: g.z, expiresAt: g.expiresAt, text: `Your gravestone stands at (${g.x}, ${g.z}) for about ${minutes} minute${minutes === 1 ? '' : 's'}: only you can take your items back from it.` } : null,
    fell,
    respawn: r,
    wake: r ? (area ? `You wake in ${area} (${r.x}, ${r.z}).` : `You wake at (${r.x}, ${r.z}).`) : null,
  };
}

/** A line of items: "Bronze Sword, 25 x Coins". @param {{name: string, quantity: number}[]} list */
export function itemLine(list) {
  return list.map((i) => (i.quantity > 1 ? `${i.quantity.toLocaleString('en')} x ${i.name}` : i.name)).join(', ');
}

/**
 * A refusal's message (the server's `error`, lower-case as error texts are: "you need level 5
 * Attack to use Iron Sword") as the chat shows it: a capital first letter and a full stop. Text
 * that already ends in punctuation keeps it; nothing else changes (item and player names keep
 * their case).
 * @param {string} text
 */
export function asSentence(text) {
  const t = text.trim();
  if (!t) return t;
  const first = t[0].toUpperCase() + t.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}
