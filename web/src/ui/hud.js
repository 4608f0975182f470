// The playing screen: the world canvas with its input (click, right click, hover text, wheel and
// pinch zoom), the minimap with its orbs, the top bar with the socket state, the side panel tabs,
// the chat box, the windows, the world map (M), the zone banner and the death screen. Keys:
// controls.js KEY_BINDINGS.

import { h, fill } from '../dom.js';
import { Renderer } from '../render.js';
import { MINI_PX, STATION_ICONS } from '../terrain.js';
import { drawPoiIcon } from '../place.js';
import { questTracker, rewardScroll, helpWindow } from './guide.js';
import { WorldMap } from '../worldmap.js';
import { ContextMenu, optionsAt, entitiesUnder } from './menu.js';
import { inventoryPanel, equipmentPanel, skillsPanel, questsPanel, prayerPanel, friendsPanel } from './panels.js';
import { bankWindow, shopWindow, tradeWindow, dialogueWindow } from './windows.js';
import { makeWindow } from './make.js';
import { chatBox } from './chat.js';
import { effects } from './effects.js';
import { combatPanel, settingsPanel, orbs } from './controls.js';
import { zoneBanner, deathScreen } from './notices.js';
import { hoverLine } from './hover.js';
import { spellbookPanel } from './spellbook.js';
import { emotesPanel } from './emotes.js';
import { duelWindow } from './duel.js';
import { getPref } from '../prefs.js';
import { areaAt } from '../notices.js';

const TABS = [
  { id: 'inventory', key: 'i', label: 'Inventory' },
  { id: 'equipment', key: 'e', label: 'Worn' },
  { id: 'skills', key: 'k', label: 'Skills' },
  { id: 'quests', key: 'q', label: 'Quests' },
  { id: 'prayer', key: 'p', label: 'Prayer' },
  { id: 'friends', key: 'f', label: 'Friends' },
  { id: 'combat', key: 'c', label: 'Combat' },
  { id: 'spellbook', key: 'b', label: 'Magic' },
  { id: 'emotes', key: 'y', label: 'Emotes' },
  { id: 'settings', key: 'o', label: 'Settings' },
];

