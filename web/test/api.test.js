// REST calls: a saturated server's 503 `server_busy` is waited out as its Retry-After says.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ApiError, BUSY_ATTEMPTS, busyWaitMs, request } from '../src/api.js';

/** A fetch that answers `answers` in turn, recording the calls. */
function fakeFetch(answers) {
  const calls = [];
  globalThis.fetch = async (path, init) => {
    calls.push({ path, init });
    const [status, body, retryAfter] = answers[Math.min(calls.length - 1, answers.length - 1)];
    return new Response(JSON.stringify(body), {
      status,
      headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
    });
  };
  return calls;
}

test('a 503 server_busy is made again after its Retry-After, then answers', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const calls = fakeFetch([
    [503, { error: 'server_busy', message: 'busy', retryAfter: 2 }, 2],
    [201, { token: 't' }],
  ]);
  const answer = request('/api/auth/guest', { body: {} });
  // The first call is made at once; the second only after the 2 s asked.
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, 1);
  t.mock.timers.tick(1999);
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, 1);
  t.mock.timers.tick(1);
  assert.deepEqual(await answer, { token: 't' });
  assert.equal(calls.length, 2);
});

test('other 503s and a server still busy after the last attempt are errors', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  fakeFetch([[503, { error: 'voice_not_configured', message: 'no voice' }]]);
  await assert.rejects(request('/api/voice/token'), (e) => e instanceof ApiError && e.code === 'voice_not_configured');

  const calls = fakeFetch([[503, { error: 'server_busy', message: 'busy' }, 1]]);
  const answer = request('/api/auth/guest', { body: {} });
  const settled = answer.then(() => 'ok', (e) => e);
  for (let i = 0; i < BUSY_ATTEMPTS; i++) {
    await new Promise((r) => setImmediate(r));
    t.mock.timers.tick(1000);
  }
  const error = await settled;
  assert.ok(error instanceof ApiError && error.code === 'server_busy', String(error));
  assert.equal(calls.length, BUSY_ATTEMPTS);
});

test('Retry-After is read as seconds, 1 s when unreadable, at most 10 s', () => {
  assert.equal(busyWaitMs('2'), 2000);
  assert.equal(busyWaitMs(null), 1000);
  assert.equal(busyWaitMs('soon'), 1000);
  assert.equal(busyWaitMs('3600'), 10000);
});
