// What `make bench` (the default plan, no FULL) measures, in the words the root README uses for it:
// per CPU budget, each app's strategies, and the workloads at each budget. The README quotes it as
// <!-- plan -->…<!-- /plan -->, and docs-contradictions.test.js holds the two equal, so the README
// can't claim more (or less) than the plan runs.
import { plan } from '../bench/lib/plan/scenarios.js';
import { WORKLOADS } from '../bench/lib/workloads/index.js';

const STRATEGY = {
  'one process': 'one process',
  cluster: 'cluster',
  reuseport: 'reusePort',
  pm2: 'PM2',
  replicas: 'replicas',
};
const ORDER = Object.keys(STRATEGY);
const cpus = (b) => `${b} CPU${b === 1 ? '' : 's'}`;
const andList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

export const PLAN_MARKER = /<!-- plan -->([\s\S]*?)<!-- \/plan -->/;

/** The default plan on a 2-core machine (budgets 1 and 2), in words. */
export function defaultPlanText() {
  const cells = plan({ budgets: [{ budget: 1, cpuset: 'sut' }, { budget: 2, cpuset: 'all' }] })
    .scenarios.flatMap((s) => s.cells);
  const budgets = [...new Set(cells.map((c) => c.topology.budgetCpus))].sort((a, b) => a - b);
  const app = (c) => c.topology.label.split(',')[0];
  const perBudget = budgets.map((b) => {
    const mine = cells.filter((c) => c.topology.budgetCpus === b);
    const apps = [...new Set(mine.map(app))];
    const strategies = (a) =>
      [...new Set(mine.filter((c) => app(c) === a).map((c) => c.topology.strategy))]
        .sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y))
        .map((s) => STRATEGY[s] ?? s);
    return `at ${cpus(b)}: ${apps.map((a) => `${a} (${strategies(a).join(', ')})`).join(', ')}`;
  });
  const workloads = [...new Set(cells.map((c) => c.workload))].map((w) => {
    const at = [...new Set(cells.filter((c) => c.workload === w).map((c) => c.topology.budgetCpus))];
    const title = String(WORKLOADS[w]?.title ?? w).replace(/\s*\(.*\)$/, '');
    return at.length === budgets.length ? title : `${title} (at ${andList(at.map(cpus))} only)`;
  });
  return `${perBudget.join('; ')}; on ${andList(workloads)}`;
}
