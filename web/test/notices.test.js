// The zone banner's and the death screen's words (notices.js), and the combat tab's styles
// (ui/controls.js): what CONTRACT.md section 10's messages and the protocol's styles become.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zoneNotice, deathSummary, itemLine } from '../src/notices.js';
import { stylesFor, MELEE_STYLES, RANGED_STYLES, KEY_BINDINGS } from '../src/ui/controls.js';

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
  // A death with nothing carried: nothing kept or lost, no gravestone.
  const bare = deathSummary({ kept: [], lost: [], respawn: { x: 1, z: 2 } }, (id) => id, now);
  assert.deepEqual([bare.killer, bare.kept, bare.lost, bare.gravestone], [null, [], [], null]);
});

test('combat styles follow the weapon, as the server allows them', () => {
  assert.deepEqual(stylesFor(undefined).map((s) => s.id), ['accurate', 'aggressive', 'defensive', 'controlled']);
  assert.equal(stylesFor('bronze_sword'), MELEE_STYLES);
  assert.equal(stylesFor('oak_shortbow'), RANGED_STYLES);
  assert.equal(stylesFor('magic_longbow'), RANGED_STYLES);
  assert.equal(stylesFor('staff_of_air'), MELEE_STYLES);
  // Every key the settings list names is one key or a range, with what it does.
  for (const [k, what] of KEY_BINDINGS) assert.ok(k && what);
});
