// Browser tests: Debian's chromium driven by playwright-core (never a downloaded browser) against a
// real `wayfarer serve` started here (temp WORLD, own port, short ticks, no rate limits).
//
//   node browser/run.js            runs every test; MEASURE=1 also writes browser/out/measurements.json,
//                                  SCREENSHOTS=1 the screenshots of docs/client.md (docs/screenshots/client-*.png)
//
// Each failing test saves a screenshot under browser/out/; one screenshot of the playing client
// (browser/out/playing.png) is kept as an artifact. Without /usr/bin/chromium the run is skipped
// with a printed reason, unless CI=true, where that is a failure.

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { registerPanelTests } from './panels.js';
import { registerClientTests } from './client.js';
import { screenshotTask } from './screenshots.js';
import { dashboardTests } from './dashboard.js';
import { registerPlaceTests } from './place.js';
import { waitUntil } from './wait.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = resolve(import.meta.dirname, 'out');
const BIN = process.env.WAYFARER_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug', 'wayfarer');
const TICK_MS = 100;
/** The test server's admin code: tests give themselves items with `/admin` and `/give` in chat. */
const ADMIN_CODE = 'browser-tests';

if (!existsSync(CHROMIUM)) {
  const why = `browser tests skipped: ${CHROMIUM} not found (apt-get install -y chromium)`;
  if (process.env.CI === 'true') {
    console.error(`FAIL: ${why}`);
    process.exit(1);
  }
  console.log(why);
  process.exit(0);
}
if (!existsSync(BIN)) {
  console.error(`FAIL: no server binary at ${BIN} (cargo build -p wayfarer-server, or set WAYFARER_BIN)`);
  process.exit(1);
}
mkdirSync(OUT, { recursive: true });

/** A free TCP port. */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = /** @type {any} */ (s.address()).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/** Starts the server and waits for /health. */
async function startServer(port, world) {
  const child = spawn(BIN, ['serve'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', WORLD: world, TICK_MS: String(TICK_MS),
      DISABLE_RATE_LIMIT: 'true', NODE_ENV: 'development', RUST_LOG: 'warn', ADMIN_CODE,
      // The embedded client unless a developer points WEB_DIR at their working copy.
      WEB_DIR: process.env.WEB_DIR ?? '' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.ok) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('server did not start');
}

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** @type {string[]} what the Content-Security-Policy refused during the current test */
const cspViolations = [];
/** @type {string[]} uncaught errors thrown in any page during the current test: each fails it */
const pageErrors = [];

/** A browser of its own (fresh profile directory) with one page, 1280×720. */
async function browser() {
  const profile = mkdtempSync(join(tmpdir(), 'wf-chromium-'));
  // launchPersistentContext is how a fresh --user-data-dir is given to playwright.
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 720 },
  });
  // The server's Content-Security-Policy must never have to refuse anything the client does:
  // Chromium reports each refusal on the console, and a test with one fails.
  const watch = (/** @type {import('playwright-core').Page} */ p) => p.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  ctx.on('page', watch);
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  watch(page);
  // An uncaught exception in the client is a defect even when the test's own checks pass.
  ctx.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(e.message)));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return { ctx, page, close: async () => { await ctx.close(); rmSync(profile, { recursive: true, force: true }); } };
}

/** Signs in as a guest, creates a character and waits for the world. */
async function enterAs(page, base, name) {
  await page.goto(base);
  await page.fill('input[name=name]', name);
  await page.click('form.guest button');
  await page.waitForSelector('input[name=character]');
  await page.fill('input[name=character]', name);
  await page.click('form.create button');
  await waitUntil(page, () => window.__wayfarer?.firstWorldMs > 0, null, { timeout: 20_000 });
  await page.waitForSelector('.net[data-state=open]');
}

/** The page's game state, read in the page. */
const selfEntity = (page) => page.evaluate(() => {
  const g = window.__wayfarer.game;
  return g.world.entities.get(g.selfId);
});

