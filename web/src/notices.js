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
 * The death screen's contents: who killed the player, what they kept and lost (named), where the
 * gravestone is and until when, where they wake.
 * @param {{killerId?: string, killerName?: string, kept?: {itemId: string, quantity: number}[],
 *   lost?: {itemId: string, quantity: number}[], gravestone?: {x: number, z: number, expiresAt: number}|null,
 *   respawn?: {x: number, z: number}}} d
 * @param {(itemId: string) => string} nameOf
 * @param {number} [now] epoch ms, for how long the gravestone lasts
 */
export function deathSummary(d, nameOf, now = Date.now()) {
  const named = (list) => (list ?? []).map((i) => ({ itemId: i.itemId, quantity: i.quantity, name: nameOf(i.itemId) }));
  const g = d.gravestone ?? null;
  const minutes = g ? Math.max(0, Math.round((g.expiresAt - now) / 60000)) : 0;
  return {
    killer: d.killerName ?? null,
    kept: named(d.kept),
    lost: named(d.lost),
    gravestone: g ? { x: g.x, z: g.z, expiresAt: g.expiresAt, text: `Your gravestone stands at (${g.x}, ${g.z}) for about ${minutes} minute${minutes === 1 ? '' : 's'}: only you can take your items back from it.` } : null,
    respawn: d.respawn ?? null,
  };
}

/** A line of items: "Bronze Sword, 25 x Coins". @param {{name: string, quantity: number}[]} list */
export function itemLine(list) {
  return list.map((i) => (i.quantity > 1 ? `${i.quantity.toLocaleString('en')} x ${i.name}` : i.name)).join(', ');
}
