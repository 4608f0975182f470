import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeOverview, toMap, townLabel, areaFrame } from '../src/worldmap.js';
import { heightLevel, shade, lightOf, groundColours, HEIGHT_ALPHABET } from '../src/terrain.js';

test('an overview decodes to ground indices, row by row', () => {
  const cells = decodeOverview({ width: 2, rows: 'ABCD' });
  assert.deepEqual([...cells], [0, 1, 2, 3]);
  // A short or damaged string leaves the rest as the first ground (void).
  assert.deepEqual([...decodeOverview({ width: 2, rows: 'B*' })], [1, 0, 0, 0]);
});

test('tiles map onto the world map proportionally', () => {
  const o = { block: 4, width: 250, min: { x: -500, z: -500 } };
  assert.deepEqual(toMap(o, 1000, -500, -500), { mx: 0, my: 0 });
  assert.deepEqual(toMap(o, 1000, 0, 0), { mx: 500, my: 500 });
  assert.deepEqual(toMap(o, 500, 499, -500), { mx: 499.5, my: 0 });
});

test('towns are labelled with their size unless they are towns', () => {
  assert.equal(townLabel({ name: 'Ashford', size: 'town' }), 'Ashford');
  assert.equal(townLabel({ name: 'Dunmarrow', size: 'hamlet' }), 'Dunmarrow (hamlet)');
});

test('heights read the server alphabet and shade the ground', () => {
  assert.equal(HEIGHT_ALPHABET.length, 64);
  assert.equal(heightLevel('A'), 0);
  assert.equal(heightLevel('_'), 63);
  assert.equal(heightLevel('!'), 0);
  assert.equal(shade('#102030', 1), 'rgb(16,32,48)');
  assert.equal(shade('#ffffff', 2), 'rgb(255,255,255)');
  // Higher ground is lighter, and a slope facing the light lighter still.
  assert.ok(lightOf('plains', 60, 60) > lightOf('plains', 10, 10));
  assert.ok(lightOf('plains', 30, 20) > lightOf('plains', 30, 40));
  // Deep water is darker than shallow water.
  assert.ok(lightOf('water', 5, 5) < lightOf('water', 15, 15));
  assert.deepEqual(groundColours('no such ground'), groundColours('grass'));
  assert.notDeepEqual(groundColours('water'), groundColours('grass'));
});

test('a world without an overview is framed by its areas: all of them inside the square map', () => {
  // The bundled world's areas (GET /api/map): wider than tall.
  const areas = [
    { min: { x: -40, z: 41 }, max: { x: 40, z: 140 } }, { min: { x: -8, z: -56 }, max: { x: 8, z: -41 } },
    { min: { x: -140, z: -40 }, max: { x: -41, z: 40 } }, { min: { x: 41, z: -40 }, max: { x: 140, z: 40 } },
  ];
  const f = areaFrame({ min: { x: -140, z: -56 }, max: { x: 140, z: 140 }, areas });
  assert.equal(f.block, 1);
  for (const a of areas) {
    for (const [x, z] of [[a.min.x, a.min.z], [a.max.x + 1, a.max.z + 1]]) {
      const { mx, my } = toMap(f, 600, x, z);
      assert.ok(mx > 0 && mx < 600 && my > 0 && my < 600, `(${x}, ${z}) lands at ${mx}, ${my}`);
    }
  }
  // Centred: the left and right margins match within a tile.
  const left = toMap(f, f.width, -140, 0).mx, right = f.width - toMap(f, f.width, 141, 0).mx;
  assert.ok(Math.abs(left - right) <= 1, `${left} vs ${right}`);
  // Without areas the map's own bounds frame it.
  assert.equal(areaFrame({ min: { x: 0, z: 0 }, max: { x: 99, z: 49 } }).width, 100 + 2 * 4);
});