/** Clicks (left or right) on the tile of an entity, through the canvas as a player would: once
 * the player has stopped (the camera follows them, so a click aimed while it slides lands beside). */
async function clickEntity(page, id, button = 'left') {
  await waitUntil(page, () => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId);
    return me && performance.now() - (me.movedAt ?? 0) > g.tickMs * 1.5;
  }, null, { timeout: 30_000 });
  const pos = await page.evaluate((id) => {
    const w = window.__wayfarer;
    const e = w.game.world.entities.get(id);
    if (!e) return null;
    const { sx, sy } = w.renderer.toScreen(e.x, e.z);
    const r = document.querySelector('canvas.world').getBoundingClientRect();
    return { x: r.left + sx, y: r.top + sy };
  }, id);
  if (!pos) throw new Error(`entity ${id} not in view`);
  await page.mouse.click(pos.x, pos.y, { button });
}

const chatHas = (page, text, timeout = 15_000) =>
  waitUntil(page, (t) => [...document.querySelectorAll('.chat-log .msg')].some((m) => m.textContent.includes(t)), text, { timeout });

/** @type {{name: string, fn: (ctx: any) => Promise<void>}[]} */
const TESTS = [];
const test = (name, fn) => TESTS.push({ name, fn });

test('two players see each other, chat, and trade through both screens', async ({ base, open }) => {
  const a = await open();
  const b = await open();
  await enterAs(a.page, base, 'Alda');
  await enterAs(b.page, base, 'Brom');
  const bId = await b.page.evaluate(() => window.__wayfarer.game.selfId);
  const aId = await a.page.evaluate(() => window.__wayfarer.game.selfId);
  await waitUntil(a.page, (id) => window.__wayfarer.game.world.entities.has(id), bId);
  await waitUntil(b.page, (id) => window.__wayfarer.game.world.entities.has(id), aId);

  await a.page.keyboard.press('Enter');
  await a.page.keyboard.type('hello from Alda');
  await a.page.keyboard.press('Enter');
  await chatHas(b.page, 'hello from Alda');

  // Alda offers her sword; Brom offers 10 of his 25 coins (Offer-X). Right-click Brom, "Trade with".
  await clickEntity(a.page, bId, 'right');
  await a.page.click('.menu-item:has-text("Trade with")');
  await b.page.click('.trade-incoming button:has-text("Accept")');
  await a.page.waitForSelector('#trade[data-screen=screen1]');
  await b.page.waitForSelector('#trade[data-screen=screen1]');
  const sword = await a.page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'bronze_sword'));
  await a.page.click(`.inv-grid .slot[data-slot="${sword.slot}"]`);
  await waitUntil(b.page, () => document.querySelector('#trade .trade-side:nth-child(2) .offer .slot'));
  const coins = await b.page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'coins'));
  await b.page.click(`.inv-grid .slot[data-slot="${coins.slot}"]`, { button: 'right' });
  await b.page.click('.menu:not([hidden]) .menu-item:has-text("Offer-X")');
  await b.page.fill('form.amount input', '10');
  await b.page.press('form.amount input', 'Enter');
  await waitUntil(a.page, () => window.__wayfarer.game.trade.theirs.items.some((i) => i.itemId === 'coins' && i.quantity === 10));
  await a.page.click('#trade .accept');
  await b.page.click('#trade .accept');
  await a.page.waitForSelector('#trade[data-screen=screen2]');
  await b.page.waitForSelector('#trade[data-screen=screen2]');
  const confirm = await b.page.textContent('#trade .trade-body');
  if (!/Bronze Sword x 1/.test(confirm) || !/Coins x 10\b/.test(confirm)) throw new Error(`screen 2 shows: ${confirm}`);
  await b.page.screenshot({ path: join(OUT, 'trade-screen2.png') });
  await a.page.click('#trade .accept');
  await b.page.click('#trade .accept');
  await chatHas(a.page, 'Trade completed');
  await waitUntil(b.page, () => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'bronze_sword').length === 2);
  await waitUntil(a.page, () => !window.__wayfarer.game.inventory.some((s) => s.itemId === 'bronze_sword'));
  await waitUntil(a.page, (n) => window.__wayfarer.game.coins === n, coins.quantity + 10);
  await waitUntil(b.page, (n) => window.__wayfarer.game.coins === n, coins.quantity - 10);
  await a.page.screenshot({ path: join(OUT, 'playing.png') });
});

