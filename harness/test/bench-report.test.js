// The report, charts and decision guide from a synthetic full run built through the real plan and
// results code (every scenario, failed, skipped, suspect and tied cells included): well-formed,
// the verdict table first, and rendered from results.json alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { plan } from '../bench/lib/plan.js';
import { buildResults } from '../bench/lib/results.js';
import { writeOutputs } from '../bench/lib/output.js';

const REPORT_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bench', 'lib', 'report');

// Per-round figures for a cell: .NET twice as fast as Node, clusters/replicas equal to one process,
// a little noise so intervals have width.
function fakeRounds(c, rounds) {
  const speed = c.topology.runtime === 'dotnet' ? 2 : 1;
  const base = { light: 8000, pi: 700, delay: 4000, db: 3000 }[c.workload] * speed;
  return Array.from({ length: rounds }, (_, i) => {
    const rps = base * (1 + 0.02 * Math.sin(i + c.id.length));
    return { round: i + 1, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), rps, requests: rps * 10, latencyMs: { p50: 5, p90: 8, p99: 20 / speed, max: 40 }, errors: 0, cpuPerRequestUs: 1e6 / rps, memoryMiB: 60 * c.topology.processes + (c.topology.viaNginx ? 10 : 0), processes: c.topology.processes };
  });
}

function fakeDoc() {
  const p = plan({ full: true, budget: 1, processes: 2 });
  const cells = [];
  for (const s of p.scenarios) {
    for (const c of s.cells) {
      const rec = { ...c, cpuLimits: { enforced: true, mechanism: 'cgroup v1 cpu.cfs_quota_us', pinning: { enforced: true, cpus: '1' } } };
      if (c.needsDb && c.topology.sample === 'node-cluster') { cells.push({ ...rec, status: 'skipped', error: 'no database here: mongod not found', rounds: [] }); continue; }
      // The cluster's open-loop rate is above its closed-loop capacity: flagged, not hidden.
      if (c.kind === 'openloop') { cells.push({ ...rec, status: 'ok', probeRps: 700, maxRate: c.topology.strategy === 'cluster' ? 900 : 600, bracket: [600, 650], bracketed: true, stepS: 10, steps: [{ rate: 600, sustained: true, latencyMs: { p99: 100 } }, { rate: 650, sustained: false, latencyMs: { p99: 900 } }] }); continue; }
      const rounds = fakeRounds(c, 7);
      const rps = { median: rounds[3].rps, min: Math.min(...rounds.map((r) => r.rps)), max: Math.max(...rounds.map((r) => r.rps)) };
      const bound = c.id === 'light:express-1-nginx'; // a generator-bound loser: the verdicts on it are kept out
      cells.push({ ...rec, status: 'ok', rounds, windowS: 10, rps, latencyMs: { p50: { median: 5 }, p90: { median: 8 }, p99: { median: rounds[0].latencyMs.p99 }, max: { median: 40 } }, cpuPerRequestUs: { median: rounds[0].cpuPerRequestUs }, memoryMiB: { median: rounds[0].memoryMiB }, errors: 0, generatorBound: bound, ceilingShare: bound ? 0.8 : 0.1 });
    }
  }
  return buildResults({
    plan: p, cells, label: 'synthetic', argv: '--full', startedAt: '2026-01-01T00:00:00Z', tool: 'wrk', pacedTool: 'autocannon',
    ceilings: { wrk: { rps: 50000 }, autocannon: { rps: 12000 } },
    isolation: { generatorCpus: '0', sutCpus: '1', budgetCpus: 1, generatorThreads: 1, generatorNice: -10, pinned: true, mechanism: 'cgroup cpuset' },
    box: { loadBefore: [0.1, 0.1, 0.1], loadAfter: [2, 1, 0.5], stealPct: 0.4, busy: false, busyWhy: null },
    meta: { machine: { hostname: 'h', os: 'Debian', kernel: '6', arch: 'x64', cpuModel: 'cpu', cores: 2, memoryGiB: 4 }, versions: { node: '24', nginx: '1.22', wrk: '4.1', dotnet: '10' }, git: { commit: 'abc', dirty: false }, cgroup: 'v1' },
    // The spread of one question over three earlier runs: its interval gets at least that wide.
    spread: { mode: 'quick', z: 1.96, runs: ['2025-12-01', '2025-12-02', '2025-12-03'].map((d) => ({ startedAt: `${d}T10:00:00Z`, label: null, commit: null })), questions: { 'pi.cluster.throughput': { n: 3, ratios: [0.9, 1, 1.1], sdLog: 0.1 } } },
  });
}

