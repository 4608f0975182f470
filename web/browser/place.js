// Browser tests of issue 53 (the world as a place, a newcomer who knows what to do): a newcomer's
// first minute (the welcome line, the ! over the guide, the tracker and its arrow, the first step
// done by clicking), local chat over the speaker's head, the world map's points of interest and
// "you are here", a roof fading as the player walks into a building, the help window. With
// SCREENSHOTS=1 the pictures of docs/client.md are written too (docs/screenshots/client-*.png).
// Registered by run.js with its harness.

import { join, resolve } from 'node:path';
import { waitUntil } from './wait.js';

const DOCS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');

/** Writes a screenshot to browser/out, and to docs/screenshots with SCREENSHOTS=1. */
async function shot(page, OUT, name) {
  // After the zone banner (3.5 s after entering), which would cover the town.
  if (process.env.SCREENSHOTS) await page.waitForSelector('.zone-banner', { state: 'hidden', timeout: 8_000 }).catch(() => {});
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  if (process.env.SCREENSHOTS) await page.screenshot({ path: join(DOCS, `client-${name}.png`) });
}

/** Walks to a tile and waits to stand still on it. */
async function walkTo(page, x, z) {
  await page.evaluate(([x, z]) => window.__wayfarer.game.walk(x, z), [x, z]);
  await waitUntil(page, ([x, z]) => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId);
    return me && me.x === x && me.z === z && performance.now() - (me.movedAt ?? 0) > g.tickMs * 2;
  }, [x, z], { timeout: 40_000 });
}

/** Types a chat line and sends it. */
async function say(page, text) {
  await page.fill('.chat-input', text);
  await page.press('.chat-input', 'Enter');
}

