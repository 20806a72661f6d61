// Bounded loads for the Docker tests, each in a thread of its own (load-thread.js), so that the
// tests' blocking Docker calls in this thread hold no request back (and leave no pooled keep-alive
// socket idle past nginx's keepalive_timeout under a load that then reuses it).
import { Worker } from 'node:worker_threads';

/**
 * Starts load-thread.js with `data`; `onSeen` gets each { who, at } it posts. `answered(timeoutMs)`
 * resolves once every kind of request it sends has had a 2xx (the load runs: what a test waits for
 * before its event, rather than a fixed sleep), and throws past `timeoutMs`.
 * @param {Record<string, any>} data @param {(m: { who: string, at: number }) => void} [onSeen]
 * @returns {{ stop: () => Promise<any>, answered: (timeoutMs?: number) => Promise<void> }}
 */
function inThread(data, onSeen = () => {}) {
  const worker = new Worker(new URL('./load-thread.js', import.meta.url), { workerData: data });
  /** @type {(value?: any) => void} */
  let isAnswered = () => {};
  const answered = new Promise((resolve) => { isAnswered = resolve; });
  const done = new Promise((resolve, reject) => {
    worker.on('message', (m) => (m.stats ? resolve(m.stats) : m.answered ? isAnswered() : onSeen(m)));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the test load's thread exited (${code}) before its counts`)));
  });
  done.catch(() => {}); // awaited by stop()
  return {
    async answered(timeoutMs = 30_000) {
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(
          `the test load had no 2xx answer to each of its kinds of request in ${timeoutMs / 1000} s`)), timeoutMs);
      });
      try {
        await Promise.race([answered, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    async stop() {
      worker.postMessage('stop');
      try {
        return await done;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/**
 * A bounded GET load: `concurrency` loops of fetch against one URL, each pausing `pauseMs` between
 * requests, until stop(), maxSeconds or maxRequests, counting answers by status, failures by cause
 * and, when `instances` is set, which replica answered (the body's `instance`). stop() resolves with
 * { ok, failed, statuses, errors }. The pause keeps requests in flight all along without saturating
 * the machine the other tests share (unpaced: about 3,000 requests a second, most of a core).
 */
export function startLoad(url, {
  concurrency = 8, pauseMs = 5, maxSeconds = 120, maxRequests = 2_000_000, instances = false,
} = {}) {
  const seen = new Map();
  const load = inThread(
    { kind: 'get', url, concurrency, pauseMs, maxSeconds, maxRequests, instances },
    ({ who, at }) => seen.set(who, at),
  );
  return {
    /** The replicas that answered since `since` (ms epoch), as far as this thread has heard. */
    answeredSince(since) {
      return [...seen].filter(([, at]) => at >= since).map(([who]) => who);
    },
    answered: load.answered,
    stop: load.stop,
  };
}

export function describeStats(s) {
  return `${s.ok} ok, ${s.failed} failed (statuses ${JSON.stringify(s.statuses)}, errors ${JSON.stringify(s.errors)})`;
}

/**
 * A bounded GET + POST load through one base URL: `concurrency` loops of GETs and as many of POSTs
 * (each POST carrying a unique id `<prefix>-<n>` in place of `{id}` in the JSON `post.body`), each
 * loop pausing `pauseMs` between requests, until stop() or maxSeconds. stop() resolves with the
 * counts per method and the ids of the POSTs answered 2xx (`acked`) and of the others (`failedIds`).
 * @param {string} base
 * @param {{ get: string, post: { path: string, body: string }, prefix: string, concurrency?: number,
 *   pauseMs?: number, maxSeconds?: number }} options
 */
export function startMixedLoad(base, { get, post, prefix, concurrency = 4, pauseMs = 20, maxSeconds = 300 }) {
  return inThread({ kind: 'mixed', base, get, post, prefix, concurrency, pauseMs, maxSeconds, maxRequests: Infinity });
}

export function describeMixed(s) {
  const failures = (m) =>
    m.failed ? ` (statuses ${JSON.stringify(m.statuses)}, errors ${JSON.stringify(m.errors)})` : '';
  const one = (m) => `${m.ok} ok, ${m.failed} failed${failures(m)}`;
  return `GET ${one(s.get)}; POST ${one(s.post)}`;
}
