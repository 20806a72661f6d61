// Pure logic of the benchmark: parsing wrk, normalising autocannon/loadtest, statistics, the plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWrk } from '../bench/lib/tools/wrk.js';
import { normalise as normAuto } from '../bench/lib/tools/autocannon.js';
import { normalise as normLoad } from '../bench/lib/tools/loadtest.js';
import { GeneratorError } from '../bench/lib/tools/errors.js';
import { median, spread, summarise } from '../bench/lib/stats.js';
import { isGeneratorBound } from '../bench/lib/ceiling.js';
import { plan, SCENARIOS } from '../bench/lib/scenarios.js';
import { pathFor, WORKLOADS } from '../bench/lib/workloads.js';

const WRK_OK = `Running 3s test @ http://127.0.0.1:8080/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.50ms  800.00us   1.20s    90.00%
    Req/Sec    20.00k     2.00k   25.00k    70.00%
  Latency Distribution
     50%  750.00us
     75%    1.10ms
     90%    2.00ms
     99%    12.34ms
  120000 requests in 3.00s, 30.00MB read
  Socket errors: connect 1, read 2, write 3, timeout 4
  Non-2xx or 3xx responses: 5
Requests/sec:  40000.50
Transfer/sec:     10.00MB
`;

test('parseWrk reads throughput, percentiles in any unit, socket errors and non-2xx', () => {
  const r = parseWrk(WRK_OK);
  assert.equal(r.requests, 120000);
  assert.equal(r.rps, 40000.5);
  assert.equal(r.durationS, 3);
  assert.equal(r.latencyMs.p50, 0.75);
  assert.equal(r.latencyMs.p99, 12.34);
  assert.equal(r.latencyMs.max, 1200);
  assert.equal(r.socketErrors, 10);
  assert.deepEqual(r.socketErrorDetail, { connect: 1, read: 2, write: 3, timeout: 4 });
  assert.equal(r.non2xx, 5);
});

test('parseWrk: no error lines means zero errors', () => {
  const clean = WRK_OK.replace(/ {2}Socket errors.*\n/, '').replace(/ {2}Non-2xx.*\n/, '');
  const r = parseWrk(clean);
  assert.equal(r.socketErrors, 0);
  assert.equal(r.non2xx, 0);
});

test('parseWrk rejects output that is not a wrk report with a GeneratorError', () => {
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused'), GeneratorError);
});

test('autocannon results: rps from total/duration, errors and non-2xx kept apart', () => {
  const r = normAuto({ requests: { total: 300 }, duration: 3, latency: { p50: 1, p99: 9, max: 20 }, non2xx: 7, errors: 2, timeouts: 1 });
  assert.equal(r.rps, 100);
  assert.equal(r.non2xx, 7);
  assert.equal(r.socketErrors, 2);
  assert.deepEqual(r.latencyMs, { p50: 1, p99: 9, max: 20 });
});

test('loadtest results: HTTP status codes count as non-2xx, error names as socket errors', () => {
  const r = normLoad({ totalRequests: 100, elapsedSeconds: 2, percentiles: { 50: 3, 90: 5, 95: 6, 99: false }, maxLatencyMs: 40, errorCodes: { 502: 3, ECONNREFUSED: 4, '-1': 1 } });
  assert.equal(r.rps, 50);
  assert.equal(r.non2xx, 3);
  assert.equal(r.socketErrors, 5);
  assert.equal(r.latencyMs.p99, null);
});

test('median, spread and summarise', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([]), null);
  assert.deepEqual(spread([90, 100, 110]), { min: 90, max: 110, relative: 0.2 });
  const s = summarise([
    { rps: 100, requests: 300, latencyMs: { p50: 1, p99: 5, max: 9 }, non2xx: 1, socketErrors: 0 },
    { rps: 120, requests: 360, latencyMs: { p50: 2, p99: 7, max: 30 }, non2xx: 0, socketErrors: 2 },
    { rps: 110, requests: 330, latencyMs: { p50: 3, p99: 6, max: 10 }, non2xx: 0, socketErrors: 0 },
  ]);
  assert.equal(s.rps, 110);
  assert.equal(s.latencyMs.p99, 6);
  assert.equal(s.latencyMs.max, 30);
  assert.equal(s.requests, 990);
  assert.equal(s.non2xx + s.socketErrors, 3);
});

test('generator-bound above 70% of the ceiling only', () => {
  assert.equal(isGeneratorBound(71, 100), true);
  assert.equal(isGeneratorBound(69, 100), false);
  assert.equal(isGeneratorBound(1e6, null), false);
});

test('the quick plan covers every scenario, each cell runnable on its sample', () => {
  const p = plan();
  assert.equal(p.mode, 'quick');
  assert.deepEqual([...new Set(p.cells.map((c) => c.scenario))].sort(), Object.keys(SCENARIOS).sort());
  for (const c of p.cells) {
    assert.ok(WORKLOADS[c.workload], `cell ${c.id} has a known workload`);
    assert.ok(pathFor(c.workload, c.topology.sample, c.pathOverride), `cell ${c.id}: ${c.topology.sample} serves ${c.workload}`);
    assert.ok(c.topology.env.CPUS, `cell ${c.id} sets CPUS explicitly`);
  }
  const full = plan({ full: true });
  assert.ok(full.cells.length > p.cells.length);
});

test('plan filters by scenario and sample, and names what is unknown', () => {
  const p = plan({ scenario: 'fault-drill', sample: 'node-cluster' });
  assert.ok(p.cells.length > 0);
  assert.ok(p.cells.every((c) => c.scenario === 'fault-drill' && c.topology.sample === 'node-cluster'));
  assert.throws(() => plan({ scenario: 'nope' }), /unknown scenario "nope"/);
  assert.throws(() => plan({ scenario: 'exp-aspnet-nginx', sample: 'node-replicas' }), /nothing to run/);
});
