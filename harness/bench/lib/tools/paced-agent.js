// What keeps a paced generator's connections open from one window to the next: the generator
// threads (ThreadAgent: one or more paced-worker.js), each with pools of its own (LocalAgent, used in
// that thread only).
import { performance } from 'node:perf_hooks';
import { Http1Pool } from './http1-pool.js';
import { GeneratorError } from './errors.js';
import { generatorThread } from './generator-heap.js';

/** Up to `connections` keep-alive connections per server, in the generator thread that holds it. */
export class LocalAgent {
  constructor(connections) {
    this.connections = connections;
    this.threads = 1;
    this.pools = new Map();
  }

  poolFor(url, timeoutMs) {
    let pool = this.pools.get(url.host);
    if (!pool) {
      pool = new Http1Pool({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) }, this.connections);
      this.pools.set(url.host, pool);
    }
    pool.timeoutMs = timeoutMs;
    return pool;
  }

  destroy() {
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }
}

// A window starts this long after it is asked for, so that every thread has its message by then.
const START_MARGIN_MS = 5;

/** `threads` generator threads (paced-worker.js, one or more), the connections shared out among them. */
export class ThreadAgent {
  constructor(connections, threads) {
    this.connections = connections;
    this.threads = threads;
    this.calls = new Map();
    this.nextId = 0;
    this.failed = null;
    const each = Math.max(1, Math.ceil(connections / threads));
    const script = new URL('./paced-worker.js', import.meta.url);
    const workerData = { connections: each };
    this.workers = Array.from({ length: threads }, () => generatorThread(script, { workerData }));
    this.ready = Promise.all(this.workers.map((w) => new Promise((resolve, reject) => {
      w.on('message', (m) => {
        if (m.ready) return resolve(undefined);
        const call = this.calls.get(m.id);
        this.calls.delete(m.id);
        if (m.error) call?.reject(new GeneratorError(`paced: a generator thread failed: ${m.error}`));
        else call?.resolve(m.result);
      });
      w.on('error', (err) => {
        const why = err instanceof Error ? err.message : String(err);
        this.fail(new GeneratorError(`paced: a generator thread crashed: ${why}`), reject);
      });
      w.on('exit', (code) => {
        if (!this.destroyed) this.fail(new GeneratorError(`paced: a generator thread exited (${code})`), reject);
      });
    })));
    this.ready.catch(() => {}); // awaited by the first window; an early failure must not go unhandled meanwhile
  }

  fail(err, reject) {
    this.failed ??= err;
    reject(err);
    for (const call of this.calls.values()) call.reject(err);
    this.calls.clear();
  }

  /** One window: thread k sends requests k, k + threads, …; resolves with each thread's result. */
  async window(message) {
    await this.ready;
    if (this.failed) throw this.failed;
    const startEpochMs = performance.timeOrigin + performance.now() + START_MARGIN_MS;
    return Promise.all(this.workers.map((w, k) => new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.calls.set(id, { resolve, reject });
      w.postMessage({ ...message, startEpochMs, id, first: k, stride: this.threads });
    })));
  }

  destroy() {
    this.destroyed = true;
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}
