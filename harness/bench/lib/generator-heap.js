// The paced generator (lib/tools/paced.js) runs in the bench's own process, and V8 starts a process
// with a young generation of about 1 MB: at 1,000 req/s it scavenged every ~30 ms, and in a run's
// first latency block its pauses reached 1.7 ms at p99 and 10 ms at most (a mark-compact), which
// the generator's sends took as lateness and the cells' p99 as latency (`node --trace-gc` on a run
// of the verdicts, 2026-11-25). With 16 MB from the start, the median slice's send-lag p99 went from
// 0.28 ms to 0.09-0.10 ms (two default runs each, 2026-11-25).
// V8 takes the size only at start-up (NODE_OPTIONS refuses the flag), so the bench starts itself
// again with it, passing on its arguments, signals and exit code.
import { spawn } from 'node:child_process';

export const HEAP_FLAG = '--min-semi-space-size=16';

/** null when this process already has the flag; else runs `script` again with it and resolves to its exit code. */
export function relaunchWithHeap(script, args = process.argv.slice(2)) {
  if (process.execArgv.some((a) => a.startsWith('--min-semi-space-size'))) return null;
  const child = spawn(process.execPath, [HEAP_FLAG, ...process.execArgv, script, ...args], { stdio: 'inherit' });
  // Ctrl-C reaches the whole process group, the child too; a signal sent to this pid alone is passed on.
  for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => {
    child.on('error', (e) => { console.error(`bench: ${e.message}`); resolve(2); });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 2)));
  });
}
