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
        // Past nginx's own bounds (connect 1 s, retries within 5 s, twice with @again, read 30 s):
        // nginx answers first, so a failure here is one, never a slow answer on a busy machine.
        const res = await fetch(url, { signal: AbortSignal.timeout(40_000) });
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

/**
 * A bounded GET + POST load through one base URL: `concurrency` loops of GETs and as many of POSTs
 * (each POST carrying a unique id `<prefix>-<n>` made into a body by `post.body(id)`), each loop
 * pausing `pauseMs` between requests, until stop() or maxSeconds. Counts per method; keeps the ids
 * of the POSTs answered 2xx (acknowledged) and of the others (failed at the client).
 * @param {string} base
 * @param {{ get: string, post: { path: string, body: (id: string) => object }, prefix: string,
 *   concurrency?: number, pauseMs?: number, maxSeconds?: number }} options
 */
export function startMixedLoad(base, { get, post, prefix, concurrency = 4, pauseMs = 20, maxSeconds = 300 }) {
  const method = () => ({ ok: 0, failed: 0, statuses: {}, errors: {} });
  const stats = { get: method(), post: method(), acked: [], failedIds: [] };
  const deadline = Date.now() + maxSeconds * 1000;
  let stopped = false;
  let n = 0;
  const count = (m, res, err) => {
    if (res) m.statuses[res.status] = (m.statuses[res.status] ?? 0) + 1;
    else m.errors[err.cause?.code ?? err.name] = (m.errors[err.cause?.code ?? err.name] ?? 0) + 1;
  };
  async function loop(isPost) {
    while (!stopped && Date.now() < deadline) {
      const id = `${prefix}-${++n}`;
      const m = isPost ? stats.post : stats.get;
      let res;
      try {
        res = await fetch(isPost ? `${base}${post.path}` : `${base}${get}`, {
          method: isPost ? 'POST' : 'GET',
          headers: isPost ? { 'content-type': 'application/json' } : {},
          body: isPost ? JSON.stringify(post.body(id)) : undefined,
          signal: AbortSignal.timeout(40_000),
        });
        await res.arrayBuffer();
        count(m, res);
      } catch (err) {
        count(m, null, err);
      }
      const ok = res?.ok ?? false;
      if (ok) m.ok++;
      else m.failed++;
      if (isPost) (ok ? stats.acked : stats.failedIds).push(id);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
  const loops = [
    ...Array.from({ length: concurrency }, () => loop(false)),
    ...Array.from({ length: concurrency }, () => loop(true)),
  ];
  return {
    stats,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return stats;
    },
  };
}

export function describeMixed(s) {
  const failures = (m) =>
    m.failed ? ` (statuses ${JSON.stringify(m.statuses)}, errors ${JSON.stringify(m.errors)})` : '';
  const one = (m) => `${m.ok} ok, ${m.failed} failed${failures(m)}`;
  return `GET ${one(s.get)}; POST ${one(s.post)}`;
}
