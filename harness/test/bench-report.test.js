// The report, charts and decision guide from a synthetic results document that has every
// scenario of the full plan, including failed and skipped cells: well-formed, and every number
// in the text is one of the results'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { plan } from '../bench/lib/scenarios.js';
import { topologyKey, describe } from '../bench/lib/topologies.js';
import { writeOutputs } from '../bench/lib/output.js';

function fakeDoc() {
  const p = plan({ full: true });
  let k = 0;
  const results = p.cells.map((c) => {
    k += 1;
    const base = { id: c.id, scenario: c.scenario, kind: c.kind, workload: c.workload, tags: c.tags ?? {},
      topology: { key: topologyKey(c.topology), label: describe(c.topology), family: c.topology.family, sample: c.topology.sample, direct: Boolean(c.topology.direct), env: c.topology.env },
      cpuLimits: { enforced: true, mechanism: 'cgroup v1 cpu.cfs_quota_us' } };
    if (c.workload === 'db' && c.topology.sample === 'node-cluster') return { ...base, status: 'skipped', error: 'database unavailable: mongod not found' };
    if (k === 3) return { ...base, status: 'failed', error: 'GET http://127.0.0.1:1/ failed: ECONNREFUSED' };
    const lat = { p50: 10 + k, p99: 100 + k, max: 200 + k };
    if (c.kind === 'closed') return { ...base, status: 'ok', path: '/x', tool: 'wrk', connections: c.connections, durationS: 1, warmupS: 1, repeats: 2, rps: 1000 + 7 * k, rpsSpread: { min: 990, max: 1010, relative: 0.02 }, latencyMs: lat, requests: 2000, non2xx: 0, socketErrors: 0, generatorBound: k === 5, runs: [] };
    if (c.kind === 'count') return { ...base, status: 'ok', path: '/x', tool: 'loadtest', connections: 10, amount: 50, requests: 50, rps: 20, latencyMs: lat, non2xx: 0, socketErrors: k % 2 };
    if (c.kind === 'openloop') return { ...base, status: 'ok', path: '/x', tool: 'loadtest', closedLoopRps: 500, maxRate: 300 + k, bracketed: true, generatorBound: false, p99LimitMs: 500, stepS: 1, steps: [{ rate: 350, ok: true, latencyMs: lat }, { rate: 700, ok: false, latencyMs: { p50: 400, p99: 900, max: 990 } }] };
    return { ...base, status: 'ok', path: '/x', tool: 'loadtest', rate: 200, durationS: 7, everyS: 2.5, how: c.how, requests: 1400, failed: k, failedPct: k / 14, non2xx: k, socketErrors: 0, latencyMs: lat, kills: [{ atS: 2.5, index: 1 }, { atS: 5, index: 2 }] };
  });
  return {
    schema: 1, label: 'synthetic', mode: 'full', argv: '--full', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:45:00Z',
    tool: 'wrk', pacedTool: 'loadtest', params: p.params,
    meta: { machine: { hostname: 'h', os: 'Debian', kernel: '6', arch: 'x64', cpuModel: 'cpu', cores: 2, memoryGiB: 4, loadAvgAtStart: [0.1, 0.1, 0.1] },
      versions: { node: '24', nginx: '1.22', wrk: '4.1', autocannon: '9', loadtest: '8', dotnet: '10' }, git: { commit: 'abc', dirty: false }, cgroup: 'v1',
      cpuLimits: { enforced: true, mechanism: 'cgroup v1 cpu.cfs_quota_us' } },
    ceilings: { wrk: { rps: 80000 }, loadtest: { rps: 9000 } },
    results,
  };
}

test('report, charts and guide from a full synthetic run', { timeout: 60_000 }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
  const doc = fakeDoc();
  await writeOutputs(doc, { outDir: out, guidePath: path.join(out, 'decision-guide.md') });
  const files = readdirSync(out);
  for (const f of ['results.json', 'report.md', 'decision-guide.md', 'matrix-throughput.svg', 'matrix-p99.svg', 'cpu-budget.svg', 'openloop.svg', 'fault-drill.svg', 'exp-compose-replicas.svg', 'exp-cluster-vs-containers.svg']) {
    assert.ok(files.includes(f), `${f} written`);
  }
  for (const f of files.filter((x) => x.endsWith('.svg'))) {
    const svg = readFileSync(path.join(out, f), 'utf8');
    assert.match(svg, /^<svg [^>]*>/, f);
    assert.match(svg, /<\/svg>\s*$/, f);
  }
  const report = readFileSync(path.join(out, 'report.md'), 'utf8');
  const guide = readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
  for (const text of [report, guide]) assert.doesNotMatch(text, /NaN|undefined|\[object Object\]/);
  // The published figures sit beside ours.
  for (const n of ['900', '7,500', '240', '716', '516', '1,493']) assert.ok(report.includes(`| ${n} |`), `published ${n} in the report`);
  // Failed and skipped cells are reported, not hidden.
  assert.match(report, /## Not measured in this run/);
  assert.match(report, /ECONNREFUSED/);
  assert.match(report, /generator-bound/);
  // Every scenario has its section.
  for (const s of ['matrix', 'cpu-budget', 'openloop', 'fault-drill', 'exp-node-scale', 'exp-aspnet-nginx', 'exp-pi-loadbalancing']) assert.ok(report.includes(`SCENARIO=${s}\``), s);
  // The guide's numbers come from the results: the cluster's pi figure and its ratio to Express alone.
  const rps = (label, workload) => doc.results.find((r) => r.scenario === 'matrix' && r.topology.label === label && r.workload === workload).rps;
  const cluster = rps('Node cluster of 2', 'pi');
  const single = rps('Express, 1 process', 'pi');
  assert.ok(guide.includes(`Node cluster of 2 ${cluster.toLocaleString('en-US')} req/s`));
  assert.ok(guide.includes(`×${(cluster / single).toFixed(2)} its single Express process`));
  assert.match(guide, /## Caveats of this run/);
  rmSync(out, { recursive: true, force: true });
});
