// The chat box: local, global and private channels, and the game's narration to this player
// (channel `game`, CONTRACT.md section 9). Enter focuses the input from anywhere; "/g text" speaks
// globally, "/w name text" (or "@name text") whispers; the tab buttons filter, and the chosen tab
// is kept across reloads.

import { h } from '../dom.js';
import { getPref, setPref } from '../prefs.js';

/** @typedef {import('../game.js').Game} Game */

/**
 * What a typed line means.
 * A whisper's recipient is the first word, or the first two when they end in `:` or `,`
 * (`@Ann Lee: hi`) or name someone the client knows (`known`: friends, players in view), as names
 * may hold one space: `@Gwen meet at the bank` whispers "meet at the bank" to Gwen.
 * @param {string} line
 * @param {string} channel the selected tab
 * @param {Iterable<string>} [known] player names the client knows
 * @returns {{text: string, channel?: string, to?: string}|null}
 */
export function parseChatLine(line, channel, known = []) {
  const text = line.trim();
  if (!text) return null;
  let m = /^\/g(?:lobal)?\s+(.+)$/i.exec(text);
  if (m) return { text: m[1], channel: 'global' };
  m = /^(?:\/w(?:hisper)?\s+|@\s*)(.+)$/i.exec(text);
  if (m) {
    const rest = m[1];
    const marked = /^([A-Za-z0-9]+(?: [A-Za-z0-9]+)?)[:,]\s*(.+)$/.exec(rest);
    if (marked) return { text: marked[2], channel: 'private', to: marked[1] };
    const two = /^([A-Za-z0-9]+ [A-Za-z0-9]+)\s+(.+)$/.exec(rest);
    const names = new Set([...known].map((n) => n.toLowerCase()));
    if (two && names.has(two[1].toLowerCase())) return { text: two[2], channel: 'private', to: two[1] };
    const one = /^([A-Za-z0-9]+)\s+(.+)$/.exec(rest);
    if (one) return { text: one[2], channel: 'private', to: one[1] };
  }
  if (channel === 'global') return { text, channel: 'global' };
  return { text, channel: 'local' };
}

/** The filter tabs, in order. */
export const CHAT_TABS = ['all', 'game', 'local', 'global', 'private'];
const TAB_KEY = 'wayfarer.chatTab';
const FOLD_KEY = 'wayfarer.chatFolded';

/**
 * Whether a line of `channel` shows under `tab`: All shows everything; each other tab its own
 * channel and the server's notices (`system`: refusals, logins), which are never filtered out.
 * @param {string} tab @param {string} channel
 */
export function chatVisible(tab, channel) {
  return tab === 'all' || channel === tab || channel === 'system';
}

/** A stored tab read back; an unknown one (or none) is All. @param {string|null} stored */
export function storedTab(stored) {
  return stored && CHAT_TABS.includes(stored) ? stored : 'all';
}

/** @param {Game} game */
export function chatBox(game) {
  let tab = storedTab(getPref(TAB_KEY));
  // The server echoes a whisper to its sender without the recipient's name: the names sent are
  // kept in order and matched to the echoes as they come back.
  /** @type {string[]} */
  const whispersSent = [];
  const log = h('div.chat-log', { role: 'log', 'aria-live': 'polite' });
  const input = /** @type {HTMLInputElement} */ (h('input.chat-input', { maxlength: 200, placeholder: 'Press Enter to chat — /g global, @name private', 'aria-label': 'Chat message' }));
  const tabs = CHAT_TABS.map((t) =>
    h(`button.chat-tab${t === tab ? '.on' : ''}`, { 'data-tab': t, onclick: () => {
      tab = t;
      setPref(TAB_KEY, t);
      tabs.forEach((b) => b.classList.toggle('on', b.dataset.tab === t));
      render();
    } }, t[0].toUpperCase() + t.slice(1)));
  game.on('chat', (m) => {
    if (m.channel === 'private' && m.fromId === game.selfId && m.toName === undefined) m.toName = whispersSent.shift() ?? '';
  });
  const line = (m) => {
    const cls = `msg.ch-${m.channel}`;
    const from = m.channel === 'system' || m.channel === 'game' ? null : h('span.from', null, m.channel === 'private' ? (m.fromId === game.selfId ? `To ${m.toName ?? ''}: ` : `From ${m.fromName}: `) : `${m.fromName}: `);
    return h(`div.${cls}`, null, from, m.text);
  };
  const visible = (m) => chatVisible(tab, m.channel);
  const render = () => {
    log.replaceChildren(...game.chat.filter(visible).slice(-80).map(line));
    log.scrollTop = log.scrollHeight;
  };
  game.on('chat', (m) => {
    if (!visible(m)) return;
    log.append(line(m));
    while (log.childElementCount > 80) log.firstElementChild?.remove();
    log.scrollTop = log.scrollHeight;
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      const known = [...game.friends.friends.map((f) => f.name),
        ...[...game.world.entities.values()].filter((e) => e.kind === 'player' && e.name).map((e) => /** @type {string} */ (e.name))];
      const parsed = parseChatLine(input.value, tab, known);
      if (parsed) {
        if (parsed.to) whispersSent.push(parsed.to);
        game.send('player:chat', parsed);
      }
      input.value = '';
      input.blur();
    } else if (ev.key === 'Escape') input.blur();
    ev.stopPropagation();
  });
  window.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && document.activeElement?.tagName !== 'INPUT' && document.activeElement?.tagName !== 'BUTTON') {
      input.focus();
      ev.preventDefault();
    }
  });
  // The log folds away (a phone starts with it folded): only the tabs and the input stay.
  const fold = h('button.chat-fold', { 'aria-label': 'Hide the chat log', title: 'Hide or show the chat log' });
  const el = h('section.chat', null, h('div.chat-tabs', null, ...tabs, fold), log, input);
  const collapse = (/** @type {boolean} */ on, save = true) => {
    el.classList.toggle('folded', on);
    fold.textContent = on ? '▴' : '▾';
    fold.setAttribute('aria-label', on ? 'Show the chat log' : 'Hide the chat log');
    fold.setAttribute('aria-expanded', String(!on));
    if (save) setPref(FOLD_KEY, String(on));
    if (!on) log.scrollTop = log.scrollHeight;
  };
  fold.addEventListener('click', () => collapse(!el.classList.contains('folded')));
  const stored = getPref(FOLD_KEY);
  // Only a choice the player made is kept: otherwise each screen starts with its own default.
  collapse(stored === null ? window.matchMedia('(max-width: 760px)').matches : stored === 'true', false);
  return { el, collapse, whisper: (name) => { input.value = name.includes(' ') ? `@${name}: ` : `@${name} `; input.focus(); } };
}