test('a player chops a tree and sees the XP drop', async ({ base, open }) => {
  const { page } = await open();
  await enterAs(page, base, 'Cato');
  const tree = await page.evaluate(() => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId);
    return [...g.world.entities.values()].filter((e) => e.resourceType === 'tree' && !e.depleted)
      .sort((a, b) => Math.hypot(a.x - me.x, a.z - me.z) - Math.hypot(b.x - me.x, b.z - me.z))[0]?.id;
  });
  if (!tree) throw new Error('no tree in view');
  await page.evaluate((id) => {
    // Bring the tree on screen: walk close first (a left click on it would also walk, but it may be
    // beyond the canvas edge at 32 px a tile).
    const g = window.__wayfarer.game;
    const t = g.world.entities.get(id);
    g.walk(t.x - 2, t.z);
  }, tree);
  await waitUntil(page, (id) => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId), t = g.world.entities.get(id);
    return Math.max(Math.abs(me.x - t.x), Math.abs(me.z - t.z)) <= 4;
  }, tree, { timeout: 20_000 });
  await clickEntity(page, tree);
  await page.waitForSelector('.xp-drop[data-skill=woodcutting]', { timeout: 60_000 });
  await page.screenshot({ path: join(OUT, 'chopping.png') });
});

test('bank deposit and withdraw through the panel', async ({ base, open }) => {
  const { page } = await open();
  await enterAs(page, base, 'Dara');
  const booth = await page.evaluate(() => [...window.__wayfarer.game.world.entities.values()].find((e) => e.resourceType === 'bank')?.id);
  if (!booth) throw new Error('no bank booth in view');
  await clickEntity(page, booth);
  await page.waitForSelector('#bank:not([hidden])', { timeout: 20_000 });
  const slot = await page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'bread').slot);
  await page.click(`.inv-grid .slot[data-slot="${slot}"]`);
  await page.waitForSelector('#bank .slot[data-item=bread]');
  await page.screenshot({ path: join(OUT, 'bank.png') });
  await waitUntil(page, () => !window.__wayfarer.game.inventory.some((s) => s.itemId === 'bread'));
  await page.click('#bank .slot[data-item=bread]');
  const held = () => page.evaluate(() => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'bread').reduce((n, s) => n + s.quantity, 0));
  await waitUntil(page, () => window.__wayfarer.game.inventory.some((s) => s.itemId === 'bread'));
  if ((await held()) !== 1) throw new Error(`withdrew ${await held()} bread, not 1`);
  await page.click('#bank .slot[data-item=bread]', { button: 'right' });
  await page.click('.menu:not([hidden]) .menu-item:has-text("Withdraw-All")');
  await waitUntil(page, () => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'bread').reduce((n, s) => n + s.quantity, 0) === 3);
  await waitUntil(page, () => !document.querySelector('#bank .slot[data-item=bread]'));
});

test('the socket drops and the client reconnects by itself', async ({ base, open, restartServer }) => {
  const { page } = await open();
  await enterAs(page, base, 'Eryn');
  await restartServer();
  await page.waitForSelector('.net[data-state=reconnecting]', { timeout: 20_000 });
  await page.waitForSelector('.net[data-state=open]', { timeout: 60_000 });
  await waitUntil(page, () => {
    const g = window.__wayfarer.game;
    return g.world.entities.has(g.selfId);
  }, null, { timeout: 20_000 });
});

