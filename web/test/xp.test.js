import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { xpForLevel, levelProgress } from '../src/xp.js';

test('the XP table is the server\'s', () => {
  const src = readFileSync(new URL('../../crates/content/src/levels.rs', import.meta.url), 'utf8');
  const body = src.slice(src.indexOf('pub const XP_TABLE'), src.indexOf('];', src.indexOf('pub const XP_TABLE')));
  const server = [...body.slice(body.indexOf('= [')).matchAll(/[\d_]+/g)].map((m) => Number(m[0].replace(/_/g, '')));
  assert.equal(server.length, 99);
  assert.deepEqual(server, Array.from({ length: 99 }, (_, i) => xpForLevel(i + 1)));
});

test('progress to the next level', () => {
  assert.deepEqual(levelProgress(0, 1), { next: 83, toGo: 83, fraction: 0 });
  const p = levelProgress(1_154 + 102, 10);
  assert.equal(p.next, 1_358);
  assert.equal(p.toGo, 102);
  assert.equal(p.fraction, 0.5);
  assert.deepEqual(levelProgress(13_034_431, 99), { next: null, toGo: 0, fraction: 1 });
});
