// docs/decision-guide.md: "When clustering, replicas or thread pools win", written from the results.
// The prose is fixed; every number (and which option "wins") is read from the run.
import { T } from '../scenarios.js';
import { fmt, ratio } from './format.js';
import { passiveCheck } from './proxy-settings.js';
import { checkTargets, memoryRows } from './targets.js';

const ok = (r) => r && r.status === 'ok';

function finder(results) {
  const find = (scenario, label, workload, kind) => results.find((r) => r.scenario === scenario && r.topology.label === label
    && (!workload || r.workload === workload) && (!kind || r.kind === kind) && ok(r)) ?? null;
  return { find, rps: (...a) => find(...a)?.rps ?? null };
}

function bestOf(entries) {
  const valid = entries.filter((e) => Number.isFinite(e.value));
  return valid.length ? valid.reduce((a, b) => (b.value > a.value ? b : a)) : null;
}

// Each scaled topology against the single process of the same app.
function pairs(n) {
  return [
    { scaled: T.nodeCluster(n), base: T.nodeUnclustered() },
    { scaled: T.nodeReplicas(n), base: T.node1() },
    { scaled: T.dotnetReplicas(n), base: T.dotnet1() },
  ];
}

function workloadLine(f, n, workload, what) {
  const tops = [T.node1(), T.nodeReplicas(n), T.nodeUnclustered(), T.nodeCluster(n), T.dotnet1(), T.dotnetReplicas(n)];
  const entries = tops.map((t) => ({ t, value: f.rps('matrix', t.label, workload, 'closed'), r: f.find('matrix', t.label, workload, 'closed') }))
    .filter((e) => e.value !== null);
  if (entries.length === 0) return `- **${what}**: not measured in this run.`;
  const best = bestOf(entries);
  const baseOf = (t) => pairs(n).find((p) => p.scaled.label === t.label)?.base;
  const parts = entries.map((e) => {
    const base = baseOf(e.t);
    const bv = base ? f.rps('matrix', base.label, workload, 'closed') : null;
    return `${e.t.label} ${fmt(e.value)} req/s (p99 ${fmt(e.r.latencyMs.p99, 0)} ms${bv ? `, ×${fmt(ratio(e.value, bv), 2)} its single process` : ''}${e.r.generatorBound ? ', generator-bound' : ''})`;
  });
  return `- **${what}** — most req/s here: **${best.t.label}**. ${parts.join('; ')}.`;
}