test('report, charts and guide from a full synthetic run: the verdict table first, every verdict accounted for', { timeout: 60_000 }, async () => {
  const doc = fakeDoc();
  const out = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
  try {
    const files = await writeOutputs(doc, { outDir: out, guidePath: path.join(out, 'decision-guide.md') });
    assert.ok(files.length >= 8, files.join());
    const guide = readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
    const report = readFileSync(path.join(out, 'report.md'), 'utf8');
    for (const text of [guide, report]) assert.doesNotMatch(text, /NaN|undefined|\[object Object\]/);
    // The guide opens with the decision flow, then the reasons, the method, every verdict, the glossary.
    const order = ['## Decide', '```mermaid', '## Why each strategy', '## How it was measured', '## Every verdict', '## Glossary'].map((h) => guide.indexOf(h));
    assert.ok(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1])), `sections in order: ${order}`);
    assert.match(guide, /\| workload \| metric \| one process \(the baseline\) \| cluster \| replicas behind nginx \| \.NET \| \.NET replicas \|/);
    for (const w of ['light JSON', 'CPU-bound \\(pi\\)', 'slow I/O \\(50 ms wait\\)', 'database read']) assert.match(guide, new RegExp(`\\| \\*\\*${w}\\*\\* \\| throughput \\|`));
    // .NET at twice Node's throughput wins; the cluster on the same budget can't be told apart or is
    // equal; a generator-bound cell is suspect; node-cluster's database cells are not measured.
    const byId = new Map(doc.verdicts.map((v) => [v.id, v]));
    assert.equal(byId.get('pi.dotnet.throughput').winner, 'dotnet-1-nginx');
    assert.equal(byId.get('pi.cluster.throughput').winner, null);
    assert.equal(byId.get('light.cluster.memory').winner, 'express-1-nginx');
    assert.equal(byId.get('light.dotnet.throughput').suspect, true);
    assert.equal(byId.get('db.cluster.throughput').measured, false);
    assert.match(guide, /\*\*\.NET 1 process\*\* wins ×2\.00 \(×\d\.\d\d–×\d\.\d\d\)/);
    assert.match(guide, /(equal|can't tell) ×1\.0\d \(×\d\.\d\d–×\d\.\d\d\)/);
    assert.match(guide, /⚠ suspect ×/);
    assert.match(guide, /Not measured here, because no MongoDB server could be had/);
    assert.doesNotMatch(guide, /\btie\b/);
    // Intervals at least as wide as the spread over repeated runs, and the guide and the report say so.
    const spreadQ = byId.get('pi.cluster.throughput');
    assert.equal(spreadQ.betweenRuns, Number((Math.exp(0.196) - 1).toFixed(3)));
    assert.ok(spreadQ.ci95[1] / spreadQ.ratio >= Math.exp(0.196) - 1e-3, `ci ${spreadQ.ci95}`);
    assert.equal(byId.get('light.cluster.throughput').betweenRuns, undefined);
    assert.match(report, /spread over 3 default runs on this machine \(2025-12-01, 2025-12-02, 2025-12-03\)/);
    assert.match(report, /### Every verdict/);
    assert.match(report, /`pi\.dotnet\.throughput` \| ×(1\.99\d|2\.00\d) \|/);
    assert.match(report, /Open loop|openloop/);
    assert.match(report, /900 ⚠ sustained 900 req\/s, ×1\.\d+ of its closed-loop capacity/);
    assert.equal(doc.cells.filter((c) => c.kind === 'openloop' && c.suspect).length, 1, 'only the cluster\'s open-loop rate is suspect');
    const svgs = readdirSync(out).filter((f) => f.endsWith('.svg'));
    // No CPU-per-request chart here: it shows only the figure at a fixed rate, which these cells lack.
    assert.ok(!svgs.includes('cpu-per-request.svg'));
    for (const f of ['verdicts.svg', 'throughput.svg', 'p99.svg', 'memory.svg', 'openloop.svg']) {
      assert.ok(svgs.includes(f), `${f} drawn`);
      assert.match(readFileSync(path.join(out, f), 'utf8'), /^<svg [\s\S]*<\/svg>\s*$/);
      assert.ok(report.includes(`](${f})`), `report links ${f}`);
    }
    // Machine-readable verdicts: one entry per question, the fields a script compares runs with.
    for (const v of doc.verdicts) {
      assert.deepEqual(['id', 'question', 'winner', 'ratio', 'ci95', 'suspect'].filter((k) => !(k in v)), [], v.id);
    }
  } finally {
    if (process.env.KEEP_REPORT) console.log("kept", out); else rmSync(out, { recursive: true, force: true });
  }
});

test('the report, charts and guide import nothing from the plan: results.json is all they read', () => {
  for (const f of readdirSync(REPORT_DIR).filter((x) => x.endsWith('.js'))) {
    const imports = [...readFileSync(path.join(REPORT_DIR, f), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    for (const i of imports) assert.ok(!i.startsWith('../') || i.startsWith('../../../node_modules'), `${f} imports ${i}`);
  }
});
