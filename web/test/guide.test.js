import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackedStep, stepTarget, questLine, rewardRows, stationFor, HELP } from '../src/guide.js';
import { questMarker, overheadLines, overheadText, insideBuilding, fadeToward, poiIcon, POI_ICONS, OVERHEAD_MS } from '../src/place.js';
import { ripples } from '../src/terrain.js';

const DEFS = {
  first_catch: {
    name: 'First Catch',
    startNpc: 'old_marta',
    stages: [
      { id: 'start', type: 'dialogue', description: 'Talk to Old Marta by the pier', npcId: 'old_marta' },
      { id: 'catch', type: 'gather', description: 'Catch 5 raw shrimp', target: 'raw_shrimp', count: 5 },
      { id: 'cook', type: 'interact', description: 'Cook 5 shrimp on the range', target: 'shrimp', count: 5 },
      { id: 'finish', type: 'dialogue', description: 'Bring the shrimp to Old Marta', npcId: 'old_marta' },
    ],
  },
};

test('a newcomer with no quest is pointed at the nearest NPC offering one', () => {
  const npcs = [
    { kind: 'npc', name: 'Far Guide', typeId: 'far', x: 30, z: 0, quest: 'available' },
    { kind: 'npc', name: 'Old Marta', typeId: 'old_marta', x: 3, z: 2, quest: 'available' },
    { kind: 'npc', name: 'Banker', typeId: 'banker', x: 1, z: 1 },
  ];
  const step = trackedStep([], DEFS, null, npcs, { x: 0, z: 0 });
  assert.equal(step.text, 'Talk to Old Marta (the ! above a head)');
  assert.deepEqual(stepTarget(step, npcs, { x: 0, z: 0 }, null), { x: 3, z: 2 });
  // Nobody with a quest in view: no tracker.
  assert.equal(trackedStep([], DEFS, null, [npcs[2]], { x: 0, z: 0 }), null);
});

test('the tracker shows the stage under way with its progress, and points at its target', () => {
  const quests = [{ questId: 'first_catch', status: 'in_progress', stageId: 'catch', progress: 2, count: 5 }];
  const step = trackedStep(quests, DEFS, 'first_catch', [], null);
  assert.equal(step.title, 'First Catch');
  assert.equal(step.text, 'Catch 5 raw shrimp');
  assert.equal(step.progress, 2);
  assert.equal(step.count, 5);
  const world = [
    { kind: 'resource', resourceType: 'tree', typeId: 'tree', x: 1, z: 1 },
    { kind: 'resource', resourceType: 'fishing', typeId: 'fishing_spot_net', x: 31, z: 25 },
    { kind: 'resource', resourceType: 'fishing', typeId: 'fishing_spot_net', x: 33, z: 27 },
  ];
  assert.deepEqual(stepTarget(step, world, { x: 30, z: 20 }, null), { x: 31, z: 25 });
  // The cooking stage: a range in view, else the map's range icon.
  const cook = trackedStep([{ ...quests[0], stageId: 'cook' }], DEFS, null, [], null);
  assert.deepEqual(stepTarget(cook, [{ kind: 'resource', resourceType: 'range', x: 6, z: -15 }], null, null), { x: 6, z: -15 });
  assert.deepEqual(stepTarget(cook, [], null, { pois: [{ kind: 'range', tile: { x: 5, z: -14 } }] }), { x: 5, z: -14 });
  assert.equal(stationFor('bronze_bar'), 'furnace');
  assert.equal(stationFor('bronze_dagger'), 'anvil');
});

test('a travel stage points at the middle of its area', () => {
  const step = { questId: 'q', title: 'Q', text: 'Go', stage: { id: 't', type: 'travel', target: 'hills' } };
  assert.deepEqual(stepTarget(step, [], null, { areas: [{ id: 'hills', min: { x: -140, z: -40 }, max: { x: -41, z: 40 } }] }), { x: -90, z: 0 });
});

