// Waiting for a condition in the page. Playwright's `waitForFunction` runs its predicate through
// `eval` inside the page, which the server's Content-Security-Policy refuses (no 'unsafe-eval', as
// it should be); `page.evaluate` of a function is not an eval in the page, so this polls with it.

/**
 * Resolves with the first truthy value of `fn(arg)` evaluated in the page, polled every 50 ms;
 * rejects once `timeout` ms have passed.
 * @template T, A
 * @param {import('playwright-core').Page} page
 * @param {(arg: A) => T} fn
 * @param {A} [arg]
 * @param {{timeout?: number}} [options]
 * @returns {Promise<T>}
 */
export async function waitUntil(page, fn, arg, { timeout = 30_000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await page.evaluate(fn, /** @type {A} */ (arg));
    if (value) return value;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${String(fn).slice(0, 160)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
