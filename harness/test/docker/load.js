// A bounded GET load for the Docker tests: `concurrency` loops of fetch against one URL until
// stop(), maxSeconds or maxRequests, counting answers by status, failures by cause and, when
// `instances` is set, which replica answered (the body's `instance`).
export function startLoad(url, { concurrency = 8, maxSeconds = 120, maxRequests = 2_000_000, instances = false } = {}) {
  const stats = { ok: 0, failed: 0, statuses: {}, errors: {}, instances: new Map() };
  const deadline = Date.now() + maxSeconds * 1000;
  let stopped = false;
  let sent = 0;
  async function loop() {
    while (!stopped && Date.now() < deadline && sent < maxRequests) {
      sent++;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        const body = await res.text();
        stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
        if (res.ok) {
          stats.ok++;
          if (instances) {
            const who = JSON.parse(body).instance;
            stats.instances.set(who, Date.now());
          }
        } else {
          stats.failed++;
        }
      } catch (err) {
        stats.failed++;
        const cause = err.cause?.code ?? err.name;
        stats.errors[cause] = (stats.errors[cause] ?? 0) + 1;
      }
    }
  }
  const loops = Array.from({ length: concurrency }, loop);
  return {
    stats,
    /** The replicas that answered since `since` (ms epoch). */
    answeredSince(since) {
      return [...stats.instances].filter(([, at]) => at >= since).map(([who]) => who);
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return stats;
    },
  };
}

export function describeStats(s) {
  return `${s.ok} ok, ${s.failed} failed (statuses ${JSON.stringify(s.statuses)}, errors ${JSON.stringify(s.errors)})`;
}
