// Respawn policy for crashed workers, after PM2's: the delay grows ×1.5 per consecutive crash
// (from 100 ms, capped at 15 s), and a worker that stayed up for 30 s resets the count.
// More than `maxCrashes` consecutive crashes is a crash loop: the primary stops respawning.
export const DEFAULTS = Object.freeze({
  initialMs: 100,
  factor: 1.5,
  maxMs: 15_000,
  resetAfterMs: 30_000,
  maxCrashes: 10,
});

export function createBackoff(options = {}) {
  const o = { ...DEFAULTS, ...options };
  let crashes = 0;
  return {
    // Called when a worker crashed after `uptimeMs`; returns the delay before the next fork,
    // or null when the crash loop limit is reached.
    onCrash(uptimeMs) {
      if (uptimeMs >= o.resetAfterMs) crashes = 0;
      crashes += 1;
      if (crashes > o.maxCrashes) return null;
      return Math.min(o.maxMs, Math.round(o.initialMs * o.factor ** (crashes - 1)));
    },
    get crashes() {
      return crashes;
    },
  };
}