/** @param {{test: Function, enterAs: Function, clickEntity: Function, chatHas: Function, OUT: string, ADMIN_CODE: string}} h */
export function registerPlaceTests({ test, enterAs, clickEntity, chatHas, OUT, ADMIN_CODE }) {
  test('a newcomer\'s first minute: welcome, the ! over the guide, the tracker points there, the quest started by clicking', async ({ base, open }) => {
    const { page } = await open();
    await page.setViewportSize({ width: 1280, height: 800 });
    await enterAs(page, base, 'Nell');
    // The server's welcome, in the Game tab's colour, naming whom to talk to.
    await chatHas(page, 'Welcome to Millbrook');
    const welcome = await page.evaluate(() => window.__wayfarer.game.chat.find((m) => m.text.startsWith('Welcome'))?.text);
    const guide = await waitUntil(page, () => {
      const g = window.__wayfarer.game;
      const me = g.world.entities.get(g.selfId);
      return [...g.world.entities.values()].filter((e) => e.kind === 'npc' && e.quest === 'available')
        .sort((a, b) => Math.max(Math.abs(a.x - me.x), Math.abs(a.z - me.z)) - Math.max(Math.abs(b.x - me.x), Math.abs(b.z - me.z)))[0];
    }, null, { timeout: 20_000 });
    if (!welcome.includes(guide.name)) throw new Error(`the welcome (${welcome}) does not name the nearest guide ${guide.name}`);
    // The tracker says to talk to them, and its arrow points at their tile.
    await page.waitForSelector(`.tracker:not([hidden]) .tracker-step:has-text("Talk to ${guide.name}")`, { timeout: 10_000 });
    await waitUntil(page, ([x, z]) => { const t = window.__wayfarer.renderer.guide; return t && t.x === x && t.z === z; }, [guide.x, guide.z]);
    // Near enough to see the ! drawn: a yellow pixel above their head.
    await walkTo(page, guide.x + 1, guide.z + 2);
    await shot(page, OUT, 'newcomer');
    const yellow = await page.evaluate((id) => {
      const w = window.__wayfarer;
      const e = w.game.world.entities.get(id);
      const { sx, sy } = w.renderer.toScreen(e.x, e.z);
      const c = /** @type {HTMLCanvasElement} */ (document.querySelector('canvas.world'));
      const g = c.getContext('2d');
      const dpr = w.renderer.dpr, T = w.renderer.tile;
      const data = g.getImageData(Math.round((sx - 12) * dpr), Math.round((sy - T * 1.2 - 44) * dpr), Math.round(24 * dpr), Math.round(34 * dpr)).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] > 230 && data[i + 1] > 190 && data[i + 2] < 110) n++;
      return n;
    }, guide.id);
    if (yellow < 10) throw new Error(`no ! drawn over ${guide.name} (${yellow} yellow pixels)`);
    // The first step, by clicking: talk, take the quest.
    await clickEntity(page, guide.id);
    await page.waitForSelector('#dialogue:not([hidden])', { timeout: 20_000 });
    for (let i = 0; i < 6; i++) {
      const started = await page.evaluate(() => window.__wayfarer.game.quests.quests.some((q) => q.status === 'in_progress'));
      if (started) break;
      await page.waitForSelector('#dialogue .dlg-response', { timeout: 10_000 });
      const pick = await page.evaluate(() => {
        const all = [...document.querySelectorAll('#dialogue .dlg-response')];
        const yes = all.findIndex((b) => /help|teach|I'll|yes|accept|work|do it|ready|sure/i.test(b.textContent));
        return yes < 0 ? 0 : yes;
      });
      await page.click(`#dialogue .dlg-response >> nth=${pick}`);
      await page.waitForTimeout(400);
    }
    await waitUntil(page, () => window.__wayfarer.game.quests.quests.some((q) => q.status === 'in_progress'), null, { timeout: 15_000 });
    // The server's line, then the client's naming the first step.
    await chatHas(page, 'You have started a new quest');
    await chatHas(page, 'Quest updated:');
    // The tracker follows the quest: its name and the stage under way.
    const q = await page.evaluate(() => window.__wayfarer.game.quests.quests.find((x) => x.status === 'in_progress'));
    await page.waitForSelector(`.tracker[data-quest="${q.questId}"]:not([hidden])`, { timeout: 10_000 });
    // The guide's marker is now grey (under way) or gone, as the server says.
    await waitUntil(page, (id) => window.__wayfarer.game.world.entities.get(id)?.quest !== 'available', guide.id, { timeout: 10_000 });
    await page.keyboard.press('Escape');
    await shot(page, OUT, 'tracker');
  });

  test('a completed quest shows the reward scroll (its message given to the handler table); Enter closes it', async ({ base, open }) => {
    const { page } = await open();
    await page.setViewportSize({ width: 1280, height: 800 });
    await enterAs(page, base, 'Scrollreader');
    await waitUntil(page, () => Object.keys(window.__wayfarer.game.questDefs).length > 0);
    await page.evaluate(() => window.__wayfarer.game.dispatch({ type: 'quest:complete', data: {
      questId: 'first_catch', questPoints: 1,
      rewards: { questPoints: 1, items: [{ itemId: 'coins', quantity: 50 }, { itemId: 'trout', quantity: 2 }], xp: { fishing: 150, cooking: 150 } } } }));
    await page.waitForSelector('.reward-scroll:not([hidden]) .scroll-quest:has-text("You have completed First Catch.")');
    const rows = await page.$$eval('.reward-scroll .reward', (els) => els.map((e) => e.textContent));
    const want = ['1 Quest Point', '50 × Coins', '2 × Trout', '150 Fishing XP', '150 Cooking XP'];
    if (JSON.stringify(rows) !== JSON.stringify(want)) throw new Error(`the scroll lists ${JSON.stringify(rows)}`);
    await shot(page, OUT, 'reward');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.reward-scroll', { state: 'hidden' });
  });

  test('overhead chat: a local line shows over the speaker to another player, then goes', async ({ base, open }) => {
    const a = await open();
    const b = await open();
    await enterAs(a.page, base, 'Otto');
    await enterAs(b.page, base, 'Petra');
    const aId = await a.page.evaluate(() => window.__wayfarer.game.selfId);
    await waitUntil(b.page, (id) => window.__wayfarer.game.world.entities.has(id), aId);
    await say(a.page, 'Fine day for fishing!');
    await waitUntil(b.page, (id) => window.__wayfarer.renderer.said.get(id)?.some((l) => l.text === 'Fine day for fishing!'), aId, { timeout: 10_000 });
    await waitUntil(a.page, (id) => window.__wayfarer.renderer.said.get(id)?.length, aId);
    // Drawn: yellow text pixels above Otto's head on Petra's screen.
    const count = await b.page.evaluate((id) => {
      const w = window.__wayfarer;
      const e = w.game.world.entities.get(id);
      const { sx, sy } = w.renderer.toScreen(e.x, e.z);
      const c = /** @type {HTMLCanvasElement} */ (document.querySelector('canvas.world'));
      const dpr = w.renderer.dpr, T = w.renderer.tile;
      const data = c.getContext('2d').getImageData(Math.max(0, Math.round((sx - 80) * dpr)), Math.max(0, Math.round((sy - T * 1.2 - 60) * dpr)), Math.round(160 * dpr), Math.round(50 * dpr)).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] > 230 && data[i + 1] > 230 && data[i + 2] < 120) n++;
      return n;
    }, aId);
    if (count < 20) throw new Error(`no overhead text drawn (${count} yellow pixels)`);
    await shot(b.page, OUT, 'overhead-chat');
    // Gone after three seconds.
    await waitUntil(b.page, (id) => { const w = window.__wayfarer; w.renderer.draw(w.game.world, w.game.selfId, performance.now(), w.game.tickMs); return !w.renderer.said.has(id); }, aId, { timeout: 8_000 });
  });

  test('the world map shows the points of interest, their names and "you are here"', async ({ base, open }) => {
    const { page } = await open();
    await page.setViewportSize({ width: 1280, height: 800 });
    await enterAs(page, base, 'Quill');
    const pois = await page.evaluate(() => window.__wayfarer.terrain?.summary?.pois ?? null)
      ?? await page.evaluate(async () => (await (await fetch('/api/map')).json()).pois);
    const kinds = new Set(pois.map((p) => p.kind));
    for (const k of ['bank', 'shop', 'furnace', 'anvil', 'range', 'altar', 'fishing']) if (!kinds.has(k)) throw new Error(`the map has no ${k} point (${[...kinds]})`);
    await page.keyboard.press('m');
    await page.waitForSelector('canvas.worldmap', { state: 'visible' });
    // Every chunk of the bundled world loads for the map; then the icons are drawn where the POIs are.
    await page.waitForTimeout(1500);
    await page.keyboard.press('m');
    await page.keyboard.press('m');
    await page.waitForTimeout(300);
    const bank = pois.find((p) => p.kind === 'bank');
    const ringed = await page.evaluate(async ([bank, url]) => {
      const { areaFrame, toMap } = await import(url);
      const s = await (await fetch('/api/map')).json();
      const c = /** @type {HTMLCanvasElement} */ (document.querySelector('canvas.worldmap'));
      const { mx, my } = toMap(areaFrame(s), c.width, bank.tile.x + 0.5, bank.tile.z + 0.5);
      const d = c.getContext('2d').getImageData(Math.round(mx) - 10, Math.round(my) - 10, 20, 20).data;
      let gold = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 220 && d[i + 1] > 180 && d[i + 2] < 110) gold++;
      return gold;
    }, [bank, await page.evaluate(() => document.querySelector('link[rel=stylesheet]').href.replace(/src\/style\.css$/, 'src/worldmap.js'))]);
    if (ringed < 6) throw new Error(`no bank icon at the bank (${ringed} gold pixels)`);
    await shot(page, OUT, 'map');
    await page.keyboard.press('Escape');
    await page.waitForSelector('canvas.worldmap', { state: 'hidden' });
  });

  test('a roof fades as the player walks into a building and comes back outside; the help window opens on H', async ({ base, open }) => {
    const { page } = await open();
    await page.setViewportSize({ width: 1280, height: 800 });
    await enterAs(page, base, 'Roofwalker');
    const bank = await page.evaluate(async () => (await (await fetch('/api/map')).json()).buildings.find((b) => b.id === 'millbrook_bank'));
    if (!bank) throw new Error('no bank building in /api/map');
    const door = bank.doors[0];
    const alpha = () => page.evaluate(() => window.__wayfarer.renderer.roofs.get('millbrook_bank')?.alpha);
    await walkTo(page, door.x, door.z + 2);
    await waitUntil(page, () => window.__wayfarer.renderer.roofs.get('millbrook_bank')?.alpha === 1);
    await shot(page, OUT, 'town');
    // In through the door (it opens as the player walks through).
    await walkTo(page, door.x, door.z - 2);
    await waitUntil(page, () => window.__wayfarer.renderer.roofs.get('millbrook_bank')?.alpha === 0, null, { timeout: 5_000 });
    await shot(page, OUT, 'inside');
    await walkTo(page, door.x, door.z + 2);
    await waitUntil(page, () => window.__wayfarer.renderer.roofs.get('millbrook_bank')?.alpha === 1, null, { timeout: 5_000 });
    if ((await alpha()) !== 1) throw new Error('the roof did not come back');
    // The help window.
    await page.keyboard.press('h');
    await page.waitForSelector('#help:not([hidden]) dt:has-text("Escape")');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#help', { state: 'hidden' });
  });

  test('the pier: water with the fishing spots on it, reached along the pier', async ({ base, open }) => {
    const { page } = await open();
    await page.setViewportSize({ width: 1280, height: 800 });
    await enterAs(page, base, 'Sten');
    await say(page, `/admin ${ADMIN_CODE}`);
    await chatHas(page, 'Admin rights granted');
    const pier = await page.evaluate(async () => (await (await fetch('/api/map')).json()).pois.find((p) => p.kind === 'fishing'));
    await say(page, `/tp ${pier.tile.x} ${pier.tile.z - 3}`);
    await waitUntil(page, ([x, z]) => { const g = window.__wayfarer.game; const me = g.world.entities.get(g.selfId); return me && Math.abs(me.x - x) <= 2 && Math.abs(me.z - z) <= 3; }, [pier.tile.x, pier.tile.z - 3], { timeout: 20_000 });
    await waitUntil(page, () => [...window.__wayfarer.game.world.entities.values()].some((e) => e.resourceType === 'fishing' || /fish/.test(e.typeId ?? '')), null, { timeout: 10_000 });
    await page.waitForTimeout(500);
    await shot(page, OUT, 'pier');
  });
}
