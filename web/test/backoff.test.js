import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, BASE_MS, MAX_MS } from '../src/backoff.js';

test('delays double from the base and stop at the cap', () => {
  const mid = () => 0.5;
  const steps = [0, 1, 2, 3, 10, 50].map((a) => backoffDelay(a, mid));
  assert.equal(steps[0], Math.round(BASE_MS * 0.75));
  assert.equal(steps[1], Math.round(BASE_MS * 2 * 0.75));
  assert.equal(steps[2], Math.round(BASE_MS * 4 * 0.75));
  assert.equal(steps[5], Math.round(MAX_MS * 0.75));
  for (let i = 1; i < steps.length; i++) assert.ok(steps[i] >= steps[i - 1]);
});

test('jitter keeps each delay between half the step and the step', () => {
  for (let a = 0; a < 12; a++) {
    const step = Math.min(MAX_MS, BASE_MS * 2 ** a);
    assert.equal(backoffDelay(a, () => 0), Math.round(step / 2));
    assert.ok(backoffDelay(a, () => 0.999999) <= step);
  }
});
