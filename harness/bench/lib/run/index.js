// Runs a plan, scenario by scenario (scenario.js), as measure-plan.js opened the run: the engines'
// Runners, the pinned isolation, the tools and their ceilings, the run folders and the progress hooks.
import { rmdir } from 'node:fs/promises';
import { runScenario } from './scenario.js';

export { stopAll } from './cleanup.js';
export { estimateSeconds } from './estimate.js';

/** Runs every scenario of the plan. Returns the cells, each with status ok | failed | skipped and its rounds. */
export async function runPlan(plan, ctx) {
  const out = [];
  const state = { built: new Set(), counter: { n: 0 } };
  for (const scenario of plan.scenarios) out.push(...await runScenario(scenario, plan.params, ctx, state));
  await rmdir(ctx.runBase).catch(() => {});
  return out;
}
