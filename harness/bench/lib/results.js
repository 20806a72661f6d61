// results.json: a run that describes itself. Everything the report, the charts and the guide show
// is in here — the protocol, the isolation, the machine, every cell with its rounds, the verdicts
// and the checks — so they render from this file alone, and two runs can be compared by script.
import { CONFIDENCE, MIN_DIFFERENCE, INTERVAL_METHOD, BLOCK_INTERVAL_METHOD } from './stats.js';
import { GENERATOR_BOUND } from './ceiling.js';
import { METRICS } from './metrics.js';
import { WORKLOADS, workloadSpec } from './workloads.js';
import { describeSample } from './samples.js';
import { SPENT } from './bottleneck.js';
import { STRATEGIES } from './strategies/index.js';
import { GENERATOR_SHARE_LIMIT } from './verdicts.js';
import { judge, SCHEMA } from './judge.js';
import { latencyRoundsText } from './report/format.js';
import { describeSpread } from './repeatability.js';

export { SCHEMA };

// What a cell keeps in results.json (the plan's working fields, like its URL, stay behind).
function cellRecord(c, isolation) {
  const { url, needsDb, cpuLimits, ...kept } = c;
  return { ...kept, budgetCpus: c.topology.budgetCpus, unpinned: !isolation.pinned };
}

// The workloads the plan's cells ran (the bench's own, and an app's own requests), as results keep them.
function workloadsOf(plan) {
  const out = {};
  for (const c of plan.scenarios.flatMap((sc) => sc.cells)) {
    if (out[c.workload]) continue;
    const w = WORKLOADS[c.workload] ?? workloadSpec(describeSample(c.topology.sample), c.workload);
    out[c.workload] = { title: w.title, params: w.params, connections: w.connections, latencyRatePerCpu: w.latencyRatePerCpu, ...(w.minLatencyMs ? { minLatencyMs: w.minLatencyMs } : {}), ...(w.custom ? { custom: true } : {}) };
  }
  // Every built-in one, measured or not, so a renderer knows their titles and order.
  for (const [k, w] of Object.entries(WORKLOADS)) out[k] ??= { title: w.title, params: w.params, connections: w.connections, latencyRatePerCpu: w.latencyRatePerCpu, ...(w.minLatencyMs ? { minLatencyMs: w.minLatencyMs } : {}) };
  return out;
}