registerPanelTests({ test, enterAs, clickEntity, chatHas, OUT, ADMIN_CODE });
registerClientTests({ test, enterAs, clickEntity, chatHas, OUT, ADMIN_CODE });
registerPlaceTests({ test, enterAs, clickEntity, chatHas, OUT, ADMIN_CODE });
for (const t of dashboardTests) test(t.name, t.fn);

/** Measurements for BENCHMARKS.md: first paint, first drawn world, transferred size, frame time. */
async function measure({ base, open }) {
  const { page } = await open();
  const t0 = Date.now();
  await enterAs(page, base, 'Mira');
  const timing = await page.evaluate(() => ({
    firstPaintMs: performance.getEntriesByName('first-paint')[0]?.startTime ?? null,
    firstContentfulPaintMs: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  }));
  // Time to first drawn world from a reload of a signed-in player (the character list, select,
  // map and manifests, the socket, the first world:update and the frame after it).
  await page.reload();
  await page.click('button.character');
  await waitUntil(page, () => window.__wayfarer?.firstWorldMs > 0, null, { timeout: 20_000 });
  const firstWorldMs = await page.evaluate(() => window.__wayfarer.firstWorldMs);
  const transfers = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => ({ name: r.name, bytes: /** @type {any} */ (r).encodedBodySize })));
  // Client files: the page and everything under /v/ (measured gzipped as well: what a compressing proxy sends).
  const files = [base + '/', ...transfers.filter((t) => t.name.includes('/v/')).map((t) => t.name)];
  let raw = 0, gz = 0;
  for (const f of files) {
    const body = Buffer.from(await (await fetch(f, { headers: { accept: 'text/html' } })).arrayBuffer());
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  // 254 other players and 255 NPCs around the player, moving every tick, fed as world:update
  // messages through the client's own handler table. The players wear equipment (`worn`, one of
  // eight outfits each, a few bare), and four of them change outfit every tick, as equipping does.
  const frames = await page.evaluate(async () => {
    const w = window.__wayfarer;
    const g = w.game;
    const me = g.world.entities.get(g.selfId);
    const outfits = [
      { weapon: 'bronze_sword', shield: 'wooden_shield' },
      { weapon: 'iron_sword', helmet: 'iron_helmet', body: 'bronze_platebody' },
      { weapon: 'bronze_pickaxe' },
      { weapon: 'bronze_hatchet', body: 'leather_body', boots: 'leather_boots' },
      { weapon: 'apprentice_staff', gloves: 'leather_gloves' },
      { weapon: 'steel_sword', shield: 'wooden_shield', helmet: 'bronze_helmet', body: 'bronze_platebody', gloves: 'leather_gloves', boots: 'leather_boots' },
      { weapon: 'staff_of_air', amulet: 'amulet_of_vigour' },
      {},
    ];
    const added = [];
    for (let i = 0; i < 254; i++) {
      const worn = outfits[i % outfits.length];
      added.push({ id: `bench-p${i}`, kind: 'player', x: me.x - 15 + (i % 30), z: me.z - 8 + Math.floor(i / 30), name: `Bot ${i}`, health: 10 - (i % 3), maxHealth: 10,
        ...(Object.keys(worn).length ? { worn } : {}) });
    }
    for (let i = 0; i < 255; i++) added.push({ id: `npc-bench-${i}`, kind: 'npc', x: me.x - 15 + (i % 30), z: me.z + 1 + Math.floor(i / 30), name: 'Goblin', typeId: 'goblin', health: 5, maxHealth: 5 });
    g.dispatch({ type: 'world:update', data: { tick: g.world.tick + 1, added, moved: [], changed: [], removed: [] } });
    w.renderer.frameMs.length = 0;
    let flip = 1;
    let tick = 0;
    const timer = setInterval(() => {
      flip = -flip;
      tick++;
      const changed = [0, 1, 2, 3].map((k) => ({ id: `bench-p${(tick * 4 + k) % 254}`, worn: outfits[(tick + k) % outfits.length] }));
      g.dispatch({ type: 'world:update', data: { tick: g.world.tick + 1, added: [], moved: added.map((e) => ({ id: e.id, x: e.x + (flip > 0 ? 1 : 0), z: e.z })), changed, removed: [] } });
    }, g.tickMs);
    const startCount = performance.now();
    const rafGaps = [];
    await new Promise((res) => {
      let last = performance.now();
      const step = () => {
        const now = performance.now();
        rafGaps.push(now - last);
        last = now;
        if (now - startCount < 5000) requestAnimationFrame(step);
        else res(null);
      };
      requestAnimationFrame(step);
    });
    clearInterval(timer);
    const visible = g.world.entities.size;
    const ms = [...w.renderer.frameMs].sort((a, b) => a - b);
    const gaps = rafGaps.slice(1).sort((a, b) => a - b);
    const pct = (a, p) => a[Math.min(a.length - 1, Math.floor(a.length * p))];
    const wearing = [...g.world.entities.values()].filter((e) => e.kind === 'player' && e.worn && Object.keys(e.worn).length).length;
    return { entities: visible, playersWearing: wearing, frames: ms.length, drawP50Ms: pct(ms, 0.5), drawP95Ms: pct(ms, 0.95), drawMaxMs: ms[ms.length - 1],
      frameIntervalP50Ms: pct(gaps, 0.5), frameIntervalP95Ms: pct(gaps, 0.95) };
  });
  await page.screenshot({ path: join(OUT, 'crowd.png') });
  await page.setViewportSize({ width: 390, height: 780 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, 'phone.png') });
  const result = { date: new Date().toISOString(), ...timing, firstWorldAfterReloadMs: firstWorldMs, signInToWorldMs: Date.now() - t0,
    clientFiles: files.length, clientBytes: raw, clientBytesGzip: gz, crowd: frames };
  writeFileSync(join(OUT, 'measurements.json'), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
}

