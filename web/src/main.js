// Entry point: the sign-in screen, the character choice, then the game. Pages are chosen by path
// from one table: `/` plays, `/dashboard` watches and steers the account's agents
// (dashboard/page.js, loaded only there); both share the session (api.js) and the sign-in.

import { h, fill } from './dom.js';
import { Auth, ApiError, request, fetchOnce } from './api.js';
import { loadContent } from './content.js';
import { Game } from './game.js';
import { Terrain } from './terrain.js';
import { mountHud } from './ui/hud.js';

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const auth = new Auth();
/** Timings for BENCHMARKS.md, read by the browser tests. */
const marks = /** @type {any} */ (window).__wayfarer = { firstWorldMs: 0, game: /** @type {Game|null} */ (null), renderer: null };

/** @type {Record<string, () => Promise<void>>} */
const PAGES = {
  '/': play,
  '/dashboard': dashboard,
};

/** The agent dashboard: signed in with the same session as the game (the token in localStorage). */
async function dashboard() {
  const config = await fetchOnce('/api/config');
  if (!auth.session) return signIn(config, '', dashboard);
  document.title = 'Agents · Wayfarer';
  fill(app, h('div.boot', null, 'Loading your agents…'));
  const { mountDashboard } = await import('./dashboard/page.js');
  await mountDashboard(app, auth, {
    signedOut: (notice) => {
      auth.signOut();
      signIn(config, notice ?? '', dashboard);
    },
  });
}

async function play() {
  // The client's config first: tick length, whether an identity provider is set up.
  const config = await fetchOnce('/api/config');
  if (!auth.session) return signIn(config);
  let characters;
  try {
    characters = await auth.call('/api/character');
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
      auth.signOut();
      return signIn(config, e.status === 403 ? e.message : '');
    }
    throw e;
  }
  return chooseCharacter(config, characters);
}

/**
 * @param {any} config @param {string} [notice]
 * @param {() => Promise<void>} [next] the page to go on to once signed in
 */
function signIn(config, notice = '', next = play) {
  const name = /** @type {HTMLInputElement} */ (h('input', { name: 'name', placeholder: 'Guest name (optional)', maxlength: 32, autocomplete: 'off' }));
  const error = h('p.error', { role: 'alert' }, notice);
  const guest = async (ev) => {
    ev.preventDefault();
    try {
      await auth.guest(name.value.trim() || undefined);
      await next();
    } catch (e) {
      fill(error, String(/** @type {any} */ (e).message ?? e));
    }
  };
  // The identity provider's own page returns its token in the fragment (#idp_token=…): exchange it.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const idpToken = fragment.get('idp_token');
  if (idpToken && config.idpAppId) {
    history.replaceState(null, '', location.pathname);
    auth.idp(idpToken).then(next, (e) => fill(error, e.message));
  }
  const idpBox = config.idpAppId
    ? h('form.idp', { onsubmit: async (ev) => {
        ev.preventDefault();
        const t = /** @type {HTMLInputElement} */ (/** @type {HTMLFormElement} */ (ev.target).elements.namedItem('token')).value.trim();
        try { await auth.idp(t); await next(); } catch (e) { fill(error, /** @type {any} */ (e).message); }
      } },
      h('p.hint', null, `Signed in with the identity provider (app ${config.idpAppId})? Paste its token:`),
      h('input', { name: 'token', placeholder: 'Identity provider token', autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Sign in'))
    : null;
  fill(app, h('main.title-screen', null,
    h('div.card', null,
      h('h1', null, 'Wayfarer'),
      h('p.tag', null, 'A shared world of woods, hills and wastes.'),
      h('form.guest', { onsubmit: guest }, name, h('button.primary', { type: 'submit' }, next === play ? 'Play as guest' : 'Sign in as guest')),
      idpBox, error)));
  name.focus();
}

/** @param {any} config @param {{characters: any[], activeCharacterId: string|null}} list */
function chooseCharacter(config, list) {
  const name = /** @type {HTMLInputElement} */ (h('input', { name: 'character', placeholder: 'Character name', maxlength: 12, pattern: '[A-Za-z0-9]+( [A-Za-z0-9]+)*', required: true, autocomplete: 'off' }));
  const error = h('p.error', { role: 'alert' });
  const pick = async (c) => {
    try {
      await auth.call(`/api/character/${c.id}/select`, { method: 'POST', body: {} });
      await enter(config, c);
    } catch (e) {
      fill(error, /** @type {any} */ (e).message);
    }
  };
  const create = async (ev) => {
    ev.preventDefault();
    try {
      const r = await auth.call('/api/character', { body: { name: name.value.trim() } });
      await pick(r.character);
    } catch (e) {
      fill(error, /** @type {any} */ (e).message);
    }
  };
  fill(app, h('main.title-screen', null,
    h('div.card', null,
      h('h1', null, 'Choose your wayfarer'),
      h('div.characters', null, ...list.characters.map((c) => h('button.character', { onclick: () => pick(c), 'data-name': c.name },
        h('b', null, c.name), h('small', null, `Combat ${c.combatLevel}`)))),
      list.characters.length < 3 ? h('form.create', { onsubmit: create }, name, h('button.primary', { type: 'submit' }, 'Create')) : null,
      error,
      h('div.links', null,
        h('a.link', { href: '/dashboard' }, 'Your agents'),
        h('button.link', { onclick: () => { auth.signOut(); play(); } }, 'Sign out')))));
  if (!list.characters.length) name.focus();
}

/** @param {any} config @param {{id: string, name: string}} character */
async function enter(config, character) {
  fill(app, h('div.boot', null, 'Entering the world…'));
  const terrain = new Terrain();
  await Promise.all([terrain.load(), loadContent()]);
  const game = new Game(auth, character, config.tickMs ?? 600);
  marks.game = game;
  game.on('firstWorld', () => {
    // Time to the first drawn world: the frame after the first world:update.
    requestAnimationFrame(() => { marks.firstWorldMs = performance.now(); });
  });
  const hud = mountHud(app, game, terrain, () => {
    game.socket.stop();
    auth.signOut();
    location.reload();
  });
  marks.renderer = hud.renderer;
  game.start();
}

const page = PAGES[location.pathname] ?? play;
page().catch((e) => {
  fill(app, h('main.title-screen', null, h('div.card', null, h('h1', null, 'Something went wrong'), h('p.error', null, String(e?.message ?? e)),
    h('button.primary', { onclick: () => location.reload() }, 'Try again'))));
});

export { request };
