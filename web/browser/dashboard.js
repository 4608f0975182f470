// Browser tests of the agent dashboard (/dashboard), registered by run.js:
// - a real agent process (`wayfarer agent --brain planner`, the server's own binary) walks about;
//   the dashboard, signed in as its owner, stops it (the status says paused, the position holds)
//   and resumes it (the position panel moves again). Saves browser/out/dashboard.png (and
//   dashboard-phone.png) as artifacts;
// - a failing call is retried after 1, 2 and 4 s, and the position is polled every 10 s while
//   the page is hidden, 5 s while visible;
// - signing in on the dashboard itself, registering an agent through its form, the link to the game.

import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { waitUntil } from './wait.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = resolve(import.meta.dirname, 'out');
const BIN = process.env.WAYFARER_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug', 'wayfarer');

/** A JSON REST call that must succeed. */
async function api(base, path, { token, body, method } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(base + path, { method: method ?? (body !== undefined ? 'POST' : 'GET'), headers, body: body !== undefined ? JSON.stringify(body) : undefined });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method ?? (body !== undefined ? 'POST' : 'GET')} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Polls `check` until it returns a truthy value (returned), or fails with `what` after `timeoutMs`. */
async function until(what, check, timeoutMs = 60_000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Starts `wayfarer agent` for a registered agent; its output goes to this test's output, prefixed. */
function startAgent(base, token) {
  const child = spawn(BIN, ['agent', '--server', base, '--token', token, '--brain', 'planner', '--goal', 'explore'], {
    env: { ...process.env, RUST_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const echo = (chunk) => process.stdout.write(String(chunk).replace(/^(?=.)/gm, '     agent| '));
  child.stdout.on('data', echo);
  child.stderr.on('data', echo);
  return {
    child,
    stop: () => new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res(null);
      child.once('exit', () => res(null));
      child.kill('SIGINT'); // Ctrl-C: the agent leaves the world cleanly
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }),
  };
}

/** The position panel as the page shows it. */
const panelPosition = (page) => page.evaluate(() => {
  const p = /** @type {HTMLElement} */ (document.querySelector('.dpanel.position'));
  return p?.dataset.x === undefined ? null : { x: Number(p.dataset.x), z: Number(p.dataset.z), updates: Number(p.dataset.updates) };
});

/** Waits until the position panel has applied `n` more answers than `from`, and returns it then. */
async function positionAfter(page, from, n) {
  await waitUntil(page, ([from, n]) => Number(document.querySelector('.dpanel.position')?.dataset.updates ?? 0) >= from + n,
    [from, n], { timeout: 15_000 * n + 10_000 });
  return panelPosition(page);
}

const same = (a, b) => a.x === b.x && a.z === b.z;

export const dashboardTests = [
  {
    name: 'the dashboard stops and resumes a running agent and its position panel updates',
    async fn({ base, open }) {
      // The owner: a guest account with a character for the agent, registered over REST.
      const session = await api(base, '/api/auth/guest', { body: { name: 'Owner' } });
      const reg = await api(base, '/api/agent/register', { token: session.token, body: { name: 'Scout' } });
      const agent = startAgent(base, reg.token);
      try {
        const tileNow = async () => (await api(base, `/api/characters/${reg.characterId}/position`, { token: session.token })).tile;
        await until('the agent to connect', async () => (await api(base, '/api/agent', { token: session.token })).agents.find((a) => a.agentId === reg.agentId)?.connected);
        const first = await tileNow();
        await until('the agent to walk', async () => !same(await tileNow(), first));

        const { page } = await open();
        // Signed in as the owner: the game's session in localStorage, as the game's sign-in leaves it.
        await page.context().addInitScript((s) => localStorage.setItem('wayfarer.session', JSON.stringify(s)), session);
        await page.goto(`${base}/dashboard`);
        await page.waitForSelector(`.agent-item[data-agent="${reg.agentId}"][aria-current=true]`, { timeout: 20_000 });
        await page.waitForSelector('.agent-head .pill[data-state=running]', { timeout: 20_000 });
        const name = await page.textContent('.agent-name');
        if (name !== 'Scout') throw new Error(`the agent is shown as ${name}`);

        // Running: the position panel follows the walk.
        const seen = await positionAfter(page, 0, 1);
        await waitUntil(page, (p) => {
          const d = document.querySelector('.dpanel.position')?.dataset;
          return d && (Number(d.x) !== p.x || Number(d.z) !== p.z);
        }, seen, { timeout: 60_000 });
        // The other panels: skills and inventory of the character, the planner's decisions, the quick actions.
        await page.waitForSelector('.dskill[data-skill=woodcutting]');
        await page.waitForSelector('.dinv .slot[data-item]');
        await page.waitForSelector('.decisions li code', { timeout: 30_000 });
        await page.waitForSelector('.quick-list .quick', { timeout: 30_000 });
        const goal = await page.textContent('.goal-now');
        if (!/explore/i.test(goal)) throw new Error(`goal panel shows: ${goal}`);

        // Stop (with the keyboard's S as well as a click being possible, a click here).
        await page.click('.agent-head button.stop');
        await page.waitForSelector('.agent-head .pill[data-state=paused]', { timeout: 15_000 });
        await page.waitForSelector('.agent-item[data-state=paused]');
        const paused = await api(base, `/api/agents/${reg.agentId}/goal`, { token: session.token });
        if (!paused.paused) throw new Error('the server does not have the agent paused');
        // Held: the stop is applied at the server's next tick. Two answers on (the one asked at the
        // stop and one a full period later) the position is the stopped one; two more agree.
        const after = await panelPosition(page);
        const held = await positionAfter(page, after.updates, 2);
        const still = await positionAfter(page, held.updates, 2);
        if (!same(held, still)) throw new Error(`the agent moved while stopped: ${JSON.stringify(held)} -> ${JSON.stringify(still)}`);
        const server = await tileNow();
        if (!same(server, still)) throw new Error(`the panel shows ${JSON.stringify(still)}, the server ${JSON.stringify(server)}`);
        // Setting a goal while stopped: the server's refusal (409) is shown.
        await page.selectOption('select[name=kind]', 'idle');
        await page.click('.goal-form button[type=submit]');
        await waitUntil(page, () => /refused/.test(document.querySelector('.goal-form .error')?.textContent ?? ''));

        // Resume: running again, and the position panel moves.
        await page.click('.agent-head button.resume');
        await page.waitForSelector('.agent-head .pill[data-state=running]', { timeout: 15_000 });
        await waitUntil(page, (p) => {
          const d = document.querySelector('.dpanel.position')?.dataset;
          return d && (Number(d.x) !== p.x || Number(d.z) !== p.z);
        }, still, { timeout: 60_000 });
        // The picture: once the map's ground has arrived.
        await waitUntil(page, () => {
          const t = window.__wayfarerDashboard?.terrain;
          return t && t.chunks.size > 0 && t.loading.size === 0;
        });
        await page.screenshot({ path: join(OUT, 'dashboard.png') });
        await page.setViewportSize({ width: 390, height: 844 });
        await waitUntil(page, () => document.querySelector('.dgrid') && getComputedStyle(document.querySelector('.dgrid')).gridTemplateColumns.split(' ').length === 1);
        await page.screenshot({ path: join(OUT, 'dashboard-phone.png') });
      } finally {
        await agent.stop();
      }
    },
  },
  {
    name: 'the dashboard retries a failed call after 1, 2 and 4 s and polls the position every 10 s while hidden',
    async fn({ base, open }) {
      const session = await api(base, '/api/auth/guest', { body: { name: 'Patient' } });
      const reg = await api(base, '/api/agent/register', { token: session.token, body: { name: 'Idler' } });
      const { page } = await open();
      await page.context().addInitScript((s) => localStorage.setItem('wayfarer.session', JSON.stringify(s)), session);
      // The list route fails for its first four calls: the first try and its three retries.
      const listCalls = [];
      await page.route(/\/api\/agent$/, (route) => {
        listCalls.push(Date.now());
        if (listCalls.length <= 4) return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'unavailable', message: 'test outage' }) });
        return route.continue();
      });
      const positionCalls = [];
      page.on('request', (r) => { if (r.url().endsWith(`/api/characters/${reg.characterId}/position`)) positionCalls.push(Date.now()); });
      await page.goto(`${base}/dashboard`);
      await waitUntil(page, () => /test outage; retry 1 of 3 in 1 s/.test(document.querySelector('.dash-side .note')?.textContent ?? ''));
      await waitUntil(page, () => /Not refreshed: test outage/.test(document.querySelector('.dash-side .note')?.textContent ?? ''), null, { timeout: 20_000 });
      if (listCalls.length !== 4) throw new Error(`${listCalls.length} calls before giving up, not 4`);
      const gaps = listCalls.slice(1).map((t, i) => t - listCalls[i]);
      [1_000, 2_000, 4_000].forEach((want, i) => {
        if (gaps[i] < want - 50) throw new Error(`retry ${i + 1} came ${gaps[i]} ms after the call before it, not ${want} ms: ${gaps}`);
      });
      // The next round (10 s after the first call) gets through, and the page recovers.
      await page.waitForSelector(`.agent-item[data-agent="${reg.agentId}"][data-state=offline]`, { timeout: 20_000 });
      if (Date.now() - listCalls[0] < 9_900) throw new Error('the next round came before its 10 s');
      await waitUntil(page, () => !document.querySelector('.dash-side .note')?.textContent);
      await page.waitForSelector('.dpanel.position[data-updates]');

      // Hidden (as a browser reports a background tab): every 10 s. Headless Chromium never hides
      // a page, so the page is told as a browser would tell it.
      const setHidden = (hidden) => page.evaluate((hidden) => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
      const twoMore = async () => {
        const from = positionCalls.length;
        await until('two more position calls', () => positionCalls.length >= from + 2, 40_000, 100);
        return positionCalls[from + 1] - positionCalls[from];
      };
      await setHidden(true);
      await waitUntil(page, () => /every 10 s \(page hidden\)/.test(document.querySelector('.cadence')?.textContent ?? ''));
      const hiddenGap = await twoMore();
      if (hiddenGap < 9_900) throw new Error(`position polled ${hiddenGap} ms apart while hidden`);
      await setHidden(false);
      await waitUntil(page, () => /^every 5 s$/.test(document.querySelector('.cadence')?.textContent ?? ''));
      const visibleGap = await twoMore();
      if (visibleGap < 4_900 || visibleGap > 9_000) throw new Error(`position polled ${visibleGap} ms apart while visible`);
    },
  },
  {
    name: 'the dashboard signs in with the game, registers an agent from its form and links to the game',
    async fn({ base, open }) {
      const { page } = await open();
      await page.goto(`${base}/dashboard`);
      await page.fill('input[name=name]', 'Keeper');
      await page.click('form.guest button');
      await page.waitForSelector('.empty h1:has-text("No agents yet")');
      // The form is open while the account has no agent; keyboard only.
      await page.focus('.add-agent select[name=character]');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Helper');
      await page.keyboard.press('Enter');
      await page.waitForSelector('.token pre.command');
      const command = await page.textContent('.token pre.command');
      if (!command.startsWith(`wayfarer agent --server ${base} --token ey`)) throw new Error(`command shown: ${command}`);
      await page.screenshot({ path: join(OUT, 'dashboard-registered.png') });
      await page.waitForSelector('.agent-item[data-state=offline]:has-text("Helper")', { timeout: 20_000 });
      await page.waitForSelector('.agent-head .pill[data-state=offline]');
      // Messages to an offline agent wait for it: the server accepts them.
      await page.fill('input[name=message]', 'idle');
      await page.press('input[name=message]', 'Enter');
      await waitUntil(page, () => /Sent to Helper: idle/.test(document.querySelector('.feedback')?.textContent ?? ''));
      // A goal the client refuses before sending.
      await page.selectOption('select[name=kind]', 'skill');
      await page.fill('input[name=level]', '120');
      await page.click('.goal-form button[type=submit]');
      await waitUntil(page, () => /Level must be 1–99/.test(document.querySelector('.goal-form .error')?.textContent ?? ''));
      // The same session plays: the game's character screen lists the agent's character.
      await page.click('a.play');
      await page.waitForSelector('button.character[data-name=Helper]');
    },
  },
];
