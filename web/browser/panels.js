// Browser tests of the side panels and windows not covered in run.js: the shop, prayer, friends
// (with a private message), a quest started through an NPC's dialogue, the make dialog, the chat's
// Game tab and the bank's X amounts. Registered by run.js with its harness (`test`, `enterAs`,
// `clickEntity`, `chatHas`, `OUT`, `ADMIN_CODE`), so they run against the same server and save a
// screenshot on failure like every other test.

import { join } from 'node:path';
import { waitUntil } from './wait.js';

/** The nearest entity of an NPC type, by the page's own world state. */
const npcOf = (page, typeId) => page.evaluate((typeId) => {
  const g = window.__wayfarer.game;
  return [...g.world.entities.values()].find((e) => e.kind === 'npc' && e.typeId === typeId)?.id ?? null;
}, typeId);

/** Waits for an NPC of this type to be in view and returns its id. */
async function waitNpc(page, typeId) {
  await waitUntil(page, (typeId) => [...window.__wayfarer.game.world.entities.values()].some((e) => e.kind === 'npc' && e.typeId === typeId), typeId, { timeout: 20_000 });
  return npcOf(page, typeId);
}

/** Types a line in the chat box and sends it, as a player would. */
async function say(page, text) {
  await page.fill('.chat-input', text);
  await page.press('.chat-input', 'Enter');
}

/** How many of an item the page's inventory holds. */
const held = (page, itemId) => page.evaluate((itemId) => window.__wayfarer.game.inventory
  .filter((s) => s.itemId === itemId).reduce((n, s) => n + s.quantity, 0), itemId);

/** Gives the player items with the admin chat commands and waits for them in the inventory. */
async function give(page, code, itemId, quantity) {
  const before = await held(page, itemId);
  await say(page, `/admin ${code}`);
  await say(page, `/give ${itemId} ${quantity}`);
  await waitUntil(page, ([id, n]) => window.__wayfarer.game.inventory.filter((s) => s.itemId === id)
    .reduce((t, s) => t + s.quantity, 0) === n, [itemId, before + quantity], { timeout: 15_000 });
}

/** Walks next to Millbrook's anvil (in view of the spawn) and returns its entity id. */
async function walkToAnvil(page) {
  await waitUntil(page, () => [...window.__wayfarer.game.world.entities.values()].some((e) => e.typeId === 'anvil'), null, { timeout: 20_000 });
  const anvil = await page.evaluate(() => {
    const g = window.__wayfarer.game;
    const a = [...g.world.entities.values()].find((e) => e.typeId === 'anvil');
    g.walk(a.x - 1, a.z);
    return a.id;
  });
  // Standing beside it, the slide there finished: a click on a station hits its own tile only, so
  // the camera must have stopped where the click is aimed.
  await waitUntil(page, (id) => {
    const g = window.__wayfarer.game;
    const me = g.world.entities.get(g.selfId), a = g.world.entities.get(id);
    return me.x === a.x - 1 && me.z === a.z && performance.now() - (me.movedAt ?? 0) > g.tickMs * 2;
  }, anvil, { timeout: 20_000 });
  return anvil;
}

/** Uses the bronze bars on the anvil through the inventory and the canvas; waits for the dialog. */
async function barsOnAnvil(page, clickEntity, anvil) {
  const slot = await page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'bronze_bar').slot);
  // A bar's first action is Use; the anvil's first option then is "Use Bronze Bar ->".
  await page.click(`.inv-grid .slot[data-slot="${slot}"]`);
  await page.waitForSelector('.use-hint:not([hidden])');
  await clickEntity(page, anvil);
  await page.waitForSelector('#make:not([hidden]) .make-row', { timeout: 15_000 });
}

