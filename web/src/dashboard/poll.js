// The dashboard's polling (specification section 8): most panels every 10 s, the position panel
// every 5 s while the page is visible and 10 s while it is hidden; a failed call is retried after
// 1 s, 2 s and 4 s, then left to the next round. No DOM here: the clock is injectable, so the
// schedule and the retries are unit-tested with a fake one (test/dashboard.test.js).

import { ApiError } from '../api.js';

/** Most panels: the agent list, skills and inventory, decisions, quick actions. */
export const PANEL_INTERVAL_MS = 10_000;
/** The position panel while the page is visible… */
export const POSITION_VISIBLE_MS = 5_000;
/** …and while it is hidden (another tab, a minimised window, a locked phone). */
export const POSITION_HIDDEN_MS = 10_000;
/** A polling call with no answer by then has failed (and is retried): a stalled server must not stall the schedule. */
export const CALL_TIMEOUT_MS = 8_000;
/** Waits before the retries of a failed call (specification section 8: 1 s, 2 s, 4 s). */
export const RETRY_DELAYS_MS = Object.freeze([1_000, 2_000, 4_000]);

/** The position panel's period. @param {boolean} hidden */
export function positionInterval(hidden) {
  return hidden ? POSITION_HIDDEN_MS : POSITION_VISIBLE_MS;
}

/**
 * @typedef {{now: () => number, setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (t: any) => void}} Clock
 */

/** @type {Clock} */
export const realClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t),
};

/**
 * Whether a failed call is worth repeating: the network failed, the call timed out, the server
 * failed (5xx), or it asked us to slow down (429, 408). A refusal (400, 401, 403, 404, 409) will
 * not change by asking again; nor is a call the page abandoned (AbortError).
 * @param {unknown} e
 */
export function isRetryable(e) {
  if (e instanceof ApiError) return e.status >= 500 || e.status === 429 || e.status === 408;
  return !(e instanceof DOMException && e.name === 'AbortError');
}

/** A wait on the given clock. @param {Clock} clock @param {number} ms @returns {Promise<void>} */
export function sleepOn(clock, ms) {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/**
 * Runs `call`, and after a retryable failure again after each of `delays` (1 s, 2 s, 4 s): four
 * attempts at most. The last error is thrown when every attempt failed. `isCurrent` is asked
 * after each wait: when it answers false (the page moved on: another agent was chosen, the
 * dashboard was left) the call is abandoned with an `AbortError`.
 * @template T
 * @param {() => Promise<T>} call
 * @param {{delays?: readonly number[], sleep?: (ms: number) => Promise<void>, retryable?: (e: unknown) => boolean,
 *   onRetry?: (attempt: number, delayMs: number, error: unknown) => void, isCurrent?: () => boolean}} [opts]
 * @returns {Promise<T>}
 */
export async function withRetry(call, opts = {}) {
  const delays = opts.delays ?? RETRY_DELAYS_MS;
  const sleep = opts.sleep ?? ((ms) => sleepOn(realClock, ms));
  const retryable = opts.retryable ?? isRetryable;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (attempt >= delays.length || !retryable(e)) throw e;
      opts.onRetry?.(attempt, delays[attempt], e);
      await sleep(delays[attempt]);
      if (opts.isCurrent && !opts.isCurrent()) throw new DOMException('superseded', 'AbortError');
    }
  }
}

/**
 * One cadence: runs `task` at once on `start()`, then `interval(hidden)` after the start of each
 * run (a run that took longer than its period is followed at once; runs never overlap). A change
 * of visibility moves the next run to `interval(hidden)` after the last start, so a page that
 * becomes visible again catches up at once when its faster period is already over.
 */
export class Poller {
  /**
   * @param {() => Promise<void>} task never expected to throw (it shows its own errors)
   * @param {(hidden: boolean) => number} interval
   * @param {{clock?: Clock, hidden?: boolean}} [opts]
   */
  constructor(task, interval, opts = {}) {
    this.task = task;
    this.interval = interval;
    this.clock = opts.clock ?? realClock;
    this.hidden = opts.hidden ?? false;
    this.running = false;
    this.inFlight = false;
    /** A run was asked for while one was in flight: run again as soon as it ends. */
    this.again = false;
    this.lastStart = -Infinity;
    /** When the next run is due (ms on the clock), or null while running or stopped. */
    this.due = /** @type {number|null} */ (null);
    this.timer = null;
    this.runs = 0;
  }

  start() {
    this.running = true;
    this.runNow();
  }

  stop() {
    this.running = false;
    this.cancelTimer();
  }

  /** Runs at once (after a user's action, or a change of agent), or right after the run in flight. */
  runNow() {
    if (!this.running) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.cancelTimer();
    this.inFlight = true;
    this.lastStart = this.clock.now();
    this.runs++;
    Promise.resolve()
      .then(() => this.task())
      .catch(() => { /* the task shows its own errors; the schedule goes on */ })
      .finally(() => {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.runNow();
        } else {
          this.schedule();
        }
      });
  }

  /** @param {boolean} hidden */
  setHidden(hidden) {
    if (hidden === this.hidden) return;
    this.hidden = hidden;
    if (this.running && !this.inFlight) this.schedule();
  }

  /** The current period. */
  period() {
    return this.interval(this.hidden);
  }

  /** @private */
  schedule() {
    this.cancelTimer();
    if (!this.running) return;
    const due = this.lastStart + this.period();
    this.due = due;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.runNow();
    }, Math.max(0, due - this.clock.now()));
  }

  /** @private */
  cancelTimer() {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.due = null;
  }
}
