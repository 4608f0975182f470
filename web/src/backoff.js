// Reconnect delays: exponential from BASE_MS, capped at MAX_MS, with "equal jitter" (half fixed,
// half random) so a restarted server is not hit by every client in the same millisecond while
// each client still waits at least half the step.

export const BASE_MS = 500;
export const MAX_MS = 15000;

/**
 * Delay before reconnect attempt `attempt` (0 = the first retry).
 * @param {number} attempt
 * @param {() => number} [random] a source in [0, 1), for tests
 * @returns {number}
 */
export function backoffDelay(attempt, random = Math.random) {
  const step = Math.min(MAX_MS, BASE_MS * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (random() * step) / 2);
}
