// temporary: audit screenshots (not committed)
import { chromium } from 'playwright-core';
const base = process.env.BASE;
const OUT = '/tmp/wfshots';
const ctx = await chromium.launchPersistentContext('/tmp/wfshots/profile-' + Date.now(), { executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true, viewport: { width: +(process.env.W ?? 1280), height: +(process.env.H ?? 720) } });
const page = ctx.pages()[0];
page.on('pageerror', (e) => console.error('page error:', e.message));
page.on('console', (m) => { if (m.type() === 'error') console.error('console:', m.text()); });
const name = process.env.NAME ?? 'Shot' + String(Date.now()).slice(-5);
await page.goto(base);
await page.screenshot({ path: `${OUT}/${name}-signin.png` });
await page.fill('input[name=name]', name);
await page.click('form.guest button');
await page.waitForSelector('input[name=character]');
await page.screenshot({ path: `${OUT}/${name}-chars.png` });
await page.fill('input[name=character]', name);
await page.click('form.create button');
await page.waitForFunction(() => window.__wayfarer?.firstWorldMs > 0, null, { timeout: 20000 });
await page.waitForTimeout(1500);
await page.screenshot({ path: `${OUT}/${name}-play.png` });
for (const k of ['e', 'k', 'q', 'p', 'f']) { await page.keyboard.press(k); await page.waitForTimeout(200); await page.screenshot({ path: `${OUT}/${name}-tab-${k}.png` }); }
await page.keyboard.press('i');
// right-click menu on the nearest npc
const pos = await page.evaluate((npc) => { const w = window.__wayfarer; const g = w.game; const e = [...g.world.entities.values()].find((e) => e.typeId === npc); const { sx, sy } = w.renderer.toScreen(e.x, e.z); const r = document.querySelector('canvas.world').getBoundingClientRect(); return { x: r.left + sx, y: r.top + sy }; }, process.env.NPC ?? 'merchant_tobin');
await page.mouse.click(pos.x, pos.y, { button: 'right' });
await page.waitForTimeout(300);
await page.screenshot({ path: `${OUT}/${name}-menu.png` });
await page.keyboard.press('Escape');
await page.mouse.click(pos.x, pos.y);
await page.waitForSelector('#dialogue:not([hidden])', { timeout: 20000 });
await page.screenshot({ path: `${OUT}/${name}-dialogue.png` });
if (process.env.NPC) { await ctx.close(); process.exit(0); }
await page.click('#dialogue .dlg-response:has-text("Show me")');
await page.waitForSelector('#shop:not([hidden])');
await page.waitForTimeout(300);
await page.screenshot({ path: `${OUT}/${name}-shop.png` });
await ctx.close();
