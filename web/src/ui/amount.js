// "Enter amount": the number entry behind every X (make X, withdraw X, deposit X, offer X). One at
// a time, over everything; Enter confirms, Escape or × cancels. What is typed is checked by
// `parseAmount` against the bound the caller gives (the server's).

import { h } from '../dom.js';
import { parseAmount, QUANTITY_CHOICES, choiceLabel, stackAmount, MAX_STACK } from '../quantity.js';

/** @type {HTMLElement|null} the prompt showing, if one is */
let current = null;

/** Closes the prompt, if one is open. @returns {boolean} whether one was */
export function closeAmountPrompt() {
  if (!current) return false;
  current.remove();
  current = null;
  return true;
}

/**
 * Asks for an amount; `onChoose` gets it once a valid one is entered.
 * @param {{title: string, max: number, onChoose: (n: number) => void}} opts
 */
export function amountPrompt({ title, max, onChoose }) {
  closeAmountPrompt();
  const input = /** @type {HTMLInputElement} */ (h('input.amount-input', {
    inputmode: 'numeric', autocomplete: 'off', 'aria-label': 'Amount', placeholder: `1–${max.toLocaleString('en')}`,
  }));
  const error = h('div.amount-error', { role: 'alert' });
  const confirm = () => {
    const amount = parseAmount(input.value, max);
    if ('error' in amount) {
      error.textContent = amount.error;
      input.select();
      return;
    }
    closeAmountPrompt();
    onChoose(amount.value);
  };
  const el = h('form.amount', { role: 'dialog', 'aria-label': title, onsubmit: (/** @type {Event} */ ev) => { ev.preventDefault(); confirm(); } },
    h('header', null, h('h2', null, title), h('button.close', { type: 'button', 'aria-label': 'Cancel', onclick: closeAmountPrompt }, '×')),
    h('label.amount-label', null, `Enter amount (1 to ${max.toLocaleString('en')}; 5k is 5,000):`),
    h('div.row', null, input, h('button.amount-ok', { type: 'submit' }, 'OK')),
    error);
  // The game's keys (panels, Escape closing windows, digits choosing) must not act while typing.
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') closeAmountPrompt();
    ev.stopPropagation();
  });
  document.body.append(el);
  current = el;
  input.focus();
}

/**
 * The menu entries `<verb>-1`, `-5`, `-10`, `-X`, `-All` for a stack of `held` (the bank's
 * withdraw and deposit, a trade's offer): each sends a count (the wire takes no "all"), capped at
 * what is held; X asks for one, bounded by the largest stack.
 * @param {string} verb @param {string} target the item's name
 * @param {number} held @param {(n: number) => void} send
 * @returns {{label: string, target: string, run: () => void}[]}
 */
export function amountEntries(verb, target, held, send) {
  return QUANTITY_CHOICES.map((c) => ({
    label: `${verb}-${choiceLabel(c)}`,
    target,
    run: () => (c === 'x'
      ? amountPrompt({ title: `${verb} how many ${target}?`, max: MAX_STACK, onChoose: send })
      : send(stackAmount(c, held))),
  }));
}