export function buildResults({ plan, cells, label, argv, startedAt, tool, pacedTool, ceilings, isolation, box, meta, spread = null }) {
  const betweenRuns = describeSpread(spread);
  const inPlan = new Set(plan.scenarios.map((sc) => sc.name));
  const all = cells.filter((c) => inPlan.has(c.scenario)).map((c) => cellRecord(c, isolation));
  const cpuLimits = cells.find((c) => c.cpuLimits)?.cpuLimits ?? null;
  return judge({
    schema: SCHEMA,
    label,
    mode: plan.mode,
    argv,
    startedAt,
    finishedAt: new Date().toISOString(),
    protocol: {
      windowS: plan.params.windowS,
      warmupS: plan.params.warmupS,
      rewarmS: plan.params.rewarmS,
      rounds: plan.params.rounds,
      ...(Object.keys(plan.params.roundsByWorkload ?? {}).length ? { roundsByWorkload: plan.params.roundsByWorkload } : {}),
      order: 'interleaved in blocks — the cells a scenario\'s questions pair (for the verdicts one workload at one budget), each block warmed up and then measured in its rounds —: every cell of a block once per round, the order reversed every other round',
      ...(plan.params.closedSliceS ? { sliceS: plan.params.closedSliceS, slicing: `the verdicts' cells take each round's window in slices of ${plan.params.closedSliceS} s, in turn with the other cells of the round, in a fresh (seeded) order every slice so no cell always follows the same one, added up into the round's window` } : {}),
      memory: 'memory as the topology\'s own pages — the anonymous and shared-memory part of the PSS (heaps, stacks, JIT code) of every one of its processes, nginx included — sampled every second through each window; the binaries\' and libraries\' file pages, shared with every process of the same binary on the machine (other topologies too), are left out',
      latency: plan.params.latencyRounds || Object.keys(plan.params.latencyRoundsByWorkload ?? {}).length ? {
        rounds: plan.params.latencyRounds,
        ...(Object.keys(plan.params.latencyRoundsByWorkload ?? {}).length ? { roundsByWorkload: plan.params.latencyRoundsByWorkload } : {}),
        windowS: plan.params.latencyWindowS ?? plan.params.windowS,
        sliceS: plan.params.latencySliceS,
        interval: `over the paired slices (p99: the median of the slices' p99s, the p99 of a typical second; CPU per request: the slices' CPU time by their requests); ${BLOCK_INTERVAL_METHOD}`,
        load: plan.params.latencyLoad,
        tool: 'paced',
        rule: `p99 and CPU-per-request verdicts from windows at a fixed rate in the last rounds (${latencyRoundsText({ rounds: plan.params.latencyRounds, roundsByWorkload: plan.params.latencyRoundsByWorkload })}): one rate per workload — its nominal rate per CPU of the budget, lowered to ${plan.params.latencyLoad * 100}% of the slowest cell's warm-up rate (rounded down to a 1-2-5 step) where that is less; a cell's window is taken in slices of ${plan.params.latencySliceS} s in turn with the other cells of the round (a fresh order every slice), so a stall of the machine lands on every cell alike, and the verdicts compare the p99 of a typical second — the median over its slices of each slice's p99 — since the seconds a shared machine stalls every cell alike would decide a pooled p99 (the cell's pooled p99 is kept too); its CPU per request is the topology's CPU time during its own slices by their requests; open loop, each request's latency from its intended send time. Where a workload has no such windows neither is asked (at saturation a topology spends its whole budget, so its CPU per request is only the inverse of its throughput)`,
      } : null,
      capacity: plan.params.capacitySteps ? { p99TargetMs: plan.params.sloP99Ms, steps: plan.params.capacitySteps, sliceS: plan.params.capacitySliceS, range: plan.params.capacityRange, heldShare: 0.95 } : null,
      bound: { spent: SPENT, labels: ['strategy', 'proxy', 'connections', 'generator', 'machine', 'unknown'] },
      openLoop: { tool: 'paced', stepS: plan.params.stepS, maxSteps: plan.params.maxSteps, sustained: 'achieved rate within 5% of the target, p99 < 500 ms, no failed request' },
      confidence: CONFIDENCE,
      interval: INTERVAL_METHOD,
      betweenRuns,
      minDifference: MIN_DIFFERENCE,
      rule: { confidence: CONFIDENCE, margin: MIN_DIFFERENCE, labels: ['wins', 'equal', 'cant-tell'] },
      verdictRule: `wins: the whole ${CONFIDENCE * 100}% interval lies beyond a ${MIN_DIFFERENCE * 100}% difference (so it excludes parity too); equal: the whole interval lies within ±${MIN_DIFFERENCE * 100}%; can't tell: the interval crosses the ${MIN_DIFFERENCE * 100}% line. Suspect figures (beyond a physical limit, generator-bound, failed requests) are kept out.`,
      generatorBoundAt: GENERATOR_BOUND,
      budgets: isolation.budgets?.map((b) => b.budget) ?? [isolation.budgetCpus],
      placements: isolation.budgets ?? null,
      generatorShareLimit: GENERATOR_SHARE_LIMIT,
      generatorShare: 'the load generator\'s own CPU time (this process and the wrk runs it waited for, by process accounting) over each saturated window, as a share of the whole machine; a question whose topologies share the generator\'s CPUs is flagged generator-bound above the limit',
      efficiency: 'a strategy\'s throughput at budget B ÷ (B × the same app\'s one process at budget 1), from rounds paired within the run',
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
    strategies: STRATEGIES.map((x) => ({ key: x.key, slug: x.slug, title: x.title, why: x.why, multiProcess: x.multiProcess, drill: x.drill })),
    scenarios: plan.scenarios.map((s) => ({ name: s.name, title: s.title, description: s.description, interleaved: s.interleaved, cells: s.cells.map((c) => c.id), ...(s.experiment ? { experiment: s.experiment } : {}) })),
    cells: all,
    questions: plan.scenarios.flatMap((sc) => sc.comparisons),
    checks: plan.scenarios.flatMap((sc) => sc.checks),
    scaling: plan.scenarios.flatMap((sc) => sc.scaling ?? []),
  });
}
