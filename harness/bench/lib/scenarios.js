// The scenario matrix and the five published experiments, as lists of cells.
// A cell = one measurement on one topology. Cells of a scenario that share a topology run on
// one start of it, in order.

export const MODES = {
  // Quick default: <= 5 minutes on a 2-core machine.
  quick: { durationS: 1, warmupS: 1, repeats: 2, expDurationS: 2, expRepeats: 1, stepS: 1, maxSteps: 3, faultS: 5, everyS: 2, faultRate: 200, ceilingS: 2, n: 2 },
  full: { durationS: 10, warmupS: 3, repeats: 3, expDurationS: 10, expRepeats: 3, stepS: 5, maxSteps: 7, faultS: 30, everyS: 5, faultRate: 400, ceilingS: 5, n: 2 },
};

import os from 'node:os';

const cpuLabel = (cpus) => (cpus ? ` × ${cpus} CPU` : '');
// "No quota": a quota of every core is no limit on this machine (the runner accepts CPUS up to
// the core count, and the samples' own default is a quota, so CPUS is always passed).
export const ALL_CPUS = os.availableParallelism();
const withCpus = (env, cpus) => ({ ...env, CPUS: String(cpus ?? ALL_CPUS) });

export const T = {
  node1: (cpus) => ({ family: 'node-process', label: `1 Node process${cpuLabel(cpus)}`, sample: 'node-replicas', direct: true, env: withCpus({ REPLICAS: '1' }, cpus) }),
  nodeCluster: (n, cpus) => ({ family: 'node-cluster', label: `Node cluster of ${n}${cpus ? ` (${cpus} CPU total)` : ''}`, sample: 'node-cluster', direct: true, env: withCpus({ WORKERS: String(n) }, cpus) }),
  nodeUnclustered: (cpus) => ({ family: 'express-process', label: `Express, 1 process${cpuLabel(cpus)}`, sample: 'node-cluster', direct: true, env: withCpus({ CLUSTERING_ENABLED: 'false' }, cpus) }),
  nodeReplicas: (n, cpus, extra = {}) => ({ family: 'node-replicas', label: `${n} Node replica${n > 1 ? 's' : ''}${cpuLabel(cpus)} + nginx${extra.LB ? ` (${extra.LB})` : ''}${extra.DELAY_MS ? ` fixed ${extra.DELAY_MS} ms` : ''}${extra.DELAY_RANDOM_MAX_MS ? ` random 0-${extra.DELAY_RANDOM_MAX_MS} ms` : ''}`, sample: 'node-replicas', env: withCpus({ REPLICAS: String(n), ...extra }, cpus) }),
  dotnet1: (cpus) => ({ family: 'dotnet-process', label: `1 .NET process${cpuLabel(cpus)}`, sample: 'dotnet-api', direct: true, env: withCpus({ REPLICAS: '1' }, cpus) }),
  dotnetReplicas: (n, cpus) => ({ family: 'dotnet-replicas', label: `${n} .NET replica${n > 1 ? 's' : ''}${cpuLabel(cpus)} + nginx`, sample: 'dotnet-api', env: withCpus({ REPLICAS: String(n) }, cpus) }),
};

const CONNECTIONS = { light: 64, pi: 32, delay: 256, db: 64 };
const WORKLOADS_OF = {
  'node-replicas': ['light', 'pi', 'delay'],
  'node-cluster': ['light', 'pi', 'delay', 'db'],
  'dotnet-api': ['light', 'pi', 'delay', 'db'],
};

function matrix(m, full) {
  const n = m.n;
  // Each scaled topology has its single-process baseline from the same app: node:http for the
  // replicas, Express with clustering off for the cluster, one Kestrel process for .NET.
  const topologies = [T.node1(), T.nodeReplicas(n), T.nodeUnclustered(), T.nodeCluster(n), T.dotnet1(), T.dotnetReplicas(n)];
  if (full) topologies.push(T.nodeReplicas(1), T.nodeCluster(4), T.nodeReplicas(4), T.dotnetReplicas(4));
  return topologies.flatMap((t) => WORKLOADS_OF[t.sample].map((workload) => ({
    kind: 'closed', topology: t, workload, connections: CONNECTIONS[workload],
    // node-cluster's database is MongoDB, which may not run on this machine: then the cell is skipped.
    optional: workload === 'db' && t.sample === 'node-cluster',
  })));
}

