// Waiting for a condition, bounded in time: one helper for the runner, the benchmark, the harness's
// tests and the samples' tests.

/**
 * Polls `check` (sync or async) until it returns something truthy, and returns that value; throws
 * once `timeoutMs` has passed.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {{ what?: string, timeoutMs?: number, everyMs?: number }} [options]
 * @returns {Promise<T>}
 */
export async function waitFor(check, { what = 'a condition', timeoutMs = 20_000, everyMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
