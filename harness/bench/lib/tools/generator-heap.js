// The young generation of the generator threads (the paced generator's, tools/paced-worker.js, and
// the drills', drills/load-thread.js). V8 starts a heap with a young generation of about 1 MB: at
// 1,000 req/s the paced generator scavenged every ~30 ms, and in a run's first latency block its
// pauses reached 1.7 ms at p99 and 10 ms at most (a mark-compact), which its sends took as lateness
// and the cells' p99 as latency (`node --trace-gc` on a run of the verdicts, 2026-11-25). With 16 MB
// from the start, the median slice's send-lag p99 went from 0.28 ms to 0.09-0.10 ms (two default
// runs each, 2026-11-25).
// V8 reads --min-semi-space-size when it makes a heap, a thread's too, so it is set here just before
// a generator thread starts: this thread's own heap, made already, keeps its size. A Worker's
// resourceLimits.maxYoungGenerationSizeMb would not do: it bounds how far the young generation may
// grow, not where it starts (a paced thread at 1,000 req/s for 10 s scavenged 1,769-2,004 times with
// 48 MB there, 1,992-2,084 without, 260-264 with the flag; hand runs, 2026-12-04).
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';

export const HEAP_FLAG = '--min-semi-space-size=16';

/** The flags a generator thread starts with: the process's own and HEAP_FLAG (results.json keeps them). */
export const generatorFlags = () => [...process.execArgv, HEAP_FLAG];

let flagSet = false;

/**
 * A generator thread: new Worker(script, options), its young generation HEAP_FLAG's size.
 * @param {string | URL} script @param {import('node:worker_threads').WorkerOptions} [options]
 */
export function generatorThread(script, options) {
  if (!flagSet) {
    v8.setFlagsFromString(HEAP_FLAG); // every heap made from now on; set once, before the first such thread
    flagSet = true;
  }
  return new Worker(script, options);
}
