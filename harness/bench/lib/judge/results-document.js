// results.json: a run that describes itself. Everything the report, the charts and the guide show
// is in here — the protocol, the isolation, the machine, every cell with its rounds, the verdicts
// and the checks — so they render from this file alone, and two runs can be compared by script.
// The judge stage of both commands: a run's measurements judged into it (buildResults), or a kept
// file's measured cells judged again by today's rule (rejudge, `make report`).
import path from 'node:path';
import { CONFIDENCE, MIN_DIFFERENCE } from './stats.js';
import { METRICS } from './compared-metrics.js';
import { WORKLOADS, workloadSpec } from '../workloads/index.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { SPENT, GENERATOR_BOUND, GENERATOR_SHARE_LIMIT } from './bottleneck.js';
import { STRATEGIES } from '../strategies/index.js';
import { judge, SCHEMA } from './index.js';
import { describeSpread, loadSpread } from './run-to-run-spread.js';
import { baselineOf } from '../plan/questions.js';
import { REPO_ROOT } from '../../../lib/repo-root.js';

// What a cell keeps in results.json (the plan's working fields, like its URL, stay behind).
function cellRecord(c, isolation) {
  const { url, needsDb, wantsDb, cpuLimits, ...kept } = c;
  return { ...kept, budgetCpus: c.topology.budgetCpus, unpinned: !isolation.pinned };
}

// A workload as results keep it.
const workloadRecord = (w) => ({
  title: w.title, params: w.params, connections: w.connections, latencyRatePerCpu: w.latencyRatePerCpu,
  ...(w.minLatencyMs ? { minLatencyMs: w.minLatencyMs } : {}),
  ...(w.custom ? { custom: true } : {}),
});

// The workloads the plan's cells ran (the bench's own, and an app's own requests), as results keep them.
function workloadsOf(plan) {
  const out = {};
  for (const c of plan.scenarios.flatMap((sc) => sc.cells)) {
    out[c.workload] ??= workloadRecord(workloadSpec(describeSample(c.topology.sample), c.workload));
  }
  // Every built-in one, measured or not, so a renderer knows their titles and order.
  for (const [k, w] of Object.entries(WORKLOADS)) out[k] ??= workloadRecord(w);
  return out;
}

// The run's label when none is given: the machine, the mode, the day and how loaded the box was.
function runLabel({ mode, whole, meta, box, startedAt }) {
  const partial = whole ? '' : ' (partial run)';
  const steal = box.stealPct === null ? '' : `, ${box.stealPct}% steal`;
  return (
    `Run on ${meta.machine.hostname} (${meta.machine.cores} cores), ${mode} mode${partial}, ` +
    `${startedAt.slice(0, 10)}, load ${box.loadBefore[0]} → ${box.loadAfter[0]}${steal}${box.busy ? ' (busy)' : ''}`
  );
}

// The apps of the run as results keep them: what they are, which is the baseline, their folder.
function appRecords(apps) {
  const base = baselineOf(apps);
  return apps.map((a) => ({
    key: a.key, name: a.name, runtime: a.runtime, framework: a.framework, baseline: a === base,
    sample: path.relative(REPO_ROOT, a.dir) || a.dir,
  }));
}

/**
 * results.json of a run, judged: `plan` the plan measured; `cells` … `generatorNodeFlags` what
 * run/measure-plan.js measured; `apps`, `budgetChoice` and `whole` what the plan was made of;
 * `label` (else one of the machine and the day) and `argv` the command line's; `spread` the
 * run-to-run spreads the verdicts' floors come from (the committed ones unless given).
 * @param {{ plan: any, cells: any[], label?: string, argv: string, startedAt: string, tool: string,
 *   pacedTool: string, ceilings: object, isolation: any, box: any, meta: any, spread?: any, engines?: object[],
 *   generatorNodeFlags?: string[], apps?: any[], budgetChoice?: object, whole?: boolean }} run
 */