/** @param {{test: Function, enterAs: Function, clickEntity: Function, chatHas: Function, OUT: string, ADMIN_CODE: string}} h */
export function registerPanelTests({ test, enterAs, clickEntity, chatHas, OUT, ADMIN_CODE }) {
  test('make dialog: bars on an anvil, choose a dagger over arrowtips, make 5', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Smyth');
    await give(page, ADMIN_CODE, 'hammer', 1);
    await give(page, ADMIN_CODE, 'bronze_bar', 6);
    const anvil = await walkToAnvil(page);
    await barsOnAnvil(page, clickEntity, anvil);
    // Every bronze recipe in the server's order; a new smith can make the dagger, not the arrowtips.
    const rows = await page.$$eval('#make .make-row', (l) => l.map((r) => ({
      id: r.getAttribute('data-recipe'), cannot: r.classList.contains('cannot'), why: r.querySelector('.make-why')?.textContent ?? null,
      name: r.querySelector('.make-name')?.firstChild?.textContent, needs: r.querySelector('.make-needs')?.textContent,
      xp: r.querySelector('.make-xp')?.textContent, pic: !!r.querySelector('.make-pic .icon') })));
    const ids = rows.map((r) => r.id);
    if (ids[0] !== 'smithing:bronze_dagger' || !ids.includes('smithing:bronze_arrowtips')) throw new Error(`options: ${ids}`);
    const dagger = rows[0], tips = rows.find((r) => r.id === 'smithing:bronze_arrowtips');
    if (dagger.cannot || dagger.why || dagger.name !== 'Bronze Dagger' || dagger.needs !== '1 × Bronze Bar · Hammer' || dagger.xp !== '12.5 XP' || !dagger.pic) {
      throw new Error(`dagger row: ${JSON.stringify(dagger)}`);
    }
    if (!tips.cannot || tips.why !== 'Needs Smithing 5') throw new Error(`arrowtips row: ${JSON.stringify(tips)}`);
    await page.click('#make .qty[data-qty="5"]');
    await page.waitForSelector('#make .qty[data-qty="5"][aria-pressed=true]');
    await page.screenshot({ path: join(OUT, 'make-dialog.png') });
    // A greyed option makes nothing and keeps the dialog open.
    await page.click('#make .make-row[data-recipe="smithing:bronze_arrowtips"]', { force: true });
    if (!(await page.isVisible('#make'))) throw new Error('a greyed option closed the dialog');
    await page.click('#make .make-row[data-recipe="smithing:bronze_dagger"]');
    await page.waitForSelector('#make', { state: 'hidden' });
    // Exactly five: one bar is left, and the inventory panel shows five daggers.
    await waitUntil(page, () => document.querySelectorAll('.inv-grid .slot[aria-label="Bronze Dagger x1"]').length === 5, null, { timeout: 30_000 });
    await chatHas(page, 'You made 5 bronze daggers.');
    if ((await held(page, 'bronze_bar')) !== 1) throw new Error(`${await held(page, 'bronze_bar')} bars left, not 1`);
    // The quantity is kept: the dialog opens again with 5 chosen; Escape closes it unmade.
    await barsOnAnvil(page, clickEntity, anvil);
    await page.waitForSelector('#make .qty[data-qty="5"][aria-pressed=true]');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(OUT, 'make-dialog-phone.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#make', { state: 'hidden' });
    if ((await held(page, 'bronze_bar')) !== 1) throw new Error('Escape made something');
  });

  test('chat: the game says what happened under Game, not under Local; the tab is kept', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Tamsin');
    await give(page, ADMIN_CODE, 'hammer', 1);
    await give(page, ADMIN_CODE, 'bronze_bar', 1);
    const anvil = await walkToAnvil(page);
    await say(page, 'off to the anvil');
    await chatHas(page, 'off to the anvil');
    await barsOnAnvil(page, clickEntity, anvil);
    await page.click('#make .qty[data-qty="1"]');
    // The digit key of an option makes it, as the classic make menus do.
    await page.keyboard.press('1');
    await page.waitForSelector('#make', { state: 'hidden' });
    const game = '.chat-log .msg.ch-game';
    await page.click('.chat-tab[data-tab=game]');
    await waitUntil(page, (sel) => [...document.querySelectorAll(sel)].some((m) => m.textContent === 'You hammer out a bronze dagger.'), game, { timeout: 30_000 });
    if (await page.$('.chat-log .msg.ch-local')) throw new Error('a local line shows under Game');
    const colours = await page.evaluate(() => ['.msg.ch-game', '.msg.ch-system'].map((s) => {
      const m = document.querySelector(s);
      return m && getComputedStyle(m).color;
    }));
    if (!colours[0] || colours[0] === colours[1]) throw new Error(`game lines are not in their own colour: ${colours}`);
    await page.screenshot({ path: join(OUT, 'chat-game.png') });
    await page.click('.chat-tab[data-tab=local]');
    await chatHas(page, 'off to the anvil');
    if (await page.$(game)) throw new Error('a game line shows under Local');
    await page.click('.chat-tab[data-tab=game]');
    // A reload keeps the Game tab chosen.
    await page.reload();
    await page.click('button.character');
    await page.waitForSelector('.chat-tab[data-tab=game].on', { timeout: 20_000 });
  });

  test('bank: deposit-X 20 and withdraw-X 7 of a stack', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Wendel');
    const booth = await page.evaluate(() => [...window.__wayfarer.game.world.entities.values()].find((e) => e.resourceType === 'bank')?.id);
    if (!booth) throw new Error('no bank booth in view');
    await clickEntity(page, booth);
    await page.waitForSelector('#bank:not([hidden])', { timeout: 20_000 });
    const coins = await held(page, 'coins');
    const slot = await page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'coins').slot);
    const amount = async (menuItem, typed) => {
      await page.click('.menu:not([hidden]) .menu-item:has-text("' + menuItem + '")');
      await page.waitForSelector('form.amount input');
      // Out of bounds is refused in the prompt, with the bounds; nothing is sent.
      await page.fill('form.amount input', '0');
      await page.press('form.amount input', 'Enter');
      await page.waitForSelector('form.amount .amount-error:has-text("from 1 to 2,147,483,647")');
      await page.fill('form.amount input', typed);
      await page.press('form.amount input', 'Enter');
      await page.waitForSelector('form.amount', { state: 'detached' });
    };
    await page.click(`.inv-grid .slot[data-slot="${slot}"]`, { button: 'right' });
    await amount('Deposit-X', '20');
    await waitUntil(page, (n) => window.__wayfarer.game.bank?.find((b) => b.itemId === 'coins')?.quantity === n, 20, { timeout: 15_000 });
    if ((await held(page, 'coins')) !== coins - 20) throw new Error(`holds ${await held(page, 'coins')} coins after depositing 20 of ${coins}`);
    await page.click('#bank .slot[data-item=coins]', { button: 'right' });
    const labels = await page.$$eval('.menu:not([hidden]) .menu-item', (l) => l.map((b) => b.firstChild?.textContent));
    if (labels.join() !== 'Withdraw-1,Withdraw-5,Withdraw-10,Withdraw-X,Withdraw-All') throw new Error(`bank menu: ${labels}`);
    await amount('Withdraw-X', '7');
    await waitUntil(page, (n) => window.__wayfarer.game.bank?.find((b) => b.itemId === 'coins')?.quantity === n, 13, { timeout: 15_000 });
    if ((await held(page, 'coins')) !== coins - 13) throw new Error(`holds ${await held(page, 'coins')} coins after withdrawing 7`);
  });

  test('shop: buy and sell through the shop window, coins change', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Hale');
    const tobin = await waitNpc(page, 'merchant_tobin');
    // The right-click menu by keyboard: its first option has focus, arrows move, Enter runs.
    await clickEntity(page, tobin, 'right');
    await page.waitForSelector('.menu:not([hidden]) .menu-item:has-text("Examine")');
    const options = await page.$$eval('.menu .menu-item', (l) => l.map((b) => b.textContent));
    if (!/^Talk-to/.test(options[0]) || !options.some((o) => o.startsWith('Examine'))) throw new Error(`menu: ${options}`);
    for (let i = options.findIndex((o) => o.startsWith('Examine')); i > 0; i--) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await chatHas(page, 'Runs the Millbrook general store.');
    // Left click: his first option (Talk-to); the dialogue offers the store.
    await clickEntity(page, tobin);
    await page.waitForSelector('#dialogue:not([hidden])', { timeout: 20_000 });
    await page.click('#dialogue .dlg-response:has-text("Show me your wares")');
    await page.waitForSelector('#shop:not([hidden]) .shop-item', { timeout: 20_000 });
    const title = await page.textContent('#shop h2');
    if (!/General Store/.test(title ?? '')) throw new Error(`shop window titled ${title}`);
    const coins = () => page.evaluate(() => window.__wayfarer.game.coins);
    const nets = () => page.evaluate(() => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'small_fishing_net').length);
    const before = await coins();
    const netsBefore = await nets();
    const price = await page.evaluate(() => window.__wayfarer.game.shop.items.find((i) => i.itemId === 'small_fishing_net').price);
    await page.click('#shop .shop-item[data-item=small_fishing_net]');
    await waitUntil(page, (n) => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'small_fishing_net').length === n, netsBefore + 1, { timeout: 15_000 });
    await waitUntil(page, (want) => window.__wayfarer.game.coins === want, before - price, { timeout: 15_000 });
    // The panel's coin line follows.
    await waitUntil(page, (want) => document.querySelector('#panel-inventory .coins')?.textContent === `${want.toLocaleString()} coins`, before - price);
    await page.screenshot({ path: join(OUT, 'shop.png') });
    // With the shop open, a click on an inventory item sells one.
    const slot = await page.evaluate(() => window.__wayfarer.game.inventory.find((s) => s.itemId === 'small_fishing_net').slot);
    await page.click(`.inv-grid .slot[data-slot="${slot}"]`);
    await waitUntil(page, (n) => window.__wayfarer.game.inventory.filter((s) => s.itemId === 'small_fishing_net').length === n, netsBefore, { timeout: 15_000 });
    await waitUntil(page, (low) => window.__wayfarer.game.coins > low, before - price, { timeout: 15_000 });
    const after = await coins();
    if (after >= before) throw new Error(`sold back for ${after - (before - price)} of a ${price} coin price: a profit`);
    // Right click on a shop item: buy 1, 5, 10, or its value.
    await page.click('#shop .shop-item[data-item=small_fishing_net]', { button: 'right' });
    await page.click('.menu:not([hidden]) .menu-item:has-text("Value")');
    await chatHas(page, `Small Fishing Net: currently costs ${price} coins.`);
    // Escape closes the shop (the server is told, and says so).
    await page.keyboard.press('Escape');
    await page.waitForSelector('#shop', { state: 'hidden', timeout: 15_000 });
    // "Trade" on the shopkeeper opens the store at once: no dialogue to click through.
    await clickEntity(page, tobin, 'right');
    await page.click('.menu:not([hidden]) .menu-item:has-text("Trade")');
    await page.waitForSelector('#shop:not([hidden]) .shop-item', { timeout: 20_000 });
    if (await page.isVisible('#dialogue')) throw new Error('the dialogue shows over the shop');
  });

  test('prayer: switch a prayer on and off in the panel, points shown', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Isla');
    await page.keyboard.press('p');
    await page.waitForSelector('#panel-prayer button.prayer');
    await waitUntil(page, () => {
      const p = window.__wayfarer.game.prayer;
      return p.maxPoints > 0 && document.querySelector('#panel-prayer .prayer-points')?.textContent === `Prayer: ${p.points} / ${p.maxPoints}`;
    });
    const stone = '#panel-prayer button.prayer[data-prayer=stone_skin]';
    await page.click(stone);
    await page.waitForSelector(`${stone}[aria-pressed=true]`, { timeout: 15_000 });
    const active = await page.evaluate(() => window.__wayfarer.game.prayer.active);
    if (!active.includes('stone_skin')) throw new Error(`active prayers: ${active}`);
    await page.screenshot({ path: join(OUT, 'prayer.png') });
    await page.click(stone);
    await page.waitForSelector(`${stone}[aria-pressed=false]`, { timeout: 15_000 });
    await waitUntil(page, () => !window.__wayfarer.game.prayer.active.length);
    // A prayer above the player's level is shown locked.
    const locked = await page.$$eval('#panel-prayer button.prayer.locked', (l) => l.length);
    if (!locked) throw new Error('no prayer shown as locked for a level 1 player');
  });

  test('friends: add a friend, see them online, send a private message', async ({ base, open }) => {
    const a = await open();
    const b = await open();
    await enterAs(a.page, base, 'Fenn');
    await enterAs(b.page, base, 'Gwen');
    await a.page.keyboard.press('f');
    await a.page.fill('#panel-friends input', 'Gwen');
    await a.page.click('#panel-friends button:has-text("Add")');
    await b.page.keyboard.press('f');
    await b.page.waitForSelector('#panel-friends .friend.incoming:has-text("Fenn")', { timeout: 15_000 });
    await b.page.click('#panel-friends .friend.incoming button:has-text("Accept")');
    await a.page.waitForSelector('#panel-friends .friend:has-text("Gwen") .dot.online', { timeout: 15_000 });
    await b.page.waitForSelector('#panel-friends .friend:has-text("Fenn") .dot.online', { timeout: 15_000 });
    await a.page.screenshot({ path: join(OUT, 'friends.png') });
    // "Message" starts a whisper in the chat input.
    await a.page.click('#panel-friends .friend:has-text("Gwen") button:has-text("Message")');
    const value = await a.page.inputValue('.chat-input');
    if (value !== '@Gwen ') throw new Error(`chat input holds ${JSON.stringify(value)}`);
    await a.page.keyboard.type('meet at the bank');
    await a.page.keyboard.press('Enter');
    await waitUntil(b.page, () => [...document.querySelectorAll('.chat-log .msg.ch-private')].some((m) => m.textContent === 'From Fenn: meet at the bank'), null, { timeout: 15_000 });
    await waitUntil(a.page, () => [...document.querySelectorAll('.chat-log .msg.ch-private')].some((m) => m.textContent === 'To Gwen: meet at the bank'), null, { timeout: 15_000 });
    // The private tab shows it; the global tab does not.
    await b.page.click('.chat-tab[data-tab=global]');
    if (await b.page.$('.chat-log .msg.ch-private')) throw new Error('a private message shows under Global');
    await b.page.click('.chat-tab[data-tab=private]');
    await chatHas(b.page, 'meet at the bank');
  });

  test('dialogue and quests: answer a quest NPC, the quest panel shows it started', async ({ base, open }) => {
    const { page } = await open();
    await enterAs(page, base, 'Jory');
    const holt = await waitNpc(page, 'captain_holt');
    await clickEntity(page, holt);
    await page.waitForSelector('#dialogue:not([hidden])', { timeout: 20_000 });
    const name = await page.textContent('#dialogue h2');
    if (name !== 'Captain Holt') throw new Error(`dialogue titled ${name}`);
    await page.waitForSelector('#dialogue .dlg-response:has-text("I can help")');
    // Number keys answer, as in the classic dialogue boxes.
    const index = await page.evaluate(() => [...document.querySelectorAll('#dialogue .dlg-response')].findIndex((b) => b.textContent.includes('I can help')));
    await page.keyboard.press(String(index + 1));
    await page.waitForSelector('#dialogue .dlg-text:has-text("Thin out the rats")', { timeout: 15_000 });
    await page.screenshot({ path: join(OUT, 'dialogue.png') });
    await page.click('#dialogue .dlg-response:has-text("Understood")');
    await page.keyboard.press('q');
    await page.waitForSelector('#panel-quests li.q-in_progress:has-text("Vermin")', { timeout: 15_000 });
    await waitUntil(page, () => window.__wayfarer.game.quests.quests.some((q) => q.questId === 'vermin_and_villains' && q.status === 'in_progress'));
    // Its journal: the talk with Holt done, the current stage with its progress.
    await page.click('#panel-quests li[data-quest=vermin_and_villains] button');
    await page.waitForSelector('#panel-quests .quest-detail .q-stage.done:has-text("Report to Captain Holt")');
    const current = await page.textContent('#panel-quests .quest-detail .q-stage.current');
    // The journal's rows are plain text on the panel (they once took the world's box style: blue bars).
    const bg = await page.$eval('#panel-quests .quest-detail .q-stage.current', (e) => getComputedStyle(e).backgroundColor);
    if (bg !== 'rgba(0, 0, 0, 0)') throw new Error(`a quest stage drawn on ${bg}`);
    if (!/^Kill 5 giant rats \(0\/5\)$/.test(current ?? '')) throw new Error(`current stage: ${current}`);
    // Escape closes what is left of the dialogue.
    await page.keyboard.press('Escape');
    await page.waitForSelector('#dialogue', { state: 'hidden', timeout: 15_000 });
    await page.screenshot({ path: join(OUT, 'quests.png') });
  });
}
