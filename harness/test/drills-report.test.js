// The decision guide's drill section from a synthetic run: like with like (grouped by how many
// processes serve), the targets judged from the counts, lost requests explained, failed and
// skipped cells listed, and every number taken from the cells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderDrills, faultTargetMet, rolloutTargetMet, processesOf } from '../bench/lib/report/drills.js';

const MIX = { get: '/', post: { path: '/echo', body: '{}', contentType: 'application/json' }, postShare: 0.2 };
const topo = (id, label, strategy, instances, workers, viaNginx, runtime = 'node') => ({ id, label, sample: 'x', runtime, app: 'node:http', strategy, instances, workers, cpusPerInstance: 1, budgetCpus: 2, viaNginx, lb: 'least_conn' });
const part = (requests, failed, errors = {}) => ({ requests, failed, retried: 0, errors });
const fault = (t, get, post, extra = {}) => ({
  id: `fault:${t.id}`, scenario: 'fault', kind: 'fault', status: 'ok', topology: t,
  drill: { how: t.strategy === 'cluster' ? 'worker' : 'instance', kills: [1, 2, 3].map((i) => ({ target: `${t.id}-${i}`, killedAtMs: 1000 * i, backAfterMs: 400 + i, inRotationAfterMs: 2400 + i, failed: { get: 0, post: 0 } })), get, post, latencyMs: { p50: 9, p90: 23, p99: 71, max: 101 }, recoverMs: { median: 402, max: 403 }, inRotationMs: { median: 2402, max: 2403 }, durationS: 10.5, rate: 100, mix: MIX, ...extra },
});
const rollout = (t, strategy, get, post) => ({
  id: `rollout:${t.id}`, scenario: 'rollout', kind: 'rollout', status: 'ok', topology: t,
  drill: { strategy, zeroDowntime: strategy !== 'restart', steps: [], reloadMs: 1234, get, post, latencyMs: { p50: 9, p90: 26, p99: 143, max: 154 }, durationS: 3.1, rate: 100, mix: MIX },
});

const R2 = topo('node-replicas-2-nginx', '2 Node replicas + nginx', 'replicas', 2, 1, true);
const R4 = topo('node-replicas-4-nginx', '4 Node replicas + nginx', 'replicas', 4, 1, true);
const C2 = topo('node-cluster-2', 'Node cluster of 2', 'cluster', 1, 2, false);
const C2N = topo('node-cluster-2-nginx', 'Node cluster of 2 + nginx', 'cluster', 1, 2, true);
const D1 = topo('dotnet-1', '1 .NET process', 'one process', 1, 1, false, 'dotnet');
const D2 = topo('dotnet-replicas-2-nginx', '2 .NET replicas + nginx', 'replicas', 2, 1, true, 'dotnet');

function doc() {
  return {
    cells: [
      fault(R2, part(841, 0), part(210, 3, { 'HTTP 502': 3 })),
      fault(R4, part(845, 0), part(211, 0)),
      fault(C2, part(595, 0), part(148, 2, { ECONNRESET: 2 })),
      fault(C2N, part(528, 1, { ETIMEDOUT: 1 }), part(132, 0)),
      fault(D1, part(1141, 269, { ECONNREFUSED: 269 }), part(285, 66, { ECONNREFUSED: 66 })),
      fault(D2, part(1754, 0), part(438, 0)),
      rollout(R2, 'proxy', part(247, 0), part(61, 0)),
      rollout(C2, 'signal', part(485, 0), part(121, 0)),
      rollout(D1, 'restart', part(568, 138, { ECONNREFUSED: 138 }), part(141, 35, { ECONNREFUSED: 35 })),
      { id: 'rollout:dotnet-replicas-2-nginx', scenario: 'rollout', kind: 'rollout', status: 'failed', error: 'reload stopped at dotnet-api-app-1: exited before it was healthy', topology: D2 },
      { id: 'fault:skipped', scenario: 'fault', kind: 'fault', status: 'skipped', error: 'mongod not found', topology: topo('c', 'Express cluster + mongo', 'cluster', 1, 2, true) },
      { id: 'matrix:x', kind: 'closed', status: 'ok', topology: R2 },
    ],
  };
}

