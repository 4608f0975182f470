// The emotes tab (Y): the emotes of `GET /api/v1/emotes` (CONTRACT §14), each a button that sends
// `player:emote`; everyone in view is told (`player:emote`, shown in the chat box by game.js).

import { h, fill, titleCase } from '../dom.js';
import { fetchOnce } from '../api.js';

/** @typedef {import('../game.js').Game} Game */

/** The emotes the server offers when its list cannot be read. */
const FALLBACK = ['wave', 'bow', 'yes', 'no', 'dance', 'cheer', 'cry', 'laugh', 'think', 'shrug', 'clap', 'salute'];

/** @param {Game} game */
export function emotesPanel(game) {
  const list = h('div.emotes');
  const render = (/** @type {string[]} */ emotes) => fill(list, ...emotes.map((id) =>
    h('button.small.emote', { 'data-emote': id, title: `Emote: ${id}`, onclick: () => game.send('player:emote', { emote: id }) }, titleCase(id))));
  render(FALLBACK);
  fetchOnce('/api/v1/emotes').then((d) => Array.isArray(d?.emotes) && d.emotes.length && render(d.emotes)).catch(() => {});
  return h('section.panel#panel-emotes', null, h('h2', null, 'Emotes'), list);
}
