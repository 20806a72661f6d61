// Waiting for a condition, bounded in time: one helper for the runner, the benchmark, the harness's
// tests (the Docker ones too) and the samples' tests.

/**
 * Polls `check` (sync or async) until it returns something truthy, and returns that value; throws
 * once `timeoutMs` has passed. With `retryErrors`, a `check` that throws counts as "not yet" (a
 * refused connection while a server starts) and a timeout names the error of the last try;
 * without it, the error ends the wait at once.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {{ what?: string, timeoutMs?: number, everyMs?: number, retryErrors?: boolean }} [options]
 * @returns {Promise<T>}
 */
export async function waitFor(
  check,
  { what = 'a condition', timeoutMs = 20_000, everyMs = 50, retryErrors = false } = {},
) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      lastError = undefined;
    } catch (err) {
      if (!retryErrors) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