export function buildResults({
  plan, cells, label, argv, startedAt, tool, pacedTool, ceilings, isolation, box, meta, spread = loadSpread(),
  engines = [], generatorNodeFlags, apps = [], budgetChoice, whole = false,
}) {
  const betweenRuns = describeSpread(spread);
  const inPlan = new Set(plan.scenarios.map((sc) => sc.name));
  const all = cells.filter((c) => inPlan.has(c.scenario)).map((c) => cellRecord(c, isolation));
  const cpuLimits = cells.find((c) => c.cpuLimits)?.cpuLimits ?? null;
  const doc = judge({
    schema: SCHEMA,
    label: label ?? runLabel({ mode: plan.mode, whole, meta, box, startedAt }),
    mode: plan.mode,
    argv,
    startedAt,
    finishedAt: new Date().toISOString(),
    protocol: {
      windowS: plan.params.windowS,
      warmupS: plan.params.warmupS,
      rewarmS: plan.params.rewarmS,
      rounds: plan.params.rounds,
      ...(plan.params.closedSliceS ? { sliceS: plan.params.closedSliceS } : {}),
      memory: { counts: 'anon+shmem PSS', of: 'every process of the topology, nginx included', sampledEveryS: 1 },
      // The latency windows at a fixed rate; null where the plan has none.
      latency: plan.params.latencyRounds ? {
        rounds: plan.params.latencyRounds, windowS: plan.params.latencyWindowS ?? plan.params.windowS,
        sliceS: plan.params.latencySliceS, load: plan.params.latencyLoad, tool: 'paced',
      } : null,
      capacity: plan.params.capacitySteps ? {
        p99TargetMs: plan.params.sloP99Ms, steps: plan.params.capacitySteps, sliceS: plan.params.capacitySliceS,
        range: plan.params.capacityRange, heldShare: 0.95,
      } : null,
      bound: { spent: SPENT, labels: ['strategy', 'proxy', 'connections', 'generator', 'machine', 'unknown'] },
      openLoop: {
        tool: 'paced', stepS: plan.params.stepS, maxSteps: plan.params.maxSteps, p99TargetMs: plan.params.sloP99Ms,
        heldShare: 0.95,
      },
      confidence: CONFIDENCE,
      betweenRuns,
      minDifference: MIN_DIFFERENCE,
      rule: { confidence: CONFIDENCE, margin: MIN_DIFFERENCE, labels: ['wins', 'equal', 'cant-tell'] },
      generatorBoundAt: GENERATOR_BOUND,
      budgets: isolation.budgets?.map((b) => b.budget) ?? [isolation.budgetCpus],
      placements: isolation.budgets ?? null,
      generatorShareLimit: GENERATOR_SHARE_LIMIT,
      // How the run was made: the engines (docker | processes, how chosen), the budgets' choice, the
      // generator's flags (tools/generator-heap.js).
      engine: engines[0],
      ...(engines.length > 1 ? { otherEngines: engines.slice(1) } : {}),
      budgetChoice,
      generatorNodeFlags,
    },
    tool,
    pacedTool,
    isolation: { ...isolation, cpuLimits },
    box,
    meta,
    ceilings,
    workloads: workloadsOf(plan),
    metrics: METRICS,
    // The strategy records, as the report and guide name and explain them (they read results.json alone).
    strategies: STRATEGIES.map((x) => ({
      key: x.key, slug: x.slug, title: x.title, why: x.why, multiProcess: x.multiProcess, drill: x.drill,
    })),
    scenarios: plan.scenarios.map((s) => ({
      name: s.name, title: s.title, description: s.description, interleaved: s.interleaved,
      cells: s.cells.map((c) => c.id), ...(s.experiment ? { experiment: s.experiment } : {}),
    })),
    cells: all,
    questions: plan.scenarios.flatMap((sc) => sc.comparisons),
    checks: [], // no scenario plans a physical-limit check now; a kept file's are judged again (runChecks)
    scaling: plan.scenarios.flatMap((sc) => sc.scaling ?? []),
  });
  doc.apps = appRecords(apps);
  return doc;
}

/**
 * `make report`: a results file's doc (judge/read-results-file.js), relabelled if asked, judged again.
 * @param {any} doc @param {{ label?: string }} [options]
 */
export function rejudge(doc, { label } = {}) {
  if (label) doc.label = label; // relabel a kept run, e.g. the committed reference run
  // From the measured cells, by the current rule and the current spreads over repeated runs.
  doc.protocol.betweenRuns = describeSpread(loadSpread());
  return judge(doc);
}