test('quest lines in the Game tab: the first step, each new stage, ready to hand in; not every catch', () => {
  const def = DEFS.first_catch;
  assert.equal(questLine(undefined, { questId: 'first_catch', status: 'in_progress', stageId: 'catch' }, def),
    'Quest updated: First Catch: Catch 5 raw shrimp.');
  assert.equal(questLine({ questId: 'first_catch', status: 'in_progress', stageId: 'catch', progress: 1 },
    { questId: 'first_catch', status: 'in_progress', stageId: 'catch', progress: 2 }, def), null);
  assert.equal(questLine({ questId: 'first_catch', status: 'in_progress', stageId: 'catch' },
    { questId: 'first_catch', status: 'in_progress', stageId: 'cook' }, def), 'Quest updated: First Catch: Cook 5 shrimp on the range.');
  assert.equal(questLine({ questId: 'first_catch', status: 'in_progress', stageId: 'cook' },
    { questId: 'first_catch', status: 'ready_to_complete', stageId: 'finish' }, def), 'Quest updated: First Catch: Bring the shrimp to Old Marta.');
  assert.equal(questLine({ questId: 'first_catch', status: 'ready_to_complete' }, { questId: 'first_catch', status: 'completed' }, def), null);
});

test('the reward scroll lists quest points, items and XP', () => {
  const rows = rewardRows({ questPoints: 1, items: [{ itemId: 'coins', quantity: 50 }, { itemId: 'lamp_of_knowledge', quantity: 1 }], xp: { fishing: 150 } },
    (id) => ({ coins: 'Coins', lamp_of_knowledge: 'Lamp of Knowledge' })[id]);
  assert.deepEqual(rows.map((r) => r.text), ['1 Quest Point', '50 × Coins', 'Lamp of Knowledge', '150 Fishing XP']);
});

test('quest markers: ! to start, ? to hand in, grey ? under way, none otherwise', () => {
  assert.deepEqual(questMarker('available'), { glyph: '!', colour: '#ffd83a' });
  assert.deepEqual(questMarker('ready'), { glyph: '?', colour: '#ffd83a' });
  assert.equal(questMarker('active').glyph, '?');
  assert.notEqual(questMarker('active').colour, questMarker('ready').colour);
  assert.equal(questMarker('none'), null);
  assert.equal(questMarker(undefined), null);
});

test('overhead chat: the last three lines of a speaker, each for three seconds', () => {
  const said = new Map([['p1', [{ text: 'a', at: 0 }, { text: 'b', at: 100 }, { text: 'c', at: 200 }, { text: 'd', at: 300 }]], ['p2', [{ text: 'old', at: 0 }]]]);
  overheadLines(said, 1000);
  assert.deepEqual(said.get('p1').map((l) => l.text), ['b', 'c', 'd']);
  overheadLines(said, OVERHEAD_MS + 150);
  assert.deepEqual(said.get('p1').map((l) => l.text), ['c', 'd']);
  assert.equal(said.has('p2'), false);
  assert.equal(overheadText('x'.repeat(100)).length, 80);
});

test('roofs: inside a building is its floor rectangle; the fade eases and settles', () => {
  const b = { tiles: [[{ x: 5, z: -9 }, { x: 13, z: -3 }]] };
  assert.equal(insideBuilding(b, 9, -3), true);
  assert.equal(insideBuilding(b, 9, -2), false);
  let a = 1;
  for (let i = 0; i < 30; i++) a = fadeToward(a, 0, 16);
  assert.equal(a, 0);
  assert.ok(fadeToward(1, 0, 50) > 0.5);
});

test('every POI kind of CONTRACT §13 has its own icon', () => {
  const kinds = ['bank', 'shop', 'furnace', 'anvil', 'range', 'altar', 'runeAltar', 'fishing', 'tanner', 'quest', 'agility', 'arena', 'spawn', 'teleport'];
  for (const k of kinds) assert.ok(POI_ICONS[k], k);
  assert.equal(new Set(kinds.map((k) => POI_ICONS[k][0] + POI_ICONS[k][1])).size, kinds.length);
  assert.equal(poiIcon('unknown')[2], 'unknown');
});

test('ripples are found once per chunk, on water only', () => {
  const size = 8;
  const ground = Array.from({ length: size * size }, (_, i) => (i % size < 4 ? 1 : 0));
  const r = ripples({ cx: 0, cz: 0, x: 0, z: 0, size, walkable: '', ground }, ['grass', 'water']);
  assert.ok(r.length > 0 && r.length % 2 === 0);
  for (let i = 0; i < r.length; i += 2) assert.ok(r[i] < 4);
});

test('the help lists the keys', () => {
  for (const key of ['M', 'H', 'Enter', 'Escape']) assert.ok(HELP.some(([k]) => k === key), key);
});
