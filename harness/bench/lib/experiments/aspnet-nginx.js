// "Escalando uma aplicação com Nginx e Docker Container" (ASP.NET, SQL Server): `wrk -t1 -c100
// -d30s` on /api and `-c400` on /products, 5 runs each; 1 replica vs 4 behind nginx, no quotas.
import { topology } from '../topologies/topology.js';
import { appWith } from '../topologies/app-descriptions.js';
import { cell, compare } from './cells.js';

const NAME = 'exp-aspnet-nginx';

export const experiment = {
  id: NAME,
  title: 'Escalando uma aplicação com Nginx e Docker Container',
  source: 'a blog post (in Portuguese) on ASP.NET Core replicas behind nginx',
  claim: 'Four replicas serve fewer requests per second than one: /api 6.3–7.1k → 4.4–4.7k, '
    + '/products 1.7–1.9k → 1.3k.',
  explanation: 'One ASP.NET process already keeps every core busy through its thread pool; four processes compete '
    + 'for the same cores and pay in context switches.',
  original: {
    tool: 'wrk',
    command: 'seq 1 5 | xargs -n1 wrk -t1 -c100 -d30s http://localhost/api (and -c400 on /products)',
    threads: 1,
    connections: { '/api': 100, '/products': 400 },
    durationS: 30,
    runs: 5,
    proxy: 'nginx (round-robin)',
    database: 'SQL Server 2019 in compose',
    cpuQuotas: 'none',
    machine: '4 CPU threads',
  },
  published: [
    { cell: `${NAME}:api-1-replica`, metric: 'rps', runs: [7076.10, 6722.57, 6308.24, 6327.65, 6388.96] },
    { cell: `${NAME}:api-4-replicas`, metric: 'rps', runs: [4558.12, 4667.48, 4438.18, 4449.01, 4494.76] },
    { cell: `${NAME}:products-1-replica`, metric: 'rps', runs: [1857.23, 1826.43, 1707.86, 1727.20, 1787.31] },
    {
      cell: `${NAME}:products-4-replicas`,
      metric: 'rps',
      runs: [782.88, 1314.10, 1323.14, 1316.05, 1280.74],
      note: 'the first run stopped after 13.6 s with 400 timeouts',
    },
  ],
  show: ['scheduling'],
};

const deviations = (mode, budget, windowS, rounds) => [
  {
    what: 'duration',
    original: '30 s × 5 runs',
    ours: `${windowS} s × ${rounds} interleaved rounds`,
    why: 'time: six variants, each warmed up for a minute, must fit in the '
      + `${mode === 'full' ? 'full run\'s 75 minutes' : 'default run (the full run: 5 s × 4)'}`,
  },
  {
    what: 'database',
    original: 'SQL Server 2019 in compose',
    ours: 'PostgreSQL, a real server started locally in its place',
    why: 'SQL Server has no local package here',
  },
  {
    what: 'CPUs',
    original: '4 CPU threads, no quota',
    ours: `${budget} CPU for nginx, the replicas and the database; "no quota" = every replica may use all of it, `
      + `"the same total quota" = ${budget / 4} CPU each`,
    why: 'this machine has two CPUs; the other runs wrk',
  },
];

export function build({ mode, budget, params, apps }) {
  const sample = appWith(apps, { runtime: 'dotnet' }, 'an ASP.NET Core app').sample;
  // 4 rounds in the full run (the article ran 5): the warm-ups of its three deployments (a minute per
  // process, a minute per database path) take six minutes already; the article's 30 s windows would
  // take 15 minutes alone.
  const rounds = mode === 'full' ? 4 : params.experimentRounds;
  const windowS = 5;
  const common = { tool: 'wrk', windowS, rounds };
  const t = (o) => topology({ sample, viaNginx: true, lb: 'round_robin', budget, ...o });
  const api = { ...common, workload: 'light', connections: 100 };
  const products = { ...common, workload: 'db', connections: 400 };
  const one = (key, extra) => cell(NAME, key, t({ strategy: 'one process', id: key, label: '1 replica' }), extra);
  const four = (key, extra, quota) => {
    const label = `4 replicas, ${quota === 'each' ? 'no quota' : `${budget / 4} CPU each`}`;
    return cell(NAME, key, t({ strategy: 'replicas', n: 4, quota, id: key, label }), extra);
  };
  const cells = {
    api1: one('api-1-replica', api),
    api4: four('api-4-replicas', api, 'each'),
    api4q: four('api-4-replicas-quota', api, 'split'),
    db1: one('products-1-replica', products),
    db4: four('products-4-replicas', products, 'each'),
    db4q: four('products-4-replicas-quota', products, 'split'),
  };
  return {
    cells: Object.values(cells),
    comparisons: [
      compare(`${NAME}.api`, '/api at 100 connections: 1 replica vs 4 (no quota)', cells.api1, cells.api4),
      compare(`${NAME}.api-quota`, '/api: 1 replica vs 4 with the same total quota', cells.api1, cells.api4q),
      compare(`${NAME}.products`, '/products at 400 connections (PostgreSQL): 1 replica vs 4', cells.db1, cells.db4),
      compare(`${NAME}.products-quota`, '/products: 1 replica vs 4 with the same total quota', cells.db1, cells.db4q),
      compare(`${NAME}.api-cpu`, '/api, CPU per request: 1 replica vs 4', cells.api1, cells.api4, 'cpu'),
    ],
    deviations: deviations(mode, budget, windowS, rounds),
  };
}
