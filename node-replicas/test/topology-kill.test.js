// kill -9 one of 4 replicas under steady load: nginx retries the GETs it had in flight there on
// another replica (proxy_next_upstream error) and routes around it, so no client sees a failure;
// the service's `restart: on-failure` brings the replica back.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runnerFor } from '../../harness/runner/index.js';
import { startTopology, restartsOf, waitRunning } from './helpers/topology.js';
import { startLoad, failures, countBy } from './helpers/load.js';

const { signal } = runnerFor('processes');

test('kill -9 one of 4 replicas under steady load: zero failed GETs, and it comes back', async (t) => {
  // 20 ms per GET / so the victim always has requests in flight when it dies.
  const { url, runDir } = await startTopology(t, { REPLICAS: '4', DELAY_MS: '20' });
  const load = startLoad({ url: `${url}/`, concurrency: 8, maxRequests: 2_000, maxMs: 30_000 });
  await load.until(200);
  const victim = await signal({ runDir, service: 'app', index: 2, signal: 'SIGKILL' });
  const killedAt = Date.now();
  const before = load.results.length;
  await load.until(before + 400);
  const results = await load.stop();

  assert.deepEqual(failures(results), [], `failed GETs: ${JSON.stringify(failures(results).slice(0, 5))}`);
  assert.ok(results.length >= before + 400, `load ended early: ${results.length} answers`);
  const served = countBy(results.filter((r) => r.at < killedAt));
  assert.ok(served[victim.name] > 0, `${victim.name} served nothing before the kill: ${JSON.stringify(served)}`);
  const afterKill = results.filter((r) => r.at > killedAt);
  assert.deepEqual(afterKill.filter((r) => r.pid === victim.pid), [], 'the killed process never answered again');
  assert.ok(Object.keys(countBy(afterKill)).length >= 3, JSON.stringify(countBy(afterKill)));
  await waitRunning(runDir, 'app', 2);
  assert.equal(await restartsOf(runDir, 'app', 2), 1, 'restarted once by its restart policy');
});
