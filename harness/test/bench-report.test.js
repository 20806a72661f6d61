// The report, charts and decision guide from a synthetic full run at two CPU budgets, built through
// the real plan and results code (every scenario; failed, skipped, suspect, generator-bound and
// control cells included): well-formed, one verdict table per budget, rendered from results.json alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { plan } from '../bench/lib/plan.js';
import { buildResults } from '../bench/lib/results.js';
import { writeOutputs } from '../bench/lib/output.js';

const REPORT_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bench', 'lib', 'report');

// Per-round figures for a cell: .NET twice as fast as Node; on CPU-bound work a Node strategy gains
// 0.9 of a core for each CPU its processes can use (a cluster of 2 on 2 CPUs: ×1.9, the control's 2 workers on 1 CPU:
// ×1); a little noise so intervals have width. The fixed-rate windows (paced) carry the p99 and the
// CPU per request the verdicts take; the saturated CPU figure is made far off so a render of it shows.
function fakeRounds(c, rounds) {
  const t = c.topology;
  const speed = t.runtime === 'dotnet' ? 2 : 1;
  const usable = t.runtime === 'dotnet' || c.workload !== 'pi' ? 1 : Math.min(t.processes, t.budgetCpus ?? 1);
  const base = { light: 8000, pi: 700, delay: 4000, db: 3000 }[c.workload] * speed * (1 + 0.9 * (usable - 1));
  return Array.from({ length: rounds }, (_, i) => {
    const rps = base * (1 + 0.02 * Math.sin(i + c.id.length));
    const paced = c.latencyRounds ? { rate: 500, held: true, latencyMs: { p50: 2, p99: 10 / speed }, cpuPerRequestUs: (300 / speed) * (1 + 0.01 * Math.cos(i + c.id.length)) } : undefined;
    return { round: i + 1, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), rps, requests: rps * 10, latencyMs: { p50: 5, p90: 8, p99: 20 / speed, max: 40 }, errors: 0, cpuPerRequestUs: 7777, memoryMiB: 60 * t.processes + (t.viaNginx ? 10 : 0), processes: t.processes, ...(paced ? { paced } : {}) };
  });
}

// A default run's budgets on a 2-core machine: 2 CPUs shared with the generator, 1 CPU of their own.
const BUDGETS = [{ budget: 2, cpuset: 'all' }, { budget: 1, cpuset: 'sut' }];
const REUSEPORT_WHY = 'reuseport skipped: reusePort needs SO_REUSEPORT, which this kernel refused';

