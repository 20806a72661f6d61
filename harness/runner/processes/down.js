// down(): stops a run and leaves nothing behind. An up() still starting it — in this process or in
// another (`make up` in one terminal, `make down` in another) — is cancelled first and waited for,
// so nothing it would have started afterwards can outlive the down().
import path from 'node:path';
import { isAlive } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR, runIdOf } from '../common/run-dir.js';
import * as cgroup from '../common/cgroup.js';
import { call, readState } from './supervisor-client.js';
import { starting } from './up.js';
import { teardown } from './teardown.js';
import { setTimeout as sleep } from 'node:timers/promises';

async function cancelOtherProcess(runDir, { timeoutMs = 120_000 } = {}) {
  // The supervisor marks the run cancelled while it is starting, and names the up() starting it.
  const { owner } = await call(runDir, 'cancel', {}, { timeoutMs: 10_000 }).catch(() => ({ owner: null }));
  if (!owner || owner === process.pid || !isAlive(owner)) return;
  const deadline = Date.now() + timeoutMs;
  // Its up() notices at its next step and takes down what it started; wait for that to end: its
  // supervisor gone (with the state) is not the end yet, the run's groups go after it.
  const runId = runIdOf(runDir);
  const busy = async () => (await readState(runDir))?.phase === 'starting' || cgroup.runExists(runId);
  while (Date.now() < deadline && isAlive(owner) && (await busy())) await sleep(100);
}

export async function down(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  const inProgress = starting.get(runDir);
  if (inProgress) {
    inProgress.cancel();
    await inProgress.settled;
  } else {
    await cancelOtherProcess(runDir);
  }
  const result = await teardown(runDir);
  return { ...result, stopped: result.stopped + (inProgress?.control.stopped ?? 0) };
}
