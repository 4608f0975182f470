// The screenshots of docs/client.md, played as players would against the test server: `SCREENSHOTS=1
// ONLY=screenshots node browser/run.js` writes docs/screenshots/client-*.png (1280×800, and 390×844
// for the phone). Two players: Rowan, whose screens these are, and Brom beside him in a helmet and boots
// with a sword and shield (worn figures of others), who trades and duels with him. Everything comes from
// the server (the zone banners, the death, the spells, the duel's screens); nothing is injected.

import { join, resolve } from 'node:path';
import { waitUntil } from './wait.js';

const DOCS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');

/** Types a chat line and sends it. */
async function say(page, text) {
  await page.fill('.chat-input', text);
  await page.press('.chat-input', 'Enter');
}

/** Walks to a tile and waits to stand on it. */
async function walkTo(page, x, z) {
  await page.evaluate(([x, z]) => window.__wayfarer.game.walk(x, z), [x, z]);
  await waitUntil(page, ([x, z]) => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId);
    return me && me.x === x && me.z === z && performance.now() - (me.movedAt ?? 0) > g.tickMs;
  }, [x, z], { timeout: 30_000 });
}

/** Walks beside an entity (it may stand anywhere around it) and waits to have stopped there. */
async function walkBeside(page, e) {
  await page.evaluate(([x, z]) => window.__wayfarer.game.walk(x, z), [e.x + 1, e.z]);
  await waitUntil(page, ([x, z]) => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId);
    return me && Math.max(Math.abs(me.x - x), Math.abs(me.z - z)) <= 2 && performance.now() - (me.movedAt ?? 0) > g.tickMs * 3;
  }, [e.x, e.z], { timeout: 30_000 });
}

/** Where an entity is on the page. */
const screenOf = (page, id) => page.evaluate((id) => {
  const w = window.__wayfarer;
  const e = w.game.world.entities.get(id);
  const { sx, sy } = w.renderer.toScreen(e.x, e.z);
  const r = document.querySelector('canvas.world').getBoundingClientRect();
  return { x: r.left + sx, y: r.top + sy };
}, id);

/** The nearest entity of a type. */
const nearest = (page, typeId) => waitUntil(page, (typeId) => {
  const g = window.__wayfarer.game;
  const me = g.world.entities.get(g.selfId);
  return [...g.world.entities.values()].filter((e) => e.typeId === typeId && !e.depleted && (e.health ?? 1) > 0)
    .sort((a, b) => Math.hypot(a.x - me.x, a.z - me.z) - Math.hypot(b.x - me.x, b.z - me.z))[0];
}, typeId, { timeout: 20_000 });

/** An inventory slot holding an item. */
const slotOf = (page, itemId) => page.evaluate((id) => window.__wayfarer.game.inventory.find((s) => s.itemId === id)?.slot, itemId);

/** Gives items as admin and waits for the last. */
async function kit(page, code, list) {
  await say(page, `/admin ${code}`);
  for (const [id, n] of list) await say(page, `/give ${id} ${n}`);
  const last = list[list.length - 1][0];
  await waitUntil(page, (id) => window.__wayfarer.game.inventory.some((s) => s.itemId === id), last, { timeout: 15_000 });
}

/** Wears or wields each item. */
async function wear(page, ids) {
  for (const id of ids) {
    const slot = await slotOf(page, id);
    if (slot !== undefined) await page.evaluate((slot) => window.__wayfarer.game.act('equip', { slot }), slot);
    await waitUntil(page, (id) => Object.values(window.__wayfarer.game.equipment).some((e) => e.itemId === id), id, { timeout: 10_000 });
  }
}