function fakeDoc() {
  const p = plan({ full: true, budget: 1, budgets: BUDGETS, processes: 2 });
  const cells = [];
  for (const s of p.scenarios) {
    for (const c of s.cells) {
      const rec = { ...c, cpuLimits: { enforced: true, mechanism: 'cgroup v1 cpu.cfs_quota_us', pinning: { enforced: true, cpus: '1' } } };
      if (c.needsDb && c.topology.sample === 'node-cluster') { cells.push({ ...rec, status: 'skipped', error: 'no database here: mongod not found', rounds: [] }); continue; }
      // A strategy this machine can't run: skipped, said once in the guide.
      if (c.topology.strategy === 'reuseport') { cells.push({ ...rec, status: 'skipped', error: REUSEPORT_WHY, rounds: [] }); continue; }
      // The cluster's open-loop rate is above its closed-loop capacity: flagged, not hidden.
      if (c.kind === 'openloop') { cells.push({ ...rec, status: 'ok', probeRps: 700, maxRate: c.topology.strategy === 'cluster' ? 2000 : 600, bracket: [600, 650], bracketed: true, stepS: 10, steps: [{ rate: 600, sustained: true, latencyMs: { p99: 100 } }, { rate: 650, sustained: false, latencyMs: { p99: 900 } }] }); continue; }
      const rounds = fakeRounds(c, 7);
      const stat = (xs) => ({ median: [...xs].sort((x, y) => x - y)[3], min: Math.min(...xs), max: Math.max(...xs) });
      const paced = rounds[0].paced ? { rate: 500, rounds: 7, held: true, latencyMs: { p50: { median: 2 }, p99: stat(rounds.map((r) => r.paced.latencyMs.p99)) }, cpuPerRequestUs: stat(rounds.map((r) => r.paced.cpuPerRequestUs)), errors: 0 } : undefined;
      const bound = c.id === 'light:express-1-nginx-b1'; // a generator-bound loser: the verdicts on it are kept out
      // The generator's share of the machine: light JSON at 2 CPUs takes more than the limit.
      const generatorShare = c.topology.cpuset === 'all' ? (c.workload === 'light' ? 0.2 : 0.05) : 0.3;
      cells.push({ ...rec, status: 'ok', rounds, windowS: 10, rps: stat(rounds.map((r) => r.rps)), latencyMs: { p50: { median: 5 }, p90: { median: 8 }, p99: { median: rounds[0].latencyMs.p99 }, max: { median: 40 } }, cpuPerRequestUs: { median: 7777 }, memoryMiB: { median: rounds[0].memoryMiB }, ...(paced ? { paced } : {}), errors: 0, generatorBound: bound, ceilingShare: bound ? 0.8 : 0.1, generatorShare });
    }
  }
  return buildResults({
    plan: p, cells, label: 'synthetic', argv: '--full', startedAt: '2026-01-01T00:00:00Z', tool: 'wrk', pacedTool: 'autocannon',
    ceilings: { wrk: { rps: 50000 }, autocannon: { rps: 12000 } },
    isolation: { generatorCpus: '0', sutCpus: '1', budgetCpus: 1, budgets: BUDGETS, generatorThreads: 1, generatorNice: -10, pinned: true, mechanism: 'cgroup cpuset' },
    box: { loadBefore: [0.1, 0.1, 0.1], loadAfter: [2, 1, 0.5], stealPct: 0.4, busy: false, busyWhy: null },
    meta: { machine: { hostname: 'h', os: 'Debian', kernel: '6', arch: 'x64', cpuModel: 'cpu', cores: 2, memoryGiB: 4 }, versions: { node: '24', nginx: '1.22', wrk: '4.1', dotnet: '10' }, git: { commit: 'abc', dirty: false }, cgroup: 'v1' },
    // The spread of one question over three earlier runs: its interval gets at least that wide.
    spread: { mode: 'quick', z: 1.96, runs: ['2025-12-01', '2025-12-02', '2025-12-03'].map((d) => ({ startedAt: `${d}T10:00:00Z`, label: null, commit: null })), questions: { 'pi.b2.cluster.throughput': { n: 3, ratios: [0.9, 1, 1.1], sdLog: 0.1 } } },
  });
}

// The verdict table of one budget in the guide: from its heading to the next blank line.
const tableAt = (guide, budget) => {
  const at = guide.indexOf(`### ${budget} CPU budget`);
  assert.ok(at > 0, `a table for ${budget} CPU`);
  return guide.slice(at).split('\n\n')[1];
};
// The row of one verdict in the guide's list of every verdict.
const rowOf = (guide, id) => guide.split('\n').find((l) => l.includes(`\`${id}\``) && l.startsWith('| <a id='));

