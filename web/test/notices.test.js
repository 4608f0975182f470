// The zone banner's and the death screen's words (notices.js), and the combat tab's styles
// (ui/controls.js): what CONTRACT.md section 10's messages and the protocol's styles become.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zoneNotice, deathSummary, itemLine, areaAt, asSentence } from '../src/notices.js';
import { stylesFor, effectiveStyle, MELEE_STYLES, RANGED_STYLES, KEY_BINDINGS } from '../src/ui/controls.js';

test('a zone banner names the zone; a PvP area warns', () => {
  const safe = zoneNotice({ areaId: 'millbrook', name: 'Millbrook', safe: true, pvp: false });
  assert.deepEqual([safe.title, safe.subtitle, safe.warning], ['Millbrook', 'Safe area', null]);
  const wild = zoneNotice({ areaId: 'ashen_wastes', name: 'Ashen Wastes', safe: false, pvp: true });
  assert.equal(wild.pvp, true);
  assert.match(wild.subtitle, /PvP/);
  assert.match(wild.warning ?? '', /Ashen Wastes is a PvP area.*3 most valuable/);
  // A PvP area is never shown as safe, whatever `safe` says; a nameless area uses its id in words.
  assert.equal(zoneNotice({ areaId: 'dark_woods', safe: true, pvp: true }).safe, false);
  assert.equal(zoneNotice({ areaId: 'dark_woods', safe: false, pvp: false }).title, 'dark woods');
});

test('the death screen says who, what was kept and lost, and where the gravestone is', () => {
  const names = { bronze_sword: 'Bronze Sword', coins: 'Coins', bread: 'Bread' };
  const now = 1_000_000;
  const d = deathSummary({
    killerId: 'npc-1', killerName: 'Goblin',
    kept: [{ itemId: 'bronze_sword', quantity: 1 }],
    lost: [{ itemId: 'coins', quantity: 1200 }, { itemId: 'bread', quantity: 2 }],
    gravestone: { x: 12, z: -4, expiresAt: now + 15 * 60_000 }, respawn: { x: 0, z: 0 },
  }, (id) => names[id], now);
  assert.equal(d.killer, 'Goblin');
  assert.deepEqual(d.kept.map((i) => i.name), ['Bronze Sword']);
  assert.equal(itemLine(d.lost), '1,200 x Coins, 2 x Bread');
  assert.match(d.gravestone?.text ?? '', /\(12, -4\) for about 15 minutes/);
  assert.deepEqual(d.respawn, { x: 0, z: 0 });
  assert.equal(d.fell, null);
  assert.equal(d.wake, 'You wake at (0, 0).');
  // A PvP death has no gravestone: who may take what fell depends on the killer.
  const pvp = { killerId: 'npc-9', killerName: 'Skeleton', kept: [], lost: [{ itemId: 'bread', quantity: 1 }], gravestone: null, respawn: { x: 0, z: 0 } };
  const areas = [{ name: 'Millbrook', min: { x: -40, z: -40 }, max: { x: 40, z: 40 } }, { name: 'The Vale', min: { x: -200, z: -200 }, max: { x: 200, z: 200 } }];
  const byNpc = deathSummary(pvp, (id) => names[id], now, { killerIsPlayer: false, areaName: (x, z) => areaAt(areas, x, z) });
  assert.equal(byNpc.fell, 'What you lost lies where you fell for anyone to take, gone after 3 minutes.');
  assert.equal(byNpc.wake, 'You wake in Millbrook (0, 0).');
  const byPlayer = deathSummary({ ...pvp, killerId: 'c-7', killerName: 'Grim' }, (id) => names[id], now, { killerIsPlayer: true });
  assert.match(byPlayer.fell ?? '', /your killer's for 60 seconds, then anyone's/);
  // A death with nothing carried: nothing kept or lost, no gravestone.
  const bare = deathSummary({ kept: [], lost: [], respawn: { x: 1, z: 2 } }, (id) => id, now);
  assert.deepEqual([bare.killer, bare.kept, bare.lost, bare.gravestone], [null, [], [], null]);
});

test('the area at a tile is the smallest that holds it', () => {
  const areas = [{ name: 'Region', min: { x: -100, z: -100 }, max: { x: 100, z: 100 } }, { name: 'Town', min: { x: 0, z: 0 }, max: { x: 10, z: 10 } }];
  assert.equal(areaAt(areas, 5, 5), 'Town');
  assert.equal(areaAt(areas, 10, 10), 'Town');
  assert.equal(areaAt(areas, 11, 10), 'Region');
  assert.equal(areaAt(areas, 101, 0), null);
  assert.equal(areaAt(undefined, 0, 0), null);
});

test('combat styles follow the weapon, as the server allows them', () => {
  assert.deepEqual(stylesFor(undefined).map((s) => s.id), ['accurate', 'aggressive', 'defensive', 'controlled']);
  assert.equal(stylesFor('bronze_sword'), MELEE_STYLES);
  assert.equal(stylesFor('oak_shortbow'), RANGED_STYLES);
  assert.equal(stylesFor('magic_longbow'), RANGED_STYLES);
  assert.equal(stylesFor('staff_of_air'), MELEE_STYLES);
  // The style shown is the one the server fights with: a style the weapon does not take is accurate.
  assert.equal(effectiveStyle('defensive', 'bronze_sword'), 'defensive');
  assert.equal(effectiveStyle('defensive', 'oak_shortbow'), 'accurate');
  assert.equal(effectiveStyle('rapid', 'oak_shortbow'), 'rapid');
  assert.equal(effectiveStyle('rapid', undefined), 'accurate');
  assert.equal(effectiveStyle('controlled', 'staff_of_air'), 'controlled');
  // Every key the settings list names is one key or a range, with what it does.
  for (const [k, what] of KEY_BINDINGS) assert.ok(k && what);
});

test("a refusal reads as a sentence: capital first letter, a full stop, names untouched", () => {
  assert.equal(asSentence('you need level 5 Attack to use Iron Sword'), 'You need level 5 Attack to use Iron Sword.');
  assert.equal(asSentence('you cannot attack that'), 'You cannot attack that.');
  assert.equal(asSentence('Already a sentence.'), 'Already a sentence.');
  assert.equal(asSentence('what now?'), 'What now?');
  assert.equal(asSentence('  trailing space '), 'Trailing space.');
  assert.equal(asSentence('rate_limited'), 'Rate_limited.');
  assert.equal(asSentence(''), '');
});