export function renderGuide(doc, { reportLink = 'results/report.md', resultsLink = 'results/results.json' } = {}) {
  const { results } = doc;
  const n = doc.params.n ?? 2;
  const f = finder(results);
  const lines = [];
  const p = (...l) => lines.push(...l);
  const cores = doc.meta.machine.cores;
  const lim = doc.meta.cpuLimits;

  p('# When clustering, replicas or thread pools win', '');
  p(`> Written by \`make bench\` from [${resultsLink}](${resultsLink}) — **${doc.label}**, ${doc.startedAt}, ${doc.meta.machine.cores} cores (${doc.meta.machine.cpuModel}). `
    + 'Every number below comes from that run; run `make bench` on your machine and this page is rewritten with yours. The full tables and charts: '
    + `[${reportLink}](${reportLink}).`, '');
  p('The question: one host, the API is saturated. Node\'s `cluster` module (one container, N worker processes sharing a port), '
    + 'N container replicas behind nginx, or a runtime that already uses every core through a thread pool (ASP.NET Core)?', '');

  p('## What this machine measured', '');
  p(`Closed loop, median of repeats, no CPU quota (${n} = the core count for clusters and replicas):`, '');
  p(workloadLine(f, n, 'pi', 'CPU-bound work (pi)'));
  p(workloadLine(f, n, 'light', 'Light JSON'));
  p(workloadLine(f, n, 'delay', 'Slow I/O (a 50 ms wait per request)'));
  p(workloadLine(f, n, 'db', 'Database read'));
  p('');

  // Same CPU budget split different ways.
  const split = [[1, 1], [2, 0.5], [4, 0.25]];
  const budgetLine = (family, mk) => {
    const vals = split.map(([k, c]) => ({ k, c, v: f.rps('cpu-budget', mk(k, c).label, 'pi', 'closed') })).filter((x) => x.v !== null);
    if (vals.length < 2) return null;
    return `${family}: ${vals.map((x) => `${mk(x.k, x.c).label} ${fmt(x.v)} req/s`).join(', ')}`;
  };
  const budget = [
    budgetLine('Node replicas', (k, c) => T.nodeReplicas(k, c)),
    budgetLine('Node cluster', (k) => T.nodeCluster(k, 1)),
    budgetLine('.NET replicas', (k, c) => T.dotnetReplicas(k, c)),
  ].filter(Boolean);
  if (budget.length) {
    p('**One CPU of quota, split different ways** (pi):', '', ...budget.map((b) => `- ${b}`), '');
    const gains = [[T.nodeReplicas(1, 1), T.nodeReplicas(2, 0.5)], [T.dotnetReplicas(1, 1), T.dotnetReplicas(2, 0.5)]]
      .map(([a, b]) => ratio(f.rps('cpu-budget', b.label, 'pi', 'closed'), f.rps('cpu-budget', a.label, 'pi', 'closed'))).filter((g) => g !== null);
    const maxGain = gains.length ? Math.max(...gains) : null;
    if (maxGain !== null) {
      p(maxGain <= 1.1
        ? `Splitting a quota does not create CPU: two halves gave at most ×${fmt(maxGain, 2)} one whole, and they pay for the extra process and the proxy hop.`
        : `Two halves of the quota beat one whole here (×${fmt(maxGain, 2)}); with short runs on a busy machine, check the spread in the report before trusting it.`, '');
    }
  }

  const open = results.filter((r) => r.scenario === 'openloop' && ok(r));
  if (open.length) {
    p('**The service-level question** — the highest fixed rate each topology sustains with p99 under 500 ms (pi):', '');
    p(...open.map((r) => `- ${r.topology.label}: ${fmt(r.maxRate)} req/s${r.bracketed ? '' : ' (every step passed: the real limit is higher)'}${r.generatorBound ? ' (generator-bound)' : ''}`), '');
  }

  const fault = results.filter((r) => r.scenario === 'fault-drill' && ok(r));
  if (fault.length) {
    p(`**When something dies** — a fixed ${fault[0].rate} req/s for ${fault[0].durationS} s while an instance or worker is SIGKILLed every ${fault[0].everyS} s:`, '');
    p(...fault.map((r) => `- ${r.topology.label}: ${fmt(r.failed)} of ${fmt(r.requests)} requests failed (${fmt(r.failedPct, 2)}%) over ${r.kills.filter((k) => !k.error).length} kill(s)`), '');
  }

  p('## How to choose', '');
  const pi1 = f.rps('matrix', T.node1().label, 'pi', 'closed');
  const piE = f.rps('matrix', T.nodeUnclustered().label, 'pi', 'closed');
  const piC = f.rps('matrix', T.nodeCluster(n).label, 'pi', 'closed');
  const piR = f.rps('matrix', T.nodeReplicas(n).label, 'pi', 'closed');
  const delay1 = f.rps('matrix', T.node1().label, 'delay', 'closed');
  const delayR = f.rps('matrix', T.nodeReplicas(n).label, 'delay', 'closed');
  const dn1 = f.rps('matrix', T.dotnet1().label, 'pi', 'closed');
  const dnR = f.rps('matrix', T.dotnetReplicas(n).label, 'pi', 'closed');
  p(`1. **Is the bottleneck CPU in your own code?** One Node process uses one core. Here a cluster of ${n} gave ×${fmt(ratio(piC, piE), 2)} its single Express process and ${n} replicas behind nginx ×${fmt(ratio(piR, pi1), 2)} one node:http process on pi. `
    + (piC !== null && piR !== null ? `Between the two, ${piC >= piR ? `the cluster (no proxy hop) served more: ${fmt(piC)} vs ${fmt(piR)} req/s` : `the replicas behind nginx served more: ${fmt(piR)} vs ${fmt(piC)} req/s`} — different apps (Express vs node:http), so compare each with its own single process first.` : ''));
  const waitGain = ratio(delayR, delay1);
  p(`2. **Is it waiting (I/O, downstream calls)?** One Node process served ${fmt(delay1)} req/s of 50 ms waits at 256 connections; ${n} replicas ×${fmt(waitGain, 2)}. `
    + (waitGain === null ? '' : waitGain < 1.3
      ? 'Waiting costs no CPU, so one process is rarely the limit: scale the thing you wait on instead.'
      : 'The wait itself costs no CPU, but at this concurrency the HTTP work around it (parsing, JSON, sockets) kept one event loop busy, so more processes helped.'));
  const dnGain = ratio(dnR, dn1);
  p(`3. **Is it ASP.NET Core?** One process already runs requests on every core through its thread pool: ${n} replicas gave ×${fmt(dnGain, 2)} one process on pi (${fmt(dnR)} vs ${fmt(dn1)} req/s). `
    + (dnGain === null ? '' : dnGain < 1.1 ? 'Replicas on one host buy isolation and rolling restarts, not throughput — unless one process is capped by a CPU quota.' : 'Here replicas did add throughput; check the spread and the CPU-budget runs before relying on it.'));
  if (fault.length) {
    const ranked = [...fault].sort((x, y) => x.failedPct - y.failedPct);
    const why = ranked.map((r) => {
      if (r.failed === 0) return `${r.topology.label}: no failed request`;
      const kind = r.non2xx >= r.socketErrors ? `mostly HTTP errors (${fmt(r.non2xx)} non-2xx)` : `mostly connection errors (${fmt(r.socketErrors)})`;
      return `${r.topology.label}: ${kind}`;
    });
    p(`4. **Must a crash cost no errors?** In the drill, ${ranked.map((r) => `${r.topology.label} lost ${fmt(r.failedPct, 2)}%`).join(', ')} of requests — ${why.join('; ')}. `
      + 'A cluster loses the requests in flight on the killed worker; a single process refuses connections until it is back; nginx retries a failed GET on another instance, '
      + `but after max_fails failures it keeps an instance out for fail_timeout (${passiveCheck().failTimeout} in proxy/), so killing one replica while the other is still marked down leaves no live upstream (502).`);
  } else {
    p('4. **Must a crash cost no errors?** The fault drill did not run here; run `make bench SCENARIO=fault-drill`.');
  }
  const w1 = f.rps('exp-cluster-vs-containers', T.nodeCluster(1, 0.4).label, 'light', 'closed');
  const w4 = f.rps('exp-cluster-vs-containers', T.nodeCluster(4, 0.4).label, 'light', 'closed');
  if (w1 !== null && w4 !== null) {
    p(`5. **Containers with CPU limits?** Size workers from the quota, not \`os.cpus()\`: inside a 0.4-CPU quota 4 workers gave ${fmt(w4)} req/s and 1 worker ${fmt(w1)} req/s (×${fmt(ratio(w4, w1), 2)}).`);
  } else {
    p('5. **Containers with CPU limits?** Size workers from the quota, not `os.cpus()` (run `make bench SCENARIO=exp-cluster-vs-containers` to see the effect here).');
  }
  p('');

  const checks = checkTargets(results).filter((c) => c.value !== null);
  if (checks.length) {
    p('## The samples\' targets, checked in this run', '');
    for (const c of checks) p(`- ${c.what}: ×${fmt(c.value, 2)} (wanted ≥ ×${fmt(c.min, 2)}) — ${c.met ? 'met' : 'not met'}${c.generatorBound ? ', generator-bound' : ''}.`);
    const mem = memoryRows(results);
    if (mem.length) p(`- Resident memory after a light-JSON run: ${mem.map((m) => `${m.label} ${fmt(m.rssMiB)} MiB in ${m.processes} process${m.processes > 1 ? 'es' : ''}`).join('; ')}.`);
    p('');
  }

  p('## Caveats of this run', '');
  p(`- ${cores} cores, and the load generator runs on them too: absolute numbers are low and differences between topologies are smaller than on a bigger host.`);
  p(`- CPU quotas: ${lim ? (lim.enforced ? `enforced (${lim.mechanism}).` : `NOT enforced (${lim.reason ?? 'unknown'}); the CPU-budget comparisons are not meaningful.`) : 'unknown.'}`);
  const gb = results.filter((r) => ok(r) && r.generatorBound);
  p(`- Generator-bound results (above 70% of the ${doc.tool} ceiling of ${fmt(doc.ceilings?.[doc.tool]?.rps)} req/s): ${gb.length ? gb.map((r) => `${r.topology.label} / ${r.workload}`).join('; ') : 'none'}.`);
  const bad = results.filter((r) => !ok(r));
  p(`- Not measured: ${bad.length ? bad.map((r) => `${r.scenario} / ${r.topology.label} / ${r.workload} (${r.status})`).join('; ') : 'nothing — every cell ran'}.`);
  p(`- Mode: ${doc.mode} (${doc.params.durationS} s runs, ${doc.params.repeats} repeats).${doc.mode === 'quick' ? ' `make bench FULL=1` runs longer and adds more topologies.' : ''}`, '');
  return lines.join('\n');
}