// The same total CPU quota (1 CPU) split different ways, on the CPU-bound workload.
function cpuBudget(m, full) {
  const splits = full ? [[1, 1], [2, 0.5], [4, 0.25]] : [[1, 1], [2, 0.5]];
  const cells = [];
  const workloads = full ? ['pi', 'light'] : ['pi'];
  for (const workload of workloads) {
    for (const [n, cpus] of splits) {
      cells.push({ kind: 'closed', topology: T.nodeReplicas(n, cpus), workload, connections: CONNECTIONS[workload], tags: { split: `${n}×${cpus}`, totalCpus: 1 } });
      if (full) cells.push({ kind: 'closed', topology: T.nodeCluster(n, 1), workload, connections: CONNECTIONS[workload], tags: { split: `${n} workers in 1`, totalCpus: 1 } });
      // .NET is left out of the quick run: each .NET start costs a `dotnet publish` (README, "Time budget").
      if (full) cells.push({ kind: 'closed', topology: T.dotnetReplicas(n, cpus), workload, connections: CONNECTIONS[workload], tags: { split: `${n}×${cpus}`, totalCpus: 1 } });
    }
  }
  return cells;
}

// 2025: 10 replicas with random per-replica delays, least_conn, 500 connections for 5 s.
function expComposeReplicas(m) {
  const random = { DELAY_RANDOM_MAX_MS: '200' };
  const fixed = { DELAY_MS: '100' };
  const c = (t, variant) => ({ kind: 'closed', topology: t, workload: 'light', connections: 500, durationS: Math.min(5, m.expDurationS), repeats: m.expRepeats, tags: { variant } });
  return [
    c(T.nodeReplicas(1, undefined, { ...random, LB: 'least_conn' }), '1 replica, random delay'),
    c(T.nodeReplicas(10, undefined, { ...random, LB: 'least_conn' }), '10 replicas, random delays, least_conn'),
    c(T.nodeReplicas(10, undefined, { ...random, LB: 'round_robin' }), '10 replicas, random delays, round-robin'),
    c(T.nodeReplicas(1, undefined, { ...fixed, LB: 'least_conn' }), '1 replica, fixed delay'),
    c(T.nodeReplicas(10, undefined, { ...fixed, LB: 'least_conn' }), '10 replicas, fixed delay, least_conn'),
  ];
}

// 2021: cpus 0.1 x 1 or 4 instances; cpus 0.4 x 4 workers or x 1 worker; 10 connections, 10 s.
function expClusterVsContainers(m, full) {
  const c = (t, variant) => ({ kind: 'closed', topology: t, workload: 'light', connections: 10, durationS: m.expDurationS, repeats: m.expRepeats, tags: { variant } });
  return [
    c(T.nodeReplicas(1, 0.1), 'cpus 0.1 × 1 instance'),
    c(T.nodeReplicas(4, 0.1), 'cpus 0.1 × 4 instances'),
    c(T.nodeCluster(4, 0.4), 'cpus 0.4, 4 workers'),
    c(T.nodeCluster(1, 0.4), 'cpus 0.4, 1 worker'),
  ];
}

// "Introduction to Load Balancing Using Node.js": 10 users x 5 requests on the pi server,
// 3 instances round-robin vs 1, then one of the 3 killed.
function expPiLoadBalancing() {
  const c = (t, variant, extra = {}) => ({ kind: 'count', topology: t, workload: 'pi', pathOverride: '/pi?samples=2000000', connections: 10, amount: 50, tags: { variant }, ...extra });
  return [
    c(T.nodeReplicas(1, undefined, { LB: 'round_robin' }), '1 instance'),
    c(T.nodeReplicas(3, undefined, { LB: 'round_robin' }), '3 instances, round-robin'),
    c(T.nodeReplicas(3, undefined, { LB: 'round_robin' }), '3 instances, one killed', { before: { kill: 3 } }),
  ];
}

