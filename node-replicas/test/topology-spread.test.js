// Through the local runner with the real nginx: every replica serves, and REPLICAS sizes the set.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startTopology } from './helpers/topology.js';
import { startLoad, failures, countBy } from './helpers/load.js';

test('requests through nginx spread over every one of 4 replicas', async (t) => {
  const { url, names, app } = await startTopology(t, { REPLICAS: '4' });
  assert.equal(names.length, 4);
  const load = startLoad({ url: `${url}/`, concurrency: 8, maxRequests: 400 });
  const results = await load.done;
  assert.equal(results.length, 400);
  assert.deepEqual(failures(results), []);
  const counts = countBy(results);
  assert.deepEqual(Object.keys(counts).sort(), [...names].sort(), JSON.stringify(counts));
  for (const name of names) assert.ok(counts[name] > 0, `${name} served nothing: ${JSON.stringify(counts)}`);

  // Each replica counts its own hits: its counter now equals what it served us.
  for (const inst of app) {
    const direct = /** @type {{ instance: string, hits: number }} */ (await (await fetch(`${inst.url}/`)).json());
    assert.equal(direct.instance, inst.name);
    assert.equal(direct.hits, counts[inst.name] + 1, inst.name);
  }
});

test('REPLICAS=2 runs two replicas and nginx sends to exactly those', async (t) => {
  const { url, names } = await startTopology(t, { REPLICAS: '2' });
  assert.deepEqual(names, ['node-replicas-app-1', 'node-replicas-app-2']);
  const results = await startLoad({ url: `${url}/`, concurrency: 4, maxRequests: 100 }).done;
  assert.deepEqual(failures(results), []);
  assert.deepEqual(Object.keys(countBy(results)).sort(), names);
});
