// "Introduction to Load Balancing Using Node.js" (Mazira): a pi server, 1e7 Monte-Carlo samples per
// request; 10 users × 5 requests; 1 server vs 3 behind a round-robin proxy; the slowest answer
// "nearly three seconds" → "under one second"; a crashed server still gets every third request.
import { topology } from '../topologies/topology.js';
import { availableCpus } from '../../../runner/index.js';
import { cell, compare, plainHttpSample } from './cells.js';

const NAME = 'exp-pi-loadbalancing';
const SAMPLES = 10_000_000;

export const experiment = {
  id: NAME,
  title: 'Introduction to Load Balancing Using Node.js',
  source: 'Ross Johnson, Mazira (blog post, Part 1)',
  claim: 'Three pi servers behind a round-robin balancer cut the slowest response from nearly 3 s to under 1 s.',
  explanation: 'A Node process computes one pi at a time; three processes on a multi-core laptop compute three '
    + 'at once.',
  warning: 'If one of the servers crashes, a round-robin balancer still sends it every third request, and those '
    + 'fail.',
  original: {
    tool: 'Apache JMeter',
    users: 10,
    requestsPerUser: 5,
    samplesPerRequest: SAMPLES,
    route: 'any path: the pi estimate',
    balancer: 'node-http-proxy, round-robin, no health check, no retry',
    servers: '1 vs 3 pi-servers (one Node process each)',
    cpuQuotas: 'none (the author\'s laptop, several cores)',
  },
  published: [
    {
      cell: `${NAME}:1-server`,
      metric: 'maxMs',
      value: 3000,
      note: '"nearly three seconds" (read off the article\'s graph)',
    },
    { cell: `${NAME}:3-servers-naive`, metric: 'maxMs', value: 1000, note: '"under one second"' },
    {
      cell: `${NAME}:1-server`,
      metric: 'firstMs',
      value: 500,
      note: 'the first responses, "less than 500 ms": one request\'s computing time',
    },
    {
      cell: `${NAME}:3-servers-one-killed-naive`,
      metric: 'failedShare',
      value: 1 / 3,
      note: 'the warning: every third request fails',
    },
  ],
  show: ['timeline', 'failures'],
};

const deviations = (all) => [
  {
    what: 'load generator',
    original: 'Apache JMeter, 10 threads × 5 requests',
    ours: 'autocannon, 10 connections, 50 requests in all (5 each)',
    why: 'the same load from the project\'s own generator',
  },
  {
    what: 'pi',
    original: '1e7 samples of Math.random per request (about 0.5 s on the author\'s laptop)',
    ours: '1e7 samples of xorshift32 per request',
    why: 'the samples\' generator (steady cost per request); one request costs less, so every time here is shorter',
  },
  {
    what: 'CPUs',
    original: 'a laptop\'s cores',
    ours: `all ${all} CPUs of this machine for the servers; the control pins three servers to one`,
    why: 'the claim is about parallelism, and 50 requests cost the generator nothing measurable',
  },
  {
    what: 'balancer',
    original: 'node-http-proxy, round-robin, no retry',
    ours: 'a round-robin proxy with no retry and no health check (bench/lib/experiments/naive-balancer.js), '
      + 'and the shipped nginx config',
    why: 'the first behaves like the article\'s; the second is what this repository ships',
  },
];

export function build({ budget, params, apps }) {
  const sample = plainHttpSample(apps);
  const rounds = params.experimentRounds;
  const all = availableCpus().length;
  const common = {
    workload: 'pi', kind: 'count', tool: 'autocannon', connections: 10, amount: 50, rounds, expectS: 12,
    params: { samples: SAMPLES },
  };
  const naive = { ...common, via: 'naive-rr' };
  // The article's point is parallelism: its servers ran on a laptop's cores. 50 requests cost the
  // generator nothing measurable, so the servers get every CPU; the control pins three to one CPU.
  const env = { PI_MAX_SAMPLES: String(SAMPLES) };
  const t = (o) => topology({ sample, quota: 'each', env, lb: 'round_robin', ...o });
  // A cell whose key is also its topology's id; `o` the rest of its topology.
  const c = (key, o, spec) => cell(NAME, key, t({ ...o, id: key }), spec);
  const three = { strategy: 'replicas', n: 3 };
  const everyCpu = { budget: all, cpuset: 'all' };
  const one = c('1-server', { strategy: 'one process', ...everyCpu, label: `1 pi server (${all} CPUs free)` }, common);
  const threeAll = c('3-servers-naive',
    { ...three, ...everyCpu, label: `3 pi servers, naive round-robin (${all} CPUs)` }, naive);
  const threeOne = c('3-servers-1-cpu-naive',
    { ...three, budget, label: `3 pi servers, naive round-robin, pinned to ${budget} CPU` }, naive);
  const killedNaive = c('3-servers-one-killed-naive',
    { ...three, ...everyCpu, tag: 'killed-naive', label: '3 pi servers, one killed, naive round-robin' },
    { ...naive, kill: 3 });
  const killedNginx = c('3-servers-one-killed-nginx', {
    ...three, ...everyCpu, viaNginx: true, tag: 'killed-nginx',
    label: '3 pi servers, one killed, the shipped nginx config (round-robin)',
  }, { ...common, kill: 3 });
  return {
    cells: [one, threeAll, threeOne, killedNaive, killedNginx],
    comparisons: [
      compare(`${NAME}.claim`, 'slowest response: 3 servers vs 1', threeAll, one, 'max'),
      compare(`${NAME}.parallelism`,
        'slowest response: 3 servers on one CPU vs 1 server (the control: no cores to spread over)',
        threeOne, one, 'max'),
    ],
    deviations: deviations(all),
  };
}