/** @param {{enterAs: Function, ADMIN_CODE: string}} h */
export function screenshotTask({ enterAs, ADMIN_CODE }) {
  return async ({ base, open }) => {
    const a = await open();
    const b = await open();
    const { page } = a;
    const other = b.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await other.setViewportSize({ width: 1280, height: 800 });
    const shot = (name, p = page) => p.screenshot({ path: join(DOCS, `client-${name}.png`) });
    await enterAs(page, base, 'Rowan');
    await enterAs(other, base, 'Brom');
    await kit(page, ADMIN_CODE, [['bronze_helmet', 1], ['leather_body', 1], ['wooden_shield', 1], ['hammer', 1], ['bronze_bar', 5], ['raw_trout', 1],
      ['copper_ore', 1], ['tin_ore', 1], ['air_rune', 40], ['mind_rune', 25], ['oak_logs', 1], ['feathers', 30], ['bones', 1]]);
    await kit(other, ADMIN_CODE, [['bronze_helmet', 1], ['wooden_shield', 1], ['leather_boots', 1]]);
    await wear(page, ['bronze_helmet', 'leather_body', 'wooden_shield', 'bronze_pickaxe']);
    await wear(other, ['bronze_helmet', 'bronze_sword', 'wooden_shield', 'leather_boots']);
    await say(page, 'Off to the smithy!');
    // Town: the furnace and the anvil with their badges, Brom beside Rowan in what he wears, the
    // hover text over the anvil.
    await walkTo(other, -7, -10);
    await walkTo(page, -6, -11);
    const anvil = await nearest(page, 'anvil');
    const at = await screenOf(page, anvil.id);
    await page.mouse.move(at.x, at.y);
    await page.waitForTimeout(300);
    await shot('playing');
    await page.keyboard.press('e');
    await page.waitForTimeout(200);
    await shot('worn');
    await page.keyboard.press('i');
    // The make dialog: a bar used on the anvil.
    await page.click(`.inv-grid .slot[data-slot="${await slotOf(page, 'bronze_bar')}"]`, { button: 'right' });
    await page.click('.menu:not([hidden]) .menu-item:has-text("Use")');
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('#make:not([hidden])', { timeout: 20_000 });
    await page.mouse.move(5, 790);
    await page.waitForTimeout(200);
    await shot('make');
    await page.keyboard.press('Escape');
    // The right-click menu on another player.
    await walkTo(page, -6, -11);
    const brom = await page.evaluate(() => window.__wayfarer.game.selfId && [...window.__wayfarer.game.world.entities.values()].find((e) => e.name === 'Brom')?.id);
    const bromAt = await screenOf(page, brom);
    await page.mouse.click(bromAt.x, bromAt.y, { button: 'right' });
    await page.waitForSelector('.menu:not([hidden])');
    await shot('menu');
    // A trade: Rowan offers his feathers, Brom 10 coins; the second screen.
    await page.click('.menu-item:has-text("Trade with")');
    await other.click('.trade-incoming button:has-text("Accept")');
    await page.waitForSelector('#trade[data-screen=screen1]');
    await page.click(`.inv-grid .slot[data-slot="${await slotOf(page, 'feathers')}"]`);
    await other.click(`.inv-grid .slot[data-slot="${await slotOf(other, 'coins')}"]`, { button: 'right' });
    await other.click('.menu:not([hidden]) .menu-item:has-text("Offer-X")');
    await other.fill('form.amount input', '10');
    await other.press('form.amount input', 'Enter');
    await waitUntil(page, () => window.__wayfarer.game.trade.theirs.items.some((i) => i.itemId === 'coins'));
    await page.click('#trade .accept');
    await other.click('#trade .accept');
    await page.waitForSelector('#trade[data-screen=screen2]');
    await page.waitForTimeout(200);
    await shot('trade');
    await page.click('#trade .accept');
    await other.click('#trade .accept');
    await page.waitForSelector('#trade', { state: 'hidden' });
    // A duel's confirm screen: no food, no magic; Rowan stakes his bones, Brom his coins.
    await page.mouse.click(bromAt.x, bromAt.y, { button: 'right' });
    await page.click('.menu-item:has-text("Challenge")');
    await other.click('.duel-incoming button:has-text("Accept")');
    await page.waitForSelector('#duel[data-screen=screen1]');
    await page.click('#duel .duel-rule[data-rule=no_food] input');
    await waitUntil(other, () => window.__wayfarer.game.duel.rules.includes('no_food'));
    await page.click('#duel .duel-rule[data-rule=no_magic] input');
    await waitUntil(other, () => window.__wayfarer.game.duel.rules.includes('no_magic'));
    await page.click(`.inv-grid .slot[data-slot="${await slotOf(page, 'bones')}"]`);
    await other.click(`.inv-grid .slot[data-slot="${await slotOf(other, 'coins')}"]`);
    await waitUntil(page, () => window.__wayfarer.game.duel.theirs.items.length > 0 && window.__wayfarer.game.duel.mine.items.length > 0);
    await page.click('#duel .accept');
    await other.click('#duel .accept');
    await page.waitForSelector('#duel[data-screen=screen2]');
    await other.click('#duel .accept');
    await waitUntil(page, () => window.__wayfarer.game.duel.theirs.accepted);
    await page.waitForTimeout(200);
    await shot('duel');
    await page.click('#duel .decline');
    await page.waitForSelector('#duel', { state: 'hidden' });
    // Dialogue with Captain Holt, then the quest's journal.
    const holt = await nearest(page, 'captain_holt');
    await walkBeside(page, holt);
    await page.mouse.click(...Object.values(await screenOf(page, holt.id)));
    await page.waitForSelector('#dialogue .dlg-response:has-text("I can help")', { timeout: 20_000 });
    await page.keyboard.press('1');
    await page.waitForSelector('#dialogue .dlg-text:has-text("Thin out the rats")', { timeout: 15_000 });
    await shot('dialogue');
    await page.click('#dialogue .dlg-response:has-text("Understood")');
    await waitUntil(page, () => window.__wayfarer.game.dialogue?.ended);
    await page.click('#dialogue .dlg-response');
    await page.keyboard.press('q');
    await page.click('#panel-quests li[data-quest=vermin_and_villains] button', { timeout: 15_000 });
    await page.waitForSelector('#panel-quests .quest-detail');
    await shot('quests');
    // The general store, from Tobin's "Trade".
    const tobin = await nearest(page, 'merchant_tobin');
    await walkBeside(page, tobin);
    await page.mouse.click(...Object.values(await screenOf(page, tobin.id)), { button: 'right' });
    await page.click('.menu:not([hidden]) .menu-item:has-text("Trade")');
    await page.waitForSelector('#shop:not([hidden])', { timeout: 20_000 });
    await shot('shop');
    await page.keyboard.press('Escape');
    await page.keyboard.press('k');
    await shot('skills');
    await page.keyboard.press('f');
    await page.fill('#panel-friends input', 'Brom');
    await page.click('#panel-friends button:has-text("Add")');
    await other.keyboard.press('f');
    await other.click('#panel-friends .friend.incoming button:has-text("Accept")', { timeout: 15_000 }).catch(() => {});
    await page.waitForSelector('#panel-friends .friend:not(.pending) .fname:has-text("Brom")', { timeout: 15_000 });
    await shot('friends');
    await page.keyboard.press('i');
    // The nearest tree: hover, then chop (the swing and the XP drop show).
    const tree = await page.evaluate(() => {
      const g = window.__wayfarer.game;
      const me = g.world.entities.get(g.selfId);
      return [...g.world.entities.values()].filter((e) => e.resourceType === 'tree' && !e.depleted)
        .sort((a, b) => Math.hypot(a.x - me.x, a.z - me.z) - Math.hypot(b.x - me.x, b.z - me.z))[0];
    });
    await walkTo(page, tree.x - 1, tree.z + 1);
    const treeAt = await screenOf(page, tree.id);
    await page.mouse.move(treeAt.x, treeAt.y);
    await page.waitForTimeout(300);
    await shot('hover');
    await page.mouse.down();
    await page.mouse.up();
    await page.waitForSelector('.xp-drop', { timeout: 30_000 });
    await page.waitForTimeout(150);
    await shot('chopping');
    // The woods east of town: chickens, rats, trees; the combat tab with auto-retaliate, settings,
    // the spellbook (the server's spells.json), the world map.
    await walkTo(page, 48, 0);
    const mob = await waitUntil(page, () => [...window.__wayfarer.game.world.entities.values()].find((e) => e.kind === 'npc' && (e.typeId === 'chicken' || e.typeId === 'giant_rat')), null, { timeout: 20_000 });
    await walkTo(page, mob.x - 2, mob.z);
    await page.mouse.move(5, 400);
    await page.waitForTimeout(800);
    await shot('woods');
    await page.keyboard.press('c');
    await page.waitForTimeout(200);
    await shot('combat');
    await page.keyboard.press('o');
    await page.waitForTimeout(200);
    await shot('settings');
    await page.keyboard.press('b');
    await page.waitForSelector('#panel-spellbook .spell[data-spell=wind_strike]');
    await shot('spellbook');
    await page.keyboard.press('i');
    await page.keyboard.press('m');
    await page.waitForTimeout(400);
    await shot('map');
    await page.keyboard.press('m');
    // Zoomed in.
    for (let i = 0; i < 3; i++) await page.keyboard.press('+');
    await page.waitForTimeout(300);
    await shot('zoom');
    for (let i = 0; i < 3; i++) await page.keyboard.press('-');
    // Into the Ashen Wastes (the PvP banner and warning) at its southern edge, then on to the
    // skeletons, who kill a new character.
    await say(page, '/tp 0 44');
    await page.waitForSelector('.zone-banner.pvp:not([hidden])', { timeout: 20_000 });
    await page.waitForTimeout(300);
    await shot('pvp');
    await say(page, '/tp -15 76');
    const foe = await nearest(page, 'skeleton');
    await page.evaluate((id) => window.__wayfarer.game.act('attack', { targetId: id }), foe.id);
    await page.waitForSelector('#death:not([hidden])', { timeout: 120_000 });
    await page.waitForTimeout(300);
    await shot('death');
    await page.click('#death button:has-text("Continue")');
    // The phone: folded chat, the drawer, the orbs; then a dialogue there.
    await page.setViewportSize({ width: 390, height: 844 });
    if (!(await page.$('.chat.folded'))) await page.click('.chat-fold');
    await page.waitForTimeout(1500);
    await shot('phone');
    const holt2 = await nearest(page, 'captain_holt');
    await walkBeside(page, holt2);
    await page.mouse.click(...Object.values(await screenOf(page, holt2.id)));
    await page.waitForSelector('#dialogue:not([hidden])', { timeout: 20_000 });
    await page.waitForTimeout(200);
    await shot('phone-dialogue');
  };
}
