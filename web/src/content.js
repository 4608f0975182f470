// Content the client needs to label and offer actions: items (type, slot, food, examine) and NPCs
// (attackable, dialogue, services), read once from the server's manifests (/manifests/…, the same
// files agents read). Missing files leave the index smaller; the server still decides everything.

import { fetchOnce } from './api.js';
import { itemLook } from './icons.js';

/** The pictures of food (icons.js shapes). */
const FOOD_SHAPES = new Set(['fish', 'smallfish', 'shrimp', 'lobster', 'swordfish', 'shark', 'meat', 'bread']);

/**
 * Whether an item the served files do not define looks like something to eat: the server plays
 * the bundled food where the content has none that heals (the reference items: the kit's shrimp
 * and bread), and those definitions are not among the files served, so without this the starting
 * food of the reference world offered no Eat. Raw and burnt food is not eaten. The server decides.
 * @param {string} itemId
 */
export function looksEdible(itemId) {
  return !/^(raw|burnt)_/.test(itemId) && FOOD_SHAPES.has(itemLook(itemId).shape);
}

const ITEM_FILES = ['ammunition', 'armor', 'misc', 'resources', 'tools', 'weapons'];

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
  if (d ? d.healAmount : looksEdible(itemId)) verbs.push({ label: 'Eat', op: 'eat' });
  if (d?.prayerXp) verbs.push({ label: 'Bury', op: 'use' });
  if (d?.equipSlot) verbs.push({ label: d.type === 'weapon' || d.type === 'tool' ? 'Wield' : 'Wear', op: 'equip' });
  if (itemId === 'logs' || itemId.endsWith('_logs')) verbs.push({ label: 'Light', op: 'light' });
  verbs.push({ label: 'Use', op: 'useOn' }, { label: 'Drop', op: 'drop' }, { label: 'Examine', op: 'examine' });
  return verbs;
}