// node-scale (Express + MongoDB, cluster module): fixed-rate load against a 500 ms requirement.
function expNodeScale(m) {
  const c = (t, variant, workload) => ({ kind: 'openloop', topology: t, workload, connections: 32, tags: { variant }, optional: workload === 'db' });
  const cells = [];
  for (const workload of ['db', 'pi']) {
    cells.push(c(T.nodeUnclustered(), '1 process', workload));
    cells.push(c(T.nodeCluster(m.n), `cluster of ${m.n}`, workload));
  }
  return cells;
}

// "Escalando uma aplicação com Nginx e Docker Container": ASP.NET 1 vs 4 replicas, /api and
// /products at 100 and 400 connections.
function expAspnetNginx(m) {
  const cells = [];
  for (const t of [T.dotnetReplicas(1), T.dotnetReplicas(4)]) {
    for (const workload of ['light', 'db']) {
      for (const connections of [100, 400]) {
        cells.push({ kind: 'closed', topology: t, workload, connections, durationS: m.durationS, repeats: m.expRepeats, tags: { variant: `${t.label}, ${workload === 'light' ? '/api' : '/products'}, ${connections} conns` } });
      }
    }
  }
  return cells;
}

function openloop(m, full) {
  const n = m.n;
  const topologies = [T.node1(), T.nodeCluster(n), T.nodeReplicas(n), T.dotnet1()];
  if (full) topologies.push(T.dotnetReplicas(n));
  return topologies.map((t) => ({ kind: 'openloop', topology: t, workload: 'pi', connections: 32 }));
}

function faultDrill(m, full) {
  const n = m.n;
  const cells = [
    { kind: 'fault', topology: T.nodeReplicas(n), workload: 'delay', how: 'instance' },
    { kind: 'fault', topology: T.nodeCluster(n), workload: 'delay', how: 'worker' },
    { kind: 'fault', topology: T.dotnet1(), workload: 'delay', how: 'instance' },
  ];
  if (full) cells.push({ kind: 'fault', topology: T.dotnetReplicas(n), workload: 'delay', how: 'instance' });
  return cells;
}

// The performance targets the sample issues set, each a ratio of two cells measured in this run.
// Quotas leave a core for the load generator and nginx, so a ratio measures the app, not the box.
export const TARGETS = [
  { id: 'proxy-overhead', what: 'light JSON through nginx vs the same app direct (app at 1 CPU)', min: 0.75,
    a: T.nodeReplicas(1, 1), b: T.node1(1), workload: 'light' },
  { id: 'proxy-overhead-unlimited', what: 'light JSON through nginx vs the same app direct (no quota; nginx, app and wrk share the cores)', min: 0.75,
    a: T.nodeReplicas(1), b: T.node1(), workload: 'light', fullOnly: true },
  { id: 'replicas-pi-scaling', what: '/pi: 2 replicas × 0.5 CPU vs 1 replica × 0.5 CPU, per replica', min: 0.95, per: 2,
    a: T.nodeReplicas(2, 0.5), b: T.nodeReplicas(1, 0.5), workload: 'pi' },
  { id: 'cluster-pi-scaling', what: '/pi: cluster of 2 workers in 1 CPU vs 1 worker in 0.5 CPU, per worker', min: 0.95, per: 2,
    a: T.nodeCluster(2, 1), b: T.nodeCluster(1, 0.5), workload: 'pi' },
  { id: 'kestrel-vs-node', what: 'light JSON: one Kestrel process vs one Node process (no quota)', min: 1.3,
    a: T.dotnet1(), b: T.node1(), workload: 'light' },
  { id: 'dotnet-one-vs-4-api', what: '/api: 1 .NET instance × 1 CPU vs 4 replicas × 0.25 CPU, both behind nginx', min: 1,
    a: T.dotnetReplicas(1, 1), b: T.dotnetReplicas(4, 0.25), workload: 'light' },
  { id: 'dotnet-one-vs-4-products', what: '/products: 1 .NET instance × 1 CPU vs 4 replicas × 0.25 CPU, both behind nginx', min: 1,
    a: T.dotnetReplicas(1, 1), b: T.dotnetReplicas(4, 0.25), workload: 'db' },
];

