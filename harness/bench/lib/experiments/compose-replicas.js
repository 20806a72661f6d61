// "Boosting API Performance with Docker Compose Replicas" (2025): a node:http app whose replicas
// each draw a delay of 0, 500, 1000, 1500 or 2000 ms at start; 1 instance vs 10 replicas behind
// nginx least_conn; `autocannon -c 500 -d 5`; about 900 → 7500 req/s.
import { topology } from '../topologies/topology.js';
import { cell, compare, plainHttpSample } from './cells.js';
import { summary } from '../judge/stats.js';

const NAME = 'exp-compose-replicas';
const CHOICES = [0, 500, 1000, 1500, 2000];
const SEED = '2025';

export const experiment = {
  id: NAME,
  title: 'Boosting API Performance with Docker Compose Replicas',
  source: 'Felix Herold, January 2025 (blog post)',
  claim: 'Ten replicas behind nginx (least_conn) serve about eight times what one instance serves: '
    + 'horizontal scaling.',
  original: {
    tool: 'autocannon',
    command: 'npx autocannon -c 500 -d 5 http://localhost:3000/',
    connections: 500,
    durationS: 5,
    route: 'GET / (a counter)',
    delays: 'each instance draws Math.floor(Math.random() * 5) × 500 ms at start: 0, 500, 1000, 1500 or 2000 ms',
    topologies: '1 instance published on port 3000 (no proxy) vs 10 replicas behind nginx least_conn',
    cpuQuotas: 'none',
    machine: 'the author\'s computer (not described)',
  },
  published: [
    {
      cell: `${NAME}:1-instance-500ms`,
      metric: 'rps',
      value: 900,
      note: '"about 900 Req/Sec on average": one instance, one random draw '
        + '(500 ms gives 500 connections ÷ 0.5 s ≈ 1000)',
    },
    { cell: `${NAME}:10-replicas-least_conn`, metric: 'rps', value: 7500, note: '"about 7500 Req/Sec on average"' },
  ],
  show: ['draw'],
};

// One instance's expected rate over the draws: per round, the mean of the five single instances.
function deriveExpected(records, singles, expected) {
  const recs = singles.map((s) => records.get(s.id));
  // What was sent is what the single instances were sent.
  const sent = { workload: 'light', path: singles[0].path, connections: singles[0].connections };
  const derived = { ...expected, ...sent, scenario: NAME, kind: 'derived' };
  if (recs.some((r) => r.status !== 'ok')) {
    return [{ ...derived, status: 'skipped', error: 'a single-instance draw was not measured', rounds: [] }];
  }
  const rounds = recs[0].rounds.map((r0) => {
    const same = recs.map((r) => r.rounds.find((x) => x.round === r0.round)).filter(Boolean);
    return {
      round: r0.round,
      rps: same.reduce((s, r) => s + r.rps, 0) / same.length,
      requests: same.reduce((s, r) => s + r.requests, 0),
      latencyMs: {},
      errors: same.reduce((s, r) => s + r.errors, 0),
    };
  });
  return [{
    ...derived, status: 'ok', derivedFrom: singles.map((s) => s.id), rounds,
    rps: summary(rounds.map((r) => r.rps)), errors: rounds.reduce((s, r) => s + r.errors, 0),
  }];
}

const deviations = (budget, rounds) => [
  {
    what: 'CPU',
    original: 'no limit, the author\'s computer',
    ours: `every instance pinned to the ${budget} CPU left after the load generator's`,
    why: 'the load generator gets a CPU of its own; 500 connections of timers cost little CPU',
  },
  {
    what: 'delays',
    original: 'one random draw per container, not recorded',
    ours: `the same five values, drawn per replica from seed ${SEED} (recorded), `
      + 'and every value measured on one instance',
    why: 'so the run can be repeated, and the single instance\'s figure is shown for every draw, not one',
  },
  {
    what: 'runs',
    original: 'one autocannon run per setup',
    ours: `${rounds} interleaved rounds of the same 5 s run`,
    why: 'a 95% interval for each comparison',
  },
];

export function build({ budget, params, apps }) {
  const sample = plainHttpSample(apps);
  const rounds = params.experimentRounds;
  const common = { workload: 'light', tool: 'autocannon', connections: 500, windowS: 5, rounds };
  // No quota per container, as in the article: each instance may use the whole budget.
  const t = (o) => topology({ sample, budget, quota: 'each', ...o });
  const c = (key, o, extra = {}) => cell(NAME, key, t(o), { ...common, ...extra });
  const one = (key, delay, id, label) => c(key, { strategy: 'one process', env: { DELAY_MS: delay }, id, label });
  const ten = (key, lb, env, id, label, extra) =>
    c(key, { strategy: 'replicas', n: 10, viaNginx: true, lb, env, id, label }, extra);
  const singles = CHOICES.map((d) =>
    one(`1-instance-${d}ms`, String(d), `one-instance-${d}ms`, `1 instance, ${d} ms delay`));
  const drawn = { DELAY_CHOICES_MS: CHOICES.join(','), DELAY_SEED: SEED };
  const lc = ten('10-replicas-least_conn', 'least_conn', drawn, 'ten-replicas-drawn-least_conn',
    `10 replicas, drawn delays (seed ${SEED}), least_conn`, { recordDraw: true });
  const rr = ten('10-replicas-round_robin', 'round_robin', drawn, 'ten-replicas-drawn-round_robin',
    `10 replicas, the same delays, round-robin`, { recordDraw: true });
  const fixed500 = ten('10-replicas-500ms', 'least_conn', { DELAY_MS: '500' }, 'ten-replicas-500ms',
    '10 replicas, every one 500 ms, least_conn');
  const one10 = one('1-instance-10ms', '10', 'one-instance-10ms', '1 instance, 10 ms delay');
  const ten10 = ten('10-replicas-10ms', 'least_conn', { DELAY_MS: '10' }, 'ten-replicas-10ms',
    '10 replicas, every one 10 ms, least_conn');
  const expected = {
    id: `${NAME}:1-instance-expected`,
    topology: {
      ...singles[0].topology,
      id: 'one-instance-expected',
      label: '1 instance, expected over the five equally likely draws',
      env: {},
    },
  };
  const one500 = singles[1];
  const drawnVs = '10 replicas (drawn delays, least_conn) vs';
  return {
    cells: [...singles, lc, rr, fixed500, one10, ten10],
    comparisons: [
      compare(`${NAME}.claim`, `${drawnVs} the 1 instance of the article's draw (500 ms)`, lc, one500),
      compare(`${NAME}.claim-expected`, `${drawnVs} 1 instance over all five draws`, lc,
        { ...expected, workload: 'light' }),
      compare(`${NAME}.least-conn`, 'least_conn vs round-robin, the same drawn delays', lc, rr),
      compare(`${NAME}.fixed-500`, 'every replica at the same 500 ms: 10 replicas vs 1 instance', fixed500, one500),
      compare(`${NAME}.fixed-10`, 'the article\'s remark, 10 ms everywhere: 10 replicas vs 1 instance', ten10, one10),
    ],
    derive: (records) => deriveExpected(records, singles, expected),
    derivedIds: [expected.id],
    deviations: deviations(budget, rounds),
  };
}
