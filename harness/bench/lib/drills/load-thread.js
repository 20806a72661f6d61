// The drills' generator thread: it runs the load's schedule (load-schedule.js) and nothing else,
// so nothing the drill does meanwhile — the Docker runner's `docker stop` and `docker compose up
// --wait`, blocking calls of many seconds in the thread that orchestrates the drill — can hold a
// request back. It starts the schedule a moment after it is ready, says when (an epoch time in ms,
// the clock every record's `at` counts from), and hands the records over when told to stop.
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { runSchedule } from './load-schedule.js';

// Time for the start message to reach the thread that waits for it.
const START_MARGIN_MS = 5;

const t0 = performance.now() + START_MARGIN_MS;
const schedule = runSchedule({ ...workerData, t0 });
parentPort?.postMessage({ started: performance.timeOrigin + t0 });
parentPort?.once('message', async () => {
  const records = await schedule.stop();
  parentPort?.postMessage({ records });
  parentPort?.close();
});