function targets(m, full) {
  const seen = new Set();
  const cells = [];
  for (const t of TARGETS.filter((x) => full || !x.fullOnly)) {
    for (const topology of [t.a, t.b]) {
      const key = `${topology.label}|${t.workload}`;
      if (seen.has(key)) continue;
      seen.add(key);
      cells.push({ kind: 'closed', topology, workload: t.workload, connections: CONNECTIONS[t.workload], tags: { target: t.id } });
    }
  }
  // Memory of one .NET process vs a Node cluster of 2 (read after a light-JSON run).
  cells.push({ kind: 'closed', topology: T.nodeCluster(m.n), workload: 'light', connections: CONNECTIONS.light, tags: { target: 'memory' } });
  return cells;
}

export const SCENARIOS = {
  targets: { title: 'The samples\' performance targets, as ratios measured in this run', build: targets },
  matrix: { title: 'Workloads × topologies (no CPU quota)', build: matrix },
  'cpu-budget': { title: 'One CPU of quota, split different ways', build: cpuBudget },
  'exp-compose-replicas': { title: '"Boosting API Performance with Docker Compose Replicas" (2025)', build: expComposeReplicas, experiment: true },
  'exp-cluster-vs-containers': { title: '"Node Clustering vs Container Load Balancing" (2021)', build: expClusterVsContainers, experiment: true },
  'exp-pi-loadbalancing': { title: '"Introduction to Load Balancing Using Node.js"', build: expPiLoadBalancing, experiment: true },
  'exp-node-scale': { title: 'Express + MongoDB with the cluster module (node-scale)', build: expNodeScale, experiment: true },
  'exp-aspnet-nginx': { title: '"Escalando uma aplicação com Nginx e Docker Container"', build: expAspnetNginx, experiment: true },
  openloop: { title: 'Highest fixed rate with p99 < 500 ms (CPU-bound pi)', build: openloop },
  'fault-drill': { title: 'Fault drill: kill an instance or worker every few seconds', build: faultDrill },
};

/** Cells for the chosen scenarios, filtered by sample, each with its scenario name and an id. */
export function plan({ full = false, scenario, sample } = {}) {
  const mode = full ? MODES.full : MODES.quick;
  const names = scenario ? [scenario] : Object.keys(SCENARIOS);
  for (const name of names) {
    if (!SCENARIOS[name]) throw new Error(`unknown scenario "${name}" (one of: ${Object.keys(SCENARIOS).join(', ')})`);
  }
  let cells = names.flatMap((name) => SCENARIOS[name].build(mode, full).map((c) => ({ scenario: name, ...c })));
  // A target reads its numbers from any scenario of the run: measure only what no other cell measures.
  const key = (c) => `${c.topology.label}|${c.workload}|${c.kind}`;
  const elsewhere = new Set(cells.filter((c) => c.scenario !== 'targets').map(key));
  cells = cells.filter((c) => c.scenario !== 'targets' || !elsewhere.has(key(c)));
  const kept = sample ? cells.filter((c) => c.topology.sample === sample) : cells;
  if (kept.length === 0) throw new Error(`nothing to run for ${sample ? `sample "${sample}"` : ''}${scenario ? ` scenario "${scenario}"` : ''}`);
  return { mode: full ? 'full' : 'quick', params: mode, cells: kept.map((c, i) => ({ id: i + 1, ...c })) };
}
