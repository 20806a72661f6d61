// The cells measured one after another, each on its own: the open-loop search, the experiments'
// fixed-rate and fixed-count runs, and the fault and rollout drills.
import { closedWindow, fixedCount, fixedRateRun, searchRate } from './measure-window.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { runDrillCell, runSwarmCell } from '../drills/index.js';
import { guarded, finish } from './record.js';
import { costOf } from './estimate.js';

async function openloopCell(run, c, rec) {
  const { params: p, ctx, threads } = run;
  // Start below the closed-loop capacity measured here with the same pinning.
  const probe = await closedWindow({ url: rec.url, tool: ctx.tool, connections: c.connections, durationS: 2, threads });
  // Open loop proper: the paced generator sends on schedule and times from the intended send.
  const onStep = (s) =>
    ctx.hooks.log?.(`  ${c.id} ${s.rate}/s ${s.sustained ? 'sustained' : `not sustained (${s.why})`}`);
  const search = await searchRate({
    url: rec.url, tool: c.tool ?? 'paced', startRate: probe.rps * 0.7, maxSteps: p.maxSteps, stepS: c.stepS ?? p.stepS,
    threads, p99LimitMs: p.sloP99Ms, onStep,
  });
  Object.assign(rec, { probeRps: probe.rps, ...search });
}

// A drill (a crash, a rolling restart, a graceful stop, a scale-down) on the cell's own deployment,
// through the Runner of the engine it runs on; what the store kept is counted (drills/index.js).
async function drillCell(run, c, rec) {
  const log = (l) => run.ctx.hooks.log?.(`  ${c.id}: ${l}`);
  const app = describeSample(c.topology.sample);
  if (c.orchestrator === 'swarm') {
    rec.drill = await runSwarmCell({ cell: c, runner: run.ctx.runners?.docker, app, log });
    return;
  }
  const d = run.deploymentOf(c).handle;
  rec.drill = await runDrillCell({ cell: c, runner: d.runner, runDir: d.runDir, url: rec.url, app, log });
}

const KINDS = {
  openloop: openloopCell,
  fault: drillCell,
  rollout: drillCell,
  stop: drillCell,
  'scale-down': drillCell,
  fixedrate: async (run, c, rec) => {
    const tool = c.tool ?? run.ctx.pacedTool;
    const measured = await fixedRateRun({
      url: rec.url, tool, rate: c.rate, requests: c.requests, connections: c.connections, keepAlive: c.keepAlive,
      threads: run.threads, usage: run.usageOf(c),
    });
    Object.assign(rec, { tool, ...measured });
  },
};

/** Runs each cell on its own, in order; a count cell is finished here, the others marked ok. */
export async function oneByOne(run, cells) {
  const { records, params: p, ctx } = run;
  for (const c of cells) {
    const rec = records.get(c.id);
    ctx.hooks.phase?.(`${c.kind} ${c.id}`);
    await guarded(rec, async () => {
      if (c.kind === 'count') {
        const tool = c.tool ?? ctx.pacedTool;
        const w = await fixedCount(rec.url, c, tool, run.usageOf(c));
        rec.rounds.push({ round: 1, at: new Date().toISOString(), ...w });
        finish(rec, { tool, windowS: null, warmupS: 0, rewarmS: 0 });
        return;
      }
      const kind = KINDS[c.kind];
      if (!kind) throw new Error(`unknown cell kind ${c.kind}`);
      await kind(run, c, rec);
      rec.status = 'ok';
    });
    ctx.hooks.tick?.(costOf(c, p));
  }
}
