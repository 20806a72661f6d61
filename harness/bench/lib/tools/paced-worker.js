// A generator thread of paced.js (`threads` > 1): its own connections, its share of each window's
// schedule, sent when the main thread asks and answered with what it measured.
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { LocalAgent } from './paced-agent.js';
import { requestShapes } from './http1-pool.js';
import { pacedWindow } from './paced-window.js';

const agent = new LocalAgent(workerData.connections);

parentPort.on('message', async ({ id, url, requests, keepAlive, timeoutMs, rate, durationS, startEpochMs, first, stride }) => {
  try {
    const target = new URL(url);
    const r = await pacedWindow({
      pool: agent.poolFor(target, timeoutMs), shapes: requestShapes(target, requests, keepAlive),
      rate, durationS, start: startEpochMs - performance.timeOrigin, first, stride,
    });
    const latencies = r.latencies.slice(); // its own buffer, to hand over without a copy
    parentPort.postMessage({ id, result: { ...r, latencies } }, [latencies.buffer, r.lags.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err.message });
  }
});
parentPort.postMessage({ ready: true });
