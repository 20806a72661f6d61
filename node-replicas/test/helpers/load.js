// Steady load for the topology tests: `concurrency` loops of GETs, each bounded in count and
// time. Every answer is recorded (status, who served it, when it started) so a test can ask
// what happened before and after it broke something.
export function startLoad({ url, concurrency = 8, maxRequests = 5_000, maxMs = 30_000 }) {
  const results = [];
  const deadline = Date.now() + maxMs;
  let stopped = false;
  let issued = 0;

  async function loop() {
    while (!stopped && issued < maxRequests && Date.now() < deadline) {
      issued += 1;
      const at = Date.now();
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        const text = await res.text();
        let body;
        try { body = JSON.parse(text); } catch { /* nginx's own error pages are HTML */ }
        results.push({ at, end: Date.now(), status: res.status, instance: body?.instance, pid: body?.pid });
      } catch (err) {
        results.push({ at, end: Date.now(), status: 0, error: err.cause?.code ?? err.message });
      }
    }
  }

  const done = Promise.all(Array.from({ length: concurrency }, loop)).then(() => results);
  return {
    results,
    done,
    stop() { stopped = true; return done; },
    // Resolves once `n` answers have been recorded (or the load ended first).
    async until(n) {
      while (results.length < n && !stopped && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return results.length;
    },
  };
}

export const failures = (results) => results.filter((r) => r.status !== 200);

export function countBy(results, key = 'instance') {
  const counts = {};
  for (const r of results) counts[r[key]] = (counts[r[key]] ?? 0) + 1;
  return counts;
}