test('report, charts and guide from a synthetic run at two budgets: a verdict table per budget, every verdict accounted for', { timeout: 60_000 }, async () => {
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

    // The judgement the tables show, from the figures above.
    const byId = new Map(doc.verdicts.map((v) => [v.id, v]));
    assert.equal(doc.schema, 4);
    assert.deepEqual(doc.protocol.budgets, [2, 1]);
    assert.equal(byId.get('pi.b2.dotnet.throughput').label, 'wins');
    assert.equal(byId.get('pi.b2.dotnet.throughput').winner, 'dotnet-1-nginx-b2');
    assert.equal(byId.get('pi.b2.cluster.throughput').winner, 'express-cluster-2-nginx-b2');
    assert.ok(['equal', 'cant-tell'].includes(byId.get('pi.b1.cluster-control.throughput').label));
    assert.equal(byId.get('light.b2.cluster.memory').winner, 'express-1-nginx-b2');
    assert.equal(byId.get('light.b1.dotnet.throughput').suspect, true, 'the generator-bound baseline loses: kept out');
    assert.equal(byId.get('db.b2.cluster.throughput').measured, false);
    assert.equal(byId.get('light.b2.pm2.throughput').generator.bound, true);
    assert.equal(byId.get('pi.b2.pm2.throughput').generator.bound, false);
    assert.deepEqual(doc.skipped.find((s) => s.strategy === 'reuseport'), { strategy: 'reuseport', why: REUSEPORT_WHY });

    // One verdict table per budget; its columns are the strategies asked at that budget (the skipped
    // one left out), each header naming the strategy and its baseline.
    const t2 = tableAt(guide, 2);
    const t1 = tableAt(guide, 1);
    const head = (t) => t.split('\n')[0].split('|').map((x) => x.trim()).filter(Boolean);
    assert.deepEqual(head(t2), ['workload', 'metric', 'one process (the baseline)',
      'cluster: Express cluster of 2 ÷ Express 1 process', 'PM2: Express PM2 cluster of 2 ÷ Express 1 process',
      'replicas behind nginx: Express 2 replicas ÷ Express 1 process', '.NET: .NET 1 process ÷ Express 1 process',
      '.NET replicas: .NET 2 replicas ÷ .NET 1 process']);
    assert.deepEqual(head(t1), ['workload', 'metric', 'one process (the baseline)',
      'cluster: Express cluster of 1 worker ÷ Express 1 process', 'PM2: Express PM2, 1 process ÷ Express 1 process',
      '.NET: .NET 1 process ÷ Express 1 process', 'node:http: node:http 1 process ÷ Express 1 process',
      'cluster of 2 on 1 CPU (control): Express cluster of 2 ÷ Express 1 process']);
    for (const t of [t1, t2]) {
      for (const w of ['light JSON', 'CPU-bound \\(pi\\)', 'slow I/O \\(50 ms wait\\)', 'database read']) assert.match(t, new RegExp(`^\\| \\*\\*${w}\\*\\* \\| throughput \\|`, 'm'));
      assert.doesNotMatch(t, /reusePort/);
    }
    // Labels: wins, equal, can't tell; never "tie".
    const piRow = (t) => t.split('\n').find((l) => l.startsWith('| **CPU-bound (pi)** | throughput |')).split(' | ');
    assert.match(piRow(t2)[3], /^\*\*Express cluster of 2\*\* wins ×1\.[89]\d \(×\d\.\d\d–×\d\.\d\d\)$/);
    assert.match(piRow(t2)[6], /^\*\*\.NET 1 process\*\* wins ×2\.0\d /);
    assert.match(piRow(t1)[7], /^(equal|can't tell) ×1\.0\d \(/, 'the control at 1 CPU');
    assert.match(guide, /\bequal ×(0\.9\d|1\.0\d) \(/);
    assert.match(guide, /⚠ suspect ×/);
    assert.doesNotMatch(guide, /\btie\b/);
    // CPU per request: the fixed-rate figure only (the saturated one, 7,777 µs, never shows).
    assert.match(t2, /\| CPU per request at 500 req\/s \| 300 µs \(Express 1 process \+ nginx\) \|/);
    for (const text of [guide, report]) assert.doesNotMatch(text, /7,777|7777/);

    // The generator's share beside each 2-CPU verdict, flagged over its limit; none at 1 CPU, where it had a CPU of its own.
    assert.match(rowOf(guide, 'light.b2.pm2.throughput'), /\| 2 \| (equal|can't tell) \| ×\d\.\d\d \| [^|]+ \| 20% ⚠ over its 15% limit \|/);
    assert.match(rowOf(guide, 'pi.b2.pm2.throughput'), /\| 5% \|/);
    assert.doesNotMatch(rowOf(guide, 'pi.b2.pm2.throughput'), /⚠/);
    assert.match(rowOf(guide, 'pi.b1.pm2.throughput'), /\| — \(its own CPU\) \|/);
    // The control says it is one, in the list and in the table.
    assert.match(rowOf(guide, 'pi.b1.cluster-control.throughput'), /control: 2 processes sharing 1 CPU, so at best equal to one process/);
    // Scaling efficiency per strategy: the cluster of 2 at 2 CPUs, 1.9 over 2 × one process.
    assert.match(guide, /\| CPU-bound \(pi\) \| Express cluster of 2 \| 2 \| 1,3\d\d \| 0\.9\d \(0\.\d\d–\d\.\d\d\) \|/);
    assert.match(guide, /\| CPU-bound \(pi\) \| Express cluster of 2 on 1 CPU \(control\) \| 1 \| [\d,]+ \| (0\.\d\d|1\.0\d) /);
    // The skipped strategy: said once, and its verdicts not listed one by one as missing.
    assert.equal(guide.split(REUSEPORT_WHY).length - 1, 1, 'the skipped strategy is explained once');
    assert.doesNotMatch(guide, /PM2\*\* was not run/, 'PM2 ran: only its database cells were skipped');
    assert.doesNotMatch(guide, /`\w+\.b\d\.reuseport\.\w+`/);
    assert.match(guide, /Not measured here, because no MongoDB server could be had/);

    // Where each budget ran: apart from the generator at 1 CPU, sharing the machine with it at 2.
    for (const text of [guide, report]) assert.match(text, /at 1 CPU pinned to CPU 1, apart from the generator; at 2 CPUs on every CPU of the machine, shared with the generator/);
    // Decide: at 1 core a rollout's 2 processes are the control's; at 2+ cores the largest budget.
    const flow = /```mermaid\n([\s\S]*?)```/.exec(guide)[1];
    assert.match(flow, /pi_c1_deploy\["<b>Express cluster of 2 behind nginx[^"]*<\/b><br\/>Express cluster of 2 on 1 CPU \(control\) ÷ Express 1 process: (equal|can't tell) /);
    assert.match(flow, /click pi_c1_deploy "#v-pi-b1-cluster-control-throughput"/);
    assert.doesNotMatch(flow, /_c1_deploy\["<b>[^<]*(1 process|1 worker)[^<]*<\/b>/, 'a rollout never rests on a 1-process strategy');
    assert.match(flow, /pi -->\|"2\+ cores \(measured at 2 CPUs; more cores not measured\)"\| pi_cN\{/);
    assert.match(flow, /click pi_cN_deploy "#v-pi-b2-(cluster|pm2|replicas)-throughput"/);
    // Team runtime at 2 CPUs: .NET (×2.0) against the Node team's best at 2 CPUs (×1.9), not against one Node process.
    assert.match(flow, /pi_cN_runtime\["<b>Node team: (Express cluster of 2|Express PM2 cluster of 2|Express 2 replicas)\. \.NET 1 process ÷ \1 at 2 CPUs: ×1\.0\d[^<]*: (equal|can't tell)<\/b>/);
    assert.match(flow, /light_cN_runtime\["<b>Node team: Express 1 process\. Runtime: \.NET 1 process is faster<\/b>[^"]*⚠ generator over its share"\]/);

    // Intervals at least as wide as the spread over repeated runs, and the report says so.
    const spreadQ = byId.get('pi.b2.cluster.throughput');
    assert.equal(spreadQ.betweenRuns, Number((Math.exp(0.196) - 1).toFixed(3)));
    assert.ok(spreadQ.ci95[1] / spreadQ.ratio >= Math.exp(0.196) - 1e-3, `ci ${spreadQ.ci95}`);
    assert.match(report, /spread over 3 default runs on this machine \(2025-12-01, 2025-12-02, 2025-12-03\)/);
    assert.match(report, /\*\*2 CPU budget\*\*/);
    assert.match(report, /\*\*1 CPU budget\*\*/);
    assert.match(report, /### Every verdict/);
    assert.match(report, /`pi\.b2\.dotnet\.throughput` \| ×(1\.9\d\d|2\.0\d\d) \|/);
    assert.match(report, /Open loop|openloop/);
    assert.match(report, /2,000 ⚠ sustained 2000 req\/s, ×1\.\d+ of its closed-loop capacity/);
    assert.equal(doc.cells.filter((c) => c.kind === 'openloop' && c.suspect).length, 1, 'only the cluster\'s open-loop rate is suspect');
    const svgs = readdirSync(out).filter((f) => f.endsWith('.svg'));
    for (const f of ['verdicts.svg', 'throughput.svg', 'p99.svg', 'cpu-per-request.svg', 'memory.svg', 'openloop.svg']) {
      assert.ok(svgs.includes(f), `${f} drawn`);
      assert.match(readFileSync(path.join(out, f), 'utf8'), /^<svg [\s\S]*<\/svg>\s*$/);
      assert.ok(report.includes(`](${f})`), `report links ${f}`);
    }
    // The CPU chart draws the fixed-rate figures (a few hundred µs), not the saturated 7,777.
    assert.doesNotMatch(readFileSync(path.join(out, 'cpu-per-request.svg'), 'utf8'), /7,?777/);
    assert.match(readFileSync(path.join(out, 'verdicts.svg'), 'utf8'), /\(control\)/);
    // Machine-readable verdicts: one entry per question, the fields a script compares runs with.
    for (const v of doc.verdicts) {
      assert.deepEqual(['id', 'question', 'label', 'winner', 'ratio', 'ci95', 'suspect', 'budget'].filter((k) => !(k in v)), [], v.id);
    }
  } finally {
    if (process.env.KEEP_REPORT) console.log("kept", out); else rmSync(out, { recursive: true, force: true });
  }
});

test('the report, charts and guide import nothing from the plan: results.json is all they read', () => {
  for (const f of readdirSync(REPORT_DIR).filter((x) => x.endsWith('.js'))) {
    const imports = [...readFileSync(path.join(REPORT_DIR, f), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    // stats.js is pure functions over numbers (the one median); nothing else outside report/.
    for (const i of imports) assert.ok(!i.startsWith('../') || i === '../stats.js' || i.startsWith('../../../node_modules'), `${f} imports ${i}`);
  }
});
