// The make dialog's model (CONTRACT.md section 9): `make:options` into the rows the dialog shows,
// each with why it cannot be made yet in words, and the `make` action a choice sends. The server
// decides what can be made; the reasons it gives (`level_too_low`, `missing_items`,
// `missing_tool`) are only put in words here, naming what is missing as the server finds it:
// the level first, then the tools in order, then the inputs and coins in order.

import { titleCase, skillName } from './dom.js';

/**
 * @typedef {{itemId: string, quantity: number}} RecipeItem
 * @typedef {{recipeId: string, skill: string|null, level: number, name: string, xp: number,
 *   inputs: RecipeItem[], tools: string[], consumables?: {itemId: string, uses: number}[],
 *   outputs: RecipeItem[], coins?: number, canMake: boolean, reason?: string}} MakeOption
 * @typedef {{targetId?: string, stationType?: string, slots?: number[]}} MakeContext
 * @typedef {{context: MakeContext, options: MakeOption[]}} MakeOptions
 * @typedef {{
 *   recipeId: string, name: string, key: number|null,
 *   picture: RecipeItem|null, level: string, xp: string,
 *   needs: string[], canMake: boolean, why: string|null
 * }} MakeRow
 * @typedef {{held: (itemId: string) => number, nameOf: (itemId: string) => string}} Holdings
 */

/** A name's plural, as the server's narration forms it (crates/sim/src/narration.rs `plural`).
 * @param {string} name */
export function plural(name) {
  if (name.endsWith('s')) return name;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(x|z|sh|ch)$/.test(name)) return `${name}es`;
  return `${name}s`;
}

/** "a hammer", "an iron bar". @param {string} name */
function withArticle(name) {
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/** How many of an item, in words: "a bronze bar", "2 bronze bars", "15 coins".
 * @param {number} quantity @param {string} name */
export function countOf(quantity, name) {
  const lower = name.toLowerCase();
  return quantity === 1 && !lower.endsWith('s') ? withArticle(lower) : `${quantity.toLocaleString('en')} ${plural(lower)}`;
}

/**
 * Why an option cannot be made, in words ("Needs Smithing 12", "Needs 2 bronze bars",
 * "Needs a hammer"); null when it can.
 * @param {MakeOption} o
 * @param {Holdings} h
 * @returns {string|null}
 */
export function whyNot(o, h) {
  if (o.canMake) return null;
  switch (o.reason) {
    case 'level_too_low':
      return o.skill ? `Needs ${skillName(o.skill)} ${o.level}` : `Needs level ${o.level}`;
    case 'missing_tool': {
      const consumables = (o.consumables ?? []).map((c) => c.itemId);
      const tools = [...o.tools, ...consumables];
      // The client's inventory may lag the server's by a tick: then the first tool is named.
      const tool = tools.find((t) => h.held(t) < 1) ?? tools[0];
      if (!tool) return 'Needs a tool';
      const name = h.nameOf(tool).toLowerCase();
      // Thread is used up a little at a time: "Needs thread", not "a thread".
      return `Needs ${consumables.includes(tool) && !o.tools.includes(tool) ? name : withArticle(name)}`;
    }
    case 'missing_items': {
      const needs = [...o.inputs, ...(o.coins ? [{ itemId: 'coins', quantity: o.coins }] : [])];
      const short = needs.find((i) => h.held(i.itemId) < i.quantity) ?? needs[0];
      return short ? `Needs ${countOf(short.quantity, h.nameOf(short.itemId))}` : 'Needs more items';
    }
    default:
      return o.reason ? titleCase(o.reason) : 'Cannot be made yet';
  }
}

/**
 * What one make takes, for the row's second line: inputs with their counts, then tools, thread
 * and coins ("1 × Bronze Bar", "Hammer", "Thread (1 per 5)", "15 coins").
 * @param {MakeOption} o @param {Holdings} h
 * @returns {string[]}
 */
function needsOf(o, h) {
  return [
    ...o.inputs.map((i) => `${i.quantity.toLocaleString('en')} × ${h.nameOf(i.itemId)}`),
    ...o.tools.map((t) => h.nameOf(t)),
    ...(o.consumables ?? []).map((c) => `${h.nameOf(c.itemId)} (1 per ${c.uses})`),
    ...(o.coins ? [`${o.coins.toLocaleString('en')} coins`] : []),
  ];
}

/** XP with at most one decimal: 12.5, 50. @param {number} xp */
function xpText(xp) {
  return `${Math.round(xp * 10) / 10} XP`;
}

/**
 * The dialog's rows, in the server's order; the first nine take the keys 1–9.
 * @param {MakeOption[]} options
 * @param {Holdings} h
 * @returns {MakeRow[]}
 */
export function makeRows(options, h) {
  return options.map((o, i) => ({
    recipeId: o.recipeId,
    name: o.name,
    key: i < 9 ? i + 1 : null,
    // What is made; a recipe with no output (a fire) shows what it uses.
    picture: o.outputs[0] ?? o.inputs[0] ?? null,
    level: o.skill ? `${skillName(o.skill)} ${o.level}` : `Level ${o.level}`,
    xp: xpText(o.xp),
    needs: needsOf(o, h),
    canMake: o.canMake,
    why: whyNot(o, h),
  }));
}

/**
 * The `player:action` a choice sends: the recipe, how many (a count or `"all"`), and the
 * station of the context (absent for an item used on an item).
 * @param {MakeOptions} offer
 * @param {string} recipeId
 * @param {number|'all'} quantity
 */
export function makeAction(offer, recipeId, quantity) {
  /** @type {{action: 'make', recipeId: string, quantity: number|'all', targetId?: string}} */
  const action = { action: 'make', recipeId, quantity };
  if (offer.context.targetId) action.targetId = offer.context.targetId;
  return action;
}

/**
 * A stored quantity choice (`1`, `5`, `10`, `all`, or a typed count) read back, or 1.
 * @param {string|null} stored
 * @param {number} max
 * @returns {number|'all'}
 */
export function storedQuantity(stored, max) {
  if (stored === 'all') return 'all';
  const n = Number(stored);
  return Number.isSafeInteger(n) && n >= 1 && n <= max ? n : 1;
}