const STATE_LABELS = { connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…', closed: 'Disconnected' };

/**
 * @param {HTMLElement} root
 * @param {import('../game.js').Game} game
 * @param {import('../terrain.js').Terrain} terrain
 * @param {() => void} signOut
 */
export function mountHud(root, game, terrain, signOut) {
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas.world', { 'aria-label': 'Game world', tabindex: 0 }));
  const minimap = /** @type {HTMLCanvasElement} */ (h('canvas.minimap', { width: 168, height: 168, 'aria-label': 'Minimap' }));
  const renderer = new Renderer(canvas, terrain);
  game.areaName = (x, z) => areaAt(terrain.summary?.areas, x, z);
  renderer.showNames = getPref('wayfarer.names') !== 'false';
  const logOut = () => {
    // Back to the character list, still signed in.
    game.socket.stop();
    location.reload();
  };
  const menu = new ContextMenu();
  const openMenu = (x, y, entries, title) => menu.open(x, y, entries, title);
  const chat = chatBox(game);

  const status = h('span.net', { 'data-state': game.socketState, role: 'status' });
  const useHint = h('div.use-hint', { hidden: true });
  const hover = h('div.hover-text', { 'aria-live': 'off' });
  const panels = {
    inventory: inventoryPanel(game, openMenu),
    equipment: equipmentPanel(game),
    skills: skillsPanel(game),
    quests: questsPanel(game),
    prayer: prayerPanel(game),
    friends: friendsPanel(game, chat.whisper),
    combat: combatPanel(game),
    spellbook: spellbookPanel(game),
    emotes: emotesPanel(game),
    settings: settingsPanel(game, { renderer, signOut, logOut, collapseChat: chat.collapse }),
  };
  let current = 'inventory';
  const tabButtons = TABS.map((t) => h('button.tab', { 'data-tab': t.id, title: `${t.label} (${t.key.toUpperCase()})`, onclick: () => show(t.id) }, t.label));
  const panelHost = h('div.panel-host');
  const show = (id) => {
    current = id;
    tabButtons.forEach((b) => b.classList.toggle('on', b.dataset.tab === id));
    fill(panelHost, panels[id]);
  };
  show('inventory');

  const top = h('header.topbar', null,
    h('span.brand', null, 'Wayfarer'),
    h('span.who', null, game.character.name), status,
    h('span.spacer'),
    h('button.small.stop', { title: 'Stop walking and what you are doing (X)', onclick: () => game.stop() }, 'Stop'),
    h('button.small.reconnect', { title: 'Drop and reconnect the game socket', onclick: () => game.socket.drop() }, 'Reconnect'),
    h('a.small.agents-link', { href: '/dashboard', target: '_blank', rel: 'noopener', title: 'Your agents: the dashboard, in a new tab' }, 'Agents'),
    h('button.small.logout', { title: 'Log out to the character list', onclick: logOut }, 'Log out'));
  const worldMap = new WorldMap(terrain);
  const help = helpWindow();
  const tracker = questTracker(game, renderer, terrain);
  // Local chat over the speaker's head as well as in the chat box.
  game.on('chat', (m) => { if (m.channel === 'local' && m.fromId) renderer.say(m.fromId, m.text, performance.now()); });
  const toggleMap = () => worldMap.toggle({ x: Math.round(renderer.cam.x), z: Math.round(renderer.cam.z) });
  // The world map has a button too: a phone has no M key.
  const mapButton = h('button.small.map-open', { title: 'World map (M)', onclick: toggleMap }, 'Map');
  const helpButton = h('button.small.help-open', { title: 'How to play (H)', onclick: help.toggle }, '?');
  const side = h('aside.side', null, h('div.map-box', null, minimap, orbs(game), mapButton, helpButton), h('nav.tabs', { role: 'tablist' }, ...tabButtons), panelHost);
  const stage = h('div.stage', null, canvas, hover, tracker, useHint, effects(game), zoneBanner(game), bankWindow(game, openMenu), shopWindow(game, openMenu), tradeWindow(game), duelWindow(game), dialogueWindow(game), makeWindow(game), deathScreen(game), rewardScroll(game), help.el, chat.el);
  root.replaceChildren(h('div.game', null, top, stage, side));

  const renderStatus = () => {
    status.dataset.state = game.socketState;
    fill(status, h('i'), STATE_LABELS[game.socketState] ?? game.socketState, game.socketDetail ? h('small', null, ` ${game.socketDetail}`) : '');
  };
  game.on('socket', renderStatus);
  game.on('hit', (d) => {
    renderer.splats.push({ id: d.targetId, damage: d.damage, at: performance.now() });
    renderer.motion.hit(d, performance.now(), game.world.entities.get(d.targetId));
  });
  game.on('work', (w) => (w ? renderer.motion.begin(w.kind, w.targetId, performance.now()) : renderer.motion.stop()));
  game.on('xp', () => renderer.motion.gained(performance.now()));
  game.on('inventory', () => renderer.motion.gained(performance.now()));
  game.on('equipment', () => { renderer.equipment = game.equipment; });
  game.on('use', () => {
    useHint.hidden = !game.pendingUse && !game.pendingCast;
    if (game.pendingUse) fill(useHint, `Use ${game.pendingUse.name} -> … (Esc to cancel)`);
    else if (game.pendingCast) fill(useHint, `Cast ${game.pendingCast.name} -> … (Esc to cancel)`);
  });
  renderStatus();

  // Mouse and touch: left click runs the first option, right click (or long press) opens the menu.
  const tileAt = (ev) => {
    const r = canvas.getBoundingClientRect();
    return renderer.toTile(ev.clientX - r.left, ev.clientY - r.top);
  };
  canvas.addEventListener('click', (ev) => {
    const t = tileAt(ev);
    const entries = optionsAt(game, t.x, t.z);
    const first = entries[0];
    renderer.marker = { x: t.x, z: t.z, at: performance.now(), act: first.label !== 'Walk here' };
    first.run();
  });
  canvas.addEventListener('contextmenu', (ev) => {
    ev.preventDefault();
    const t = tileAt(ev);
    openMenu(ev.clientX, ev.clientY, optionsAt(game, t.x, t.z));
  });
  // Hover: the first option of what is under the cursor, as the classic games print it at the top left.
  /** @type {{x: number, y: number}|null} the mouse over the canvas, for the hover text */
  let mouse = null;
  const updateHover = () => {
    if (!mouse) return;
    const t = tileAt({ clientX: mouse.x, clientY: mouse.y });
    const entries = optionsAt(game, t.x, t.z);
    const line = hoverLine(entries);
    if (line) fill(hover, line.label, h('span.hover-target', null, line.target ? ` ${line.target}` : ''), h('span.hover-more', null, line.more));
    else fill(hover);
    hover.dataset.text = line ? `${line.label}${line.target ? ` ${line.target}` : ''}` : '';
    const e = entitiesUnder(game, t.x, t.z)[0];
    renderer.hoverId = e?.id ?? null;
    canvas.style.cursor = entries.length > 1 ? 'pointer' : 'default';
  };
  canvas.addEventListener('pointermove', (ev) => {
    if (ev.pointerType === 'touch') return;
    mouse = { x: ev.clientX, y: ev.clientY };
    updateHover();
  });
  // The world moves under a still mouse (the camera follows the player): the line follows it.
  game.on('world', updateHover);
  canvas.addEventListener('pointerleave', () => { mouse = null; fill(hover); hover.dataset.text = ''; renderer.hoverId = null; });
  // Zoom: the wheel, pinch (two pointers), + and −.
  const zoomBy = (k) => { renderer.setZoom(renderer.zoom * k); game.emit('zoom'); };
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    zoomBy(Math.exp(-ev.deltaY * 0.0015));
  }, { passive: false });
  /** @type {Map<number, {x: number, y: number}>} */
  const pointers = new Map();
  let pinch = 0;
  canvas.addEventListener('pointerdown', (ev) => { pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY }); });
  canvas.addEventListener('pointermove', (ev) => {
    if (!pointers.has(ev.pointerId)) return;
    pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pointers.size !== 2) return;
    const [a, b] = [...pointers.values()];
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    if (pinch) zoomBy(d / pinch);
    pinch = d;
  });
  for (const end of ['pointerup', 'pointercancel']) canvas.addEventListener(end, (ev) => { pointers.delete(/** @type {PointerEvent} */ (ev).pointerId); pinch = 0; });
  minimap.addEventListener('click', (ev) => {
    const r = minimap.getBoundingClientRect();
    const scale = MINI_PX;
    const dx = Math.round((ev.clientX - r.left - r.width / 2) / scale), dz = Math.round((ev.clientY - r.top - r.height / 2) / scale);
    game.walk(Math.round(renderer.cam.x) + dx, Math.round(renderer.cam.z) + dz);
  });
  window.addEventListener('keydown', (ev) => {
    const tag = /** @type {HTMLElement} */ (ev.target).tagName;
    if (tag === 'INPUT' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tab = TABS.find((t) => t.key === ev.key.toLowerCase());
    if (ev.key.toLowerCase() === 'm' || (ev.key === 'Escape' && worldMap.open)) {
      toggleMap();
      ev.preventDefault();
    } else if (ev.key.toLowerCase() === 'h' || (ev.key === 'Escape' && !help.el.hidden)) {
      help.toggle();
      ev.preventDefault();
    } else if (tab) {
      show(tab.id);
      ev.preventDefault();
    } else if (ev.key.toLowerCase() === 'r') {
      game.setRun(!game.run);
    } else if (ev.key.toLowerCase() === 'x') {
      game.stop();
    } else if (ev.key === '+' || ev.key === '=') {
      zoomBy(1.25);
    } else if (ev.key === '-') {
      zoomBy(1 / 1.25);
    } else if (ev.key === 'Escape') {
      game.cancelUse();
      if (game.bank) { game.bank = null; game.emit('bank'); }
      if (game.shop) game.send('shop:close');
    }
  });

  const resize = () => renderer.resize();
  window.addEventListener('resize', resize);
  resize();

  // One animation frame: the world, then the minimap at a quarter of the rate.
  let frame = 0;
  const loop = () => {
    const now = performance.now();
    renderer.draw(game.world, game.selfId, now, game.tickMs);
    if (frame++ % 4 === 0) {
      drawMinimap(minimap, terrain, game, renderer.cam);
      // The chat box folds and unfolds: what it covers is read again (layout is clean here).
      const st = stage.getBoundingClientRect(), ch = chat.el.getBoundingClientRect();
      renderer.reservedBottom = ch.height ? Math.max(0, st.bottom - ch.top) : 0;
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  return { renderer, show: () => current };
}

/**
 * The minimap: terrain at 2 px a tile around the player, dots for what is around.
 * @param {HTMLCanvasElement} c @param {import('../terrain.js').Terrain} terrain
 * @param {import('../game.js').Game} game @param {{x: number, z: number}} cam
 */
function drawMinimap(c, terrain, game, cam) {
  const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
  const S = MINI_PX;
  const W = c.width, H = c.height;
  g.fillStyle = '#10202e';
  g.fillRect(0, 0, W, H);
  const s = terrain.summary;
  if (s) {
    const n = s.chunkTiles;
    for (const { data, mini } of terrain.chunks.values()) {
      const x = (data.x - cam.x) * S + W / 2, y = (data.z - cam.z) * S + H / 2;
      if (x > W || y > H || x + n * S < 0 || y + n * S < 0) continue;
      g.drawImage(mini, x, y);
    }
  }
  // The generated towns' stations and names (the chunk images are too small to read here).
  for (const town of s?.towns ?? []) {
    for (const st of town.stations) {
      const x = (st.tile.x - cam.x) * S + W / 2, y = (st.tile.z - cam.z) * S + H / 2;
      if (x < 0 || y < 0 || x > W || y > H) continue;
      g.fillStyle = (STATION_ICONS[st.station] ?? ['?', '#fff'])[1];
      g.fillRect(x - 2, y - 2, 4, 4);
    }
    const x = (town.centre.x - cam.x) * S + W / 2, y = (town.centre.z - cam.z) * S + H / 2;
    if (x > -60 && y > 0 && x < W + 60 && y < H) {
      g.font = '600 10px system-ui, sans-serif';
      g.textAlign = 'center';
      g.fillStyle = '#fff6d5';
      g.fillText(town.name, x, y - town.safeRadius / 3 * S - 4);
    }
  }
  // Map icons of the points of interest (bank, shop, furnace, fishing, …).
  for (const p of s?.pois ?? []) {
    const x = (p.tile.x - cam.x) * S + W / 2, y = (p.tile.z - cam.z) * S + H / 2;
    if (x < -6 || y < -6 || x > W + 6 || y > H + 6) continue;
    drawPoiIcon(g, p.kind, x, y, 6);
  }
  for (const e of game.world.entities.values()) {
    const x = (e.x - cam.x) * S + W / 2, y = (e.z - cam.z) * S + H / 2;
    if (x < 0 || y < 0 || x > W || y > H) continue;
    g.fillStyle = e.kind === 'player' ? (e.id === game.selfId ? '#fff' : '#4fd1ff') : e.kind === 'npc' ? '#ffe066' : e.kind === 'groundItem' ? '#ff4d4d' : 'rgba(0,0,0,0)';
    if (e.kind === 'resource') continue;
    g.fillRect(x - 1.5, y - 1.5, 3, 3);
  }
  g.strokeStyle = '#c9a45c';
  g.lineWidth = 3;
  g.strokeRect(1.5, 1.5, W - 3, H - 3);
}
