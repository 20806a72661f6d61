// The Express + MongoDB cluster-module article (repository node-scale): `loadtest -n 1000000
// --rps 10000` against `/`, the welcome route (no database), without keep-alive ("Agent: none");
// one process: 1853 effective rps, 43,446 errors, p99 1450 ms; the cluster: no error, p99 < 200 ms.
import { topology } from '../topologies/topology.js';
import { cell, sampleWithBoth } from './cells.js';

const NAME = 'exp-node-scale';

export const experiment = {
  id: NAME,
  title: 'Scaling an Express + MongoDB API with the cluster module',
  source: 'a blog post and its repository node-scale',
  claim: 'The cluster module turns 43,446 errors and a 1.45 s p99 into 100% success with p99 under 200 ms.',
  explanation: 'One process runs on one core; the cluster uses all six.',
  requirement: 'every response within 500 ms',
  original: {
    tool: 'loadtest',
    command: 'loadtest -n 1000000 --rps 10000 http://localhost:8000',
    requests: 1_000_000,
    rate: 10_000,
    keepAlive: false,
    agent: 'none',
    concurrency: 'loadtest\'s default 10 clients (it reported 3805 concurrent clients)',
    route: 'GET / (the welcome route; the load never touched MongoDB)',
    machine: '6 cores, generator on the same machine',
    cluster: 'os.cpus().length workers (6)',
  },
  published: [
    {
      cell: `${NAME}:1-process-no-keepalive`, effectiveRps: 1853, errors: 43_446, requests: 1_000_000, meanMs: 97.7,
      p50Ms: 10, p90Ms: 265, p95Ms: 543, p99Ms: 1450, maxMs: 4509, totalS: 539.5,
    },
    {
      cell: `${NAME}:cluster-no-keepalive`, errors: 0, meanMs: 9.9, p99Ms: '< 200',
      note: '"100% success rate"; no other figure given',
    },
  ],
  show: ['sockets'],
};

const deviations = (requests, budget, n) => [
  {
    what: 'requests',
    original: '1,000,000 at 10,000/s',
    ours: `${requests.toLocaleString('en-US')} at 10,000/s`,
    why: 'the same rate; fewer requests fill the same queues (the article took 540 s at 1853 effective rps)',
  },
  {
    what: 'CPUs',
    original: '6 cores shared by the server and loadtest; a cluster of 6',
    ours: `${budget} CPU for the app, its own CPU for loadtest; a cluster of ${n}`,
    why: 'this machine has two CPUs',
  },
  {
    what: 'runs',
    original: 'one run each',
    ours: 'one run each, with and without keep-alive',
    why: 'keep-alive is the control for the errors',
  },
];

export function build({ mode, budget, n, apps }) {
  const sample = sampleWithBoth(apps);
  const requests = mode === 'full' ? 120_000 : 60_000;
  const common = {
    workload: 'light', kind: 'fixedrate', tool: 'loadtest', rate: 10_000, requests, connections: 10, expectRps: 2500,
  };
  const t = (strategy, keep) => {
    const cluster = strategy === 'cluster';
    return topology({
      sample, strategy, n, budget,
      id: `${cluster ? `cluster-of-${n}` : 'one-process'}${keep ? '' : '-no-keepalive'}`,
      label: `Express ${cluster ? `cluster of ${n}` : '1 process'}, ${keep ? 'keep-alive' : 'no keep-alive'} `
        + `(${budget} CPU)`,
    });
  };
  return {
    cells: [
      cell(NAME, '1-process-no-keepalive', t('one process', false), { ...common, keepAlive: false }),
      cell(NAME, 'cluster-no-keepalive', t('cluster', false), { ...common, keepAlive: false }),
      cell(NAME, '1-process-keepalive', t('one process', true), { ...common, keepAlive: true }),
      cell(NAME, 'cluster-keepalive', t('cluster', true), { ...common, keepAlive: true }),
    ],
    comparisons: [],
    deviations: deviations(requests, budget, n),
  };
}
