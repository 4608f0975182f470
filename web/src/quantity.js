// How many: the amounts the make dialog, the bank and the trade screen send. The fixed choices are
// 1, 5, 10 and All; "X" is typed: a whole number, with `k` (thousands) or `m` (millions) as the
// classic games accept, from 1 to the limit the server holds that message to. The server checks
// again; this only keeps a player from sending what it would refuse.

/** The most times one `make` may ask for: the server's `MAX_MAKE_QUANTITY`
 * (crates/sim/src/making/mod.rs; a unit test compares them). */
export const MAX_MAKE_QUANTITY = 10_000;

/** The largest stack the bank or an inventory slot holds (2,147,483,647): the bound of a typed
 * withdraw, deposit or trade offer (the server takes as many as there are, at most that). */
export const MAX_STACK = 2_147_483_647;

/** The quantity choices, in the order the windows show them. */
export const QUANTITY_CHOICES = /** @type {const} */ ([1, 5, 10, 'x', 'all']);

/** @typedef {{ok: true, value: number}|{ok: false, error: string}} Amount */

/**
 * A typed amount, checked against 1..max.
 * @param {string} text what the player typed (`7`, `1,000`, `5k`, `2m`)
 * @param {number} max the largest allowed
 * @returns {Amount}
 */
export function parseAmount(text, max) {
  const error = `Enter a whole number from 1 to ${max.toLocaleString('en')}.`;
  const m = /^(\d+)([km]?)$/.exec(text.trim().toLowerCase().replace(/[,_ ]/g, ''));
  if (!m) return { ok: false, error };
  const value = Number(m[1]) * (m[2] === 'k' ? 1_000 : m[2] === 'm' ? 1_000_000 : 1);
  if (!Number.isSafeInteger(value) || value < 1 || value > max) return { ok: false, error };
  return { ok: true, value };
}

/**
 * How many a fixed choice (1, 5, 10, All) sends for a stack of `held`, capped there: the bank and
 * trades take a count (not `"all"`), and asking for more than there is takes what there is anyway.
 * @param {number|'all'} choice
 * @param {number} held
 * @returns {number}
 */
export function stackAmount(choice, held) {
  return choice === 'all' ? held : Math.min(choice, held);
}

/** The label of a choice: `5`, `X`, `All`. @param {number|'x'|'all'} choice */
export function choiceLabel(choice) {
  return choice === 'x' ? 'X' : choice === 'all' ? 'All' : String(choice);
}
