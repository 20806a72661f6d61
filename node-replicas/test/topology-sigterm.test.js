// SIGTERM one of 4 replicas under load (what `docker stop` or a scale-down sends): it finishes
// what it has in flight, nginx sends new requests elsewhere, and no request fails.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { runnerFor } from '../../harness/runner/index.js';
import { startTopology, waitExited } from './helpers/topology.js';
import { startLoad, failures, countBy } from './helpers/load.js';
import { request } from './helpers/http.js';

const { signal } = runnerFor('processes');

test('SIGTERM one replica under load: zero failed requests, its in-flight requests complete', async (t) => {
  const { url, runDir, app } = await startTopology(t, { REPLICAS: '4' });
  const victim = app[1];
  const load = startLoad({ url: `${url}/delay?ms=50`, concurrency: 8, maxRequests: 3_000, maxMs: 30_000 });
  await load.until(100);

  // Slow requests straight to the victim, surely read by it before the signal (a later request
  // on a new connection has been answered).
  const inFlight = Array.from({ length: 3 }, () => request(`${victim.url}/delay?ms=1500`).catch((error) => ({ error })));
  await sleep(50);
  assert.equal((await request(`${victim.url}/health`)).status, 200);

  await signal({ runDir, service: 'app', index: victim.index, signal: 'SIGTERM' });
  const signalledAt = Date.now();
  assert.equal(await waitExited(runDir, 'app', victim.index), 'exited');
  const exitedAt = Date.now();
  const before = load.results.length;
  await load.until(before + 200);
  const results = await load.stop();

  for (const answer of await Promise.all(inFlight)) {
    assert.equal(answer.error, undefined, `in-flight request failed: ${answer.error?.message}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.json.instance, victim.name);
    assert.equal(answer.headers.connection, 'close');
  }
  assert.deepEqual(failures(results), [], `failed requests: ${JSON.stringify(failures(results).slice(0, 5))}`);
  assert.ok(countBy(results.filter((r) => r.at < signalledAt))[victim.name] > 0, 'the victim served before the signal');
  const after = countBy(results.filter((r) => r.at > exitedAt));
  assert.deepEqual(Object.keys(after).sort(), app.filter((i) => i !== victim).map((i) => i.name).sort());
  assert.match(fs.readFileSync(victim.log, 'utf8'), /SIGTERM: draining[\s\S]*drained; exiting/);
});
