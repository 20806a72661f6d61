// "Node Clustering vs Container Load Balancing" (2021): autocannon, 10 connections, 10 s, through
// nginx; 0.1 CPU × 1 or × 4 containers vs 0.4 CPU with 4 cluster workers or 1; mem_limit 128m.
import { topology } from '../topologies/topology.js';
import { cell, compare, sampleWithBoth } from './cells.js';

const NAME = 'exp-cluster-vs-containers';

export const experiment = {
  id: NAME,
  title: 'Node Clustering vs Container Load Balancing',
  source: 'a benchmark write-up of 2021 (GitHub README)',
  claim: 'Four containers of 0.1 CPU beat one container of 0.4 CPU running four cluster workers, '
    + 'and one worker in that 0.4-CPU container beats four.',
  explanation: 'CFS quotas: four workers in a 0.4-CPU container burn the quota in parallel bursts and are then '
    + 'throttled for the rest of each 100 ms period; one worker spends the same quota without bursts.',
  original: {
    tool: 'autocannon',
    command: 'npx autocannon http://localhost:3000 (defaults: 10 connections, 10 s)',
    connections: 10,
    durationS: 10,
    route: 'GET / of a plain Node http server',
    proxy: 'nginx in front of every variant',
    cpuQuotas: 'cpus 0.1 per container (× 1 or × 4), or 0.4 (4 workers or 1)',
    memLimit: '128m',
    machine: 'AMD Ryzen 5 3600 (6 cores, 12 threads), Docker on WSL2',
  },
  published: [
    { cell: `${NAME}:cpus-0.1-x1`, metric: 'rps', value: 240.5, p99Ms: 185 },
    { cell: `${NAME}:cpus-0.1-x4`, metric: 'rps', value: 716.3, p99Ms: 94 },
    { cell: `${NAME}:cpus-0.4-4-workers`, metric: 'rps', value: 515.71, p99Ms: 94 },
    { cell: `${NAME}:cpus-0.4-1-worker`, metric: 'rps', value: 1492.91, p99Ms: 68 },
  ],
  publishedRatios: [
    { comparison: `${NAME}.containers-vs-cluster`, value: 716.3 / 515.71 },
    { comparison: `${NAME}.one-worker-vs-four`, value: 1492.91 / 515.71 },
    { comparison: `${NAME}.scale-out`, value: 716.3 / 240.5 },
  ],
  show: ['throttling'],
};

const deviations = (mode, windowS, rounds) => [
  {
    what: 'duration',
    original: '10 s',
    ours: `${windowS} s × ${rounds} interleaved rounds`,
    why: mode === 'full'
      ? 'the same 10 s, repeated for an interval'
      : 'the default run is shorter; make bench FULL=1 runs 10 s windows',
  },
  {
    what: 'app',
    original: 'a plain Node http server',
    ours: 'the Express app, the one here with both a cluster and replicas',
    why: 'one app for all four variants, as in the article; Express costs more CPU per request, '
      + 'so absolute rates are lower',
  },
  {
    what: 'CPUs',
    original: '12 hardware threads: the four workers could run on four cores at once',
    ours: 'one CPU for every variant (the other runs the load generator)',
    why: 'this machine has two; four workers here take turns on one core instead of bursting in parallel',
  },
];

export function build({ mode, params, apps }) {
  const sample = sampleWithBoth(apps);
  const rounds = params.experimentRounds;
  const windowS = mode === 'full' ? 10 : 5;
  const common = { workload: 'light', tool: 'autocannon', connections: 10, windowS, rounds };
  // One cell: its key is also its topology's id.
  const c = (key, strategy, n, cpus, label) =>
    cell(NAME, key, topology({ sample, strategy, n, cpus, viaNginx: true, env: { MEMORY: '128M' }, id: key, label }),
      common);
  const x1 = c('cpus-0.1-x1', 'one process', 1, 0.1, '1 container × 0.1 CPU, 1 process');
  const x4 = c('cpus-0.1-x4', 'replicas', 4, 0.1, '4 containers × 0.1 CPU, 1 process each');
  const w4 = c('cpus-0.4-4-workers', 'cluster', 4, 0.4, '1 container × 0.4 CPU, 4 cluster workers');
  const w1 = c('cpus-0.4-1-worker', 'one process', 1, 0.4, '1 container × 0.4 CPU, 1 process');
  return {
    cells: [x1, x4, w4, w1],
    comparisons: [
      compare(`${NAME}.containers-vs-cluster`,
        '4 containers × 0.1 CPU vs 4 workers in one 0.4-CPU container (the headline)', x4, w4),
      compare(`${NAME}.one-worker-vs-four`, '1 process vs 4 workers, both in one 0.4-CPU container', w1, w4),
      compare(`${NAME}.scale-out`, '4 containers × 0.1 CPU vs 1 container × 0.1 CPU', x4, x1),
      compare(`${NAME}.one-worker-vs-four-p99`, 'p99: 1 process vs 4 workers in 0.4 CPU', w1, w4, 'p99'),
    ],
    deviations: deviations(mode, windowS, rounds),
  };
}
