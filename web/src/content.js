// Content the client needs to label and offer actions: items (type, slot, food, examine) and NPCs
// (attackable, dialogue, services), read once from the server's manifests (/manifests/…, the same
// files agents read). Missing files leave the index smaller; the server still decides everything.

import { fetchOnce } from './api.js';

// `fallback` is the server's: the bundled definitions of items it plays that the other files lack
// (the reference world's starting food, the runes its magic names), empty when none are missing.
const ITEM_FILES = ['ammunition', 'armor', 'misc', 'resources', 'tools', 'weapons', 'fallback'];

/**
 * @typedef {{id: string, name: string, type?: string, equipSlot?: string, healAmount?: number,
 *   prayerXp?: number, value?: number, examine?: string, description?: string, stackable?: boolean}} ItemDef
 * @typedef {{id: string, name: string, description?: string, combat?: {attackable?: boolean},
 *   dialogue?: object, services?: {types?: string[]}}} NpcDef
 */

/** @type {Map<string, ItemDef>} */
export const items = new Map();
/** @type {Map<string, NpcDef>} */
export const npcs = new Map();

/** Loads the manifests (once per page). */
export async function loadContent() {
  const files = await Promise.allSettled([
    ...ITEM_FILES.map((f) => fetchOnce(`/manifests/items/${f}.json`)),
    fetchOnce('/manifests/npcs.json'),
  ]);
  files.slice(0, ITEM_FILES.length).forEach((r) => {
    if (r.status === 'fulfilled' && Array.isArray(r.value)) for (const i of r.value) items.set(i.id, i);
  });
  const n = files[ITEM_FILES.length];
  if (n.status === 'fulfilled') {
    const list = Array.isArray(n.value) ? n.value : n.value.npcs ?? [];
    for (const d of list) npcs.set(d.id, d);
  }
}

/** What clicking an inventory item does first. @param {string} itemId */
export function itemVerbs(itemId) {
  const d = items.get(itemId);
  /** @type {{label: string, op: string}[]} */
  const verbs = [];
  if (d?.healAmount) verbs.push({ label: 'Eat', op: 'eat' });
  if (d?.prayerXp) verbs.push({ label: 'Bury', op: 'use' });
  if (d?.equipSlot) verbs.push({ label: d.type === 'weapon' || d.type === 'tool' ? 'Wield' : 'Wear', op: 'equip' });
  if (itemId === 'logs' || itemId.endsWith('_logs')) verbs.push({ label: 'Light', op: 'light' });
  verbs.push({ label: 'Use', op: 'useOn' }, { label: 'Drop', op: 'drop' }, { label: 'Examine', op: 'examine' });
  return verbs;
}