test('targets are judged from the counts, only where they apply', () => {
  const cells = doc().cells;
  const byId = Object.fromEntries(cells.map((c) => [c.id, c]));
  assert.equal(processesOf(C2), 2);
  assert.equal(faultTargetMet(byId['fault:node-replicas-2-nginx']), true, 'failed POSTs do not miss the GET target');
  assert.equal(faultTargetMet(byId['fault:node-cluster-2-nginx']), false);
  assert.equal(faultTargetMet(byId['fault:node-cluster-2']), null, 'not behind nginx');
  assert.equal(faultTargetMet(byId['fault:dotnet-1']), null, 'one process');
  assert.equal(rolloutTargetMet(byId['rollout:node-cluster-2']), true);
  assert.equal(rolloutTargetMet(byId['rollout:dotnet-1']), null);
  assert.equal(rolloutTargetMet(byId['rollout:dotnet-replicas-2-nginx']), null, 'not measured');
});

test('the section compares like with like and explains what failed', () => {
  const md = renderDrills(doc()).join('\n');
  assert.doesNotMatch(md, /NaN|undefined|\[object Object\]/);
  assert.match(md, /^## When something dies \/ when you deploy$/m);
  // One process sits in a table of its own; 2-process topologies share one; 4 replicas stand alone.
  const faults = md.slice(md.indexOf('### When a process dies'), md.indexOf('### When you deploy'));
  const table = (title) => faults.split(`**${title}**`)[1].split('\n\n')[1];
  const one = table('One process');
  assert.ok(one.includes('| 1 .NET process |'));
  assert.doesNotMatch(one, /replicas|cluster/);
  const two = table('2 processes');
  for (const label of ['2 Node replicas + nginx', 'Node cluster of 2', 'Node cluster of 2 + nginx', '2 .NET replicas + nginx']) assert.ok(two.includes(`| ${label} |`), label);
  assert.doesNotMatch(two, /1 \.NET process|4 Node replicas/);
  assert.ok(table('4 processes').includes('| 4 Node replicas + nginx |'));
  // Targets: the cluster behind nginx missed the fault target (1 failed GET), everything else judged met.
  assert.match(md, /0 failed GETs when a process dies, for every topology with 2 or more processes behind nginx: \*\*missed\*\* by Node cluster of 2 \+ nginx\./);
  assert.match(md, /during a rollout of any strategy with 2 or more processes: met by all 2 \(2 Node replicas \+ nginx, Node cluster of 2\)\./);
  assert.match(md, /\| 2 Node replicas \+ nginx \| 3 × an instance \| 0 of 841 \| 3 of 210 \| 402 ms \/ 403 ms \| 2,402 ms \/ 2,403 ms \| 71 ms \| met \|/);
  assert.match(md, /\| 1 \.NET process \| 3 × an instance \| 269 of 1,141 \| 66 of 285 \| .* \| — \|/);
  assert.match(md, /\| 1 \.NET process \| stop, start \(no proxy in front\) \| 1,234 ms \| 138 of 568 \| 35 of 141 \|/);
  // Lost requests, each kind this run saw, explained.
  assert.match(md, /POSTs answered 502 behind nginx.*never replays a POST/);
  assert.match(md, /ECONNRESET/);
  assert.match(md, /ECONNREFUSED.*nothing listened/);
  assert.match(md, /ETIMEDOUT\*\* \(Node cluster of 2 \+ nginx\).*handed to a worker that died/);
  // Not measured: listed with why.
  assert.match(md, /- 2 \.NET replicas \+ nginx \(rollout\): failed — reload stopped at dotnet-api-app-1/);
  assert.match(md, /- Express cluster \+ mongo \(fault\): skipped — mongod not found/);
});

test('what a run without lost requests or drills says', () => {
  const clean = { cells: doc().cells.filter((c) => ['fault:node-replicas-4-nginx', 'rollout:node-replicas-2-nginx'].includes(c.id)) };
  const md = renderDrills(clean).join('\n');
  assert.doesNotMatch(md, /Why requests failed|Not measured/);
  assert.match(md, /met by all 1 \(4 Node replicas \+ nginx\)/);
  assert.match(renderDrills({ cells: [] }).join('\n'), /No fault or rollout drill in this run/);
});