const port = await freePort();
const world = mkdtempSync(join(tmpdir(), 'wf-world-'));
let server = await startServer(port, world);
const base = `http://127.0.0.1:${port}`;
let failed = 0;
let ran = 0;
const only = process.env.ONLY;
const extra = [...(process.env.MEASURE ? [{ name: 'measure', fn: measure }] : []),
  ...(process.env.SCREENSHOTS ? [{ name: 'screenshots', fn: screenshotTask({ enterAs, ADMIN_CODE }) }] : [])];
for (const t of [...TESTS, ...extra]) {
  if (only && !t.name.includes(only)) continue;
  ran++;
  const opened = [];
  const ctx = {
    base,
    open: async () => { const b = await browser(); opened.push(b); return b; },
    restartServer: async () => {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      // Down long enough for the client to notice and back off at least once.
      await new Promise((r) => setTimeout(r, 1500));
      server = await startServer(port, world);
    },
  };
  const started = Date.now();
  cspViolations.length = 0;
  pageErrors.length = 0;
  try {
    await t.fn(ctx);
    if (cspViolations.length) throw new Error(`Content-Security-Policy violations: ${cspViolations.join(' | ')}`);
    if (pageErrors.length) throw new Error(`uncaught page errors: ${pageErrors.join(' | ')}`);
    console.log(`ok   ${t.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${t.name}: ${e.message}`);
    for (const [i, b] of opened.entries()) {
      const file = join(OUT, `fail-${t.name.replace(/\W+/g, '-')}-${i}.png`);
      await b.page.screenshot({ path: file }).catch(() => {});
      console.log(`     screenshot: ${file}`);
    }
  } finally {
    for (const b of opened) await b.close().catch(() => {});
  }
}
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(world, { recursive: true, force: true });
// A filter that matches nothing (or a list that lost its tests) must not look like a pass.
if (ran === 0) {
  console.log(`FAIL: no browser test ran${only ? ` (ONLY=${only} matches none)` : ''}`);
  process.exit(1);
}
console.log(failed ? `${failed} of ${ran} browser test(s) failed` : `${ran} browser tests passed`);
process.exit(failed ? 1 : 0);
