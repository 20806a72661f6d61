// least_conn vs round-robin with one replica made slow (SLOW_INSTANCE through compose.yaml's
// environment): under least_conn its open connections pile up, so nginx sends it less.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startTopology } from './helpers/topology.js';
import { startLoad, failures, countBy } from './helpers/load.js';

const SLOW = 'node-replicas-app-1';

async function slowShare(t, lb) {
  const { url, stop } = await startTopology(t, { REPLICAS: '4', LB: lb, SLOW_INSTANCE: '1', SLOW_DELAY_MS: '100' });
  const results = await startLoad({ url: `${url}/`, concurrency: 8, maxRequests: 400 }).done;
  await stop();
  assert.deepEqual(failures(results), [], lb);
  const counts = countBy(results);
  t.diagnostic(`${lb}: ${JSON.stringify(counts)}`);
  assert.equal(Object.keys(counts).length, 4, `${lb}: every replica served (${JSON.stringify(counts)})`);
  return (counts[SLOW] ?? 0) / results.length;
}

test('least_conn sends fewer requests than round-robin to a slow replica', async (t) => {
  const roundRobin = await slowShare(t, 'round_robin');
  const leastConn = await slowShare(t, 'least_conn');
  t.diagnostic(`slow replica's share: round_robin ${roundRobin.toFixed(3)}, least_conn ${leastConn.toFixed(3)}`);
  // Round-robin ignores speed: about a quarter each.
  assert.ok(roundRobin > 0.2, `round_robin share ${roundRobin}`);
  // least_conn: well under half of that.
  assert.ok(leastConn < roundRobin / 2, `least_conn share ${leastConn} vs round_robin ${roundRobin}`);
});
