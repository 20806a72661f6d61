// The cells of an interleaved scenario, block by block (run/interleave-blocks.js: the cells its questions pair):
// each block warmed up, then measured in its rounds — A B C, then C B A, … — so drift of the
// machine lands on every topology alike and no cell sits idle long between windows; then each
// cell's capacity at the latency target, and the block's latency windows at one fixed rate.
import { blocksOf, warmUpOrder, startsBefore } from './interleave-blocks.js';
import { closedWindow, combineWindows, sliceOrder, sliceSeed, fixedCount } from './measure-window.js';
import { getTool } from '../tools/index.js';
import { guarded, finish } from './record.js';
import { warmUp, warmupFloor, lentCpus } from './warmup.js';
import { roundsOf, windowOf, slicesOf, closedCost } from './estimate.js';
import { capacityBlock } from './capacity.js';
import { latencyWindows } from './latency.js';
import { placeBlock, cellPlacement } from './families.js';
import { parseCpuList } from '../../../runner/index.js';
import { withAppMetrics, combineWindows as combineAppMetrics } from './app-metrics.js';

/** Measures the interleaved cells of a scenario (run: scenario.js's run) and finishes their records. */
export async function interleave(run, cells, comparisons) {
  const warmedProcesses = new Set(); // deployments whose runtime got its once-per-process warm-up
  const blocks = blocksOf(cells, comparisons);
  // The app whose warm-up opens a block (.NET's minute) is loaded the moment its block begins: its
  // deployments start with the scenario, all at once, instead of on the run's clock between blocks.
  await run.ready(blocks.flatMap((b) => startsBefore(warmUpOrder(b, (c) => warmupFloor(c, true)))[0] ?? []));
  for (const cellsOfBlock of blocks) {
    await placeBlock(run, cellsOfBlock);
    await warmBlock(run, cellsOfBlock, warmedProcesses);
    const block = cellsOfBlock.filter((c) => run.records.get(c.id).status === 'pending');
    await roundsOfBlock(run, block);
    await capacityBlock(run, block.filter((c) => c.searchCapacity));
    await latencyWindows(run, block);
  }
  for (const c of cells) {
    if (run.records.get(c.id).status === 'skipped') continue;
    finish(run.records.get(c.id), {
      tool: run.toolOf(c),
      windowS: c.kind === 'count' ? null : windowOf(c, run.params),
      warmupS: run.params.warmupS,
      rewarmS: c.sliceS ? 0 : run.params.rewarmS,
      ceiling: run.ctx.ceilings?.[run.toolOf(c)],
    });
  }
}

// Every cell of the block is warmed up to a steady rate before the first round, all of them first:
// a runtime's background compiler (V8's optimising tiers, .NET's tier-1 JIT with dynamic PGO) gets
// little of a saturated CPU quota, and finishes its queue only while the cell sits idle — here,
// while the others warm up. Measured right after its own warm-up, a cell's first window came out
// up to 2.7× below its later ones. The longest warm-ups first (a deployment's first one, a minute
// per .NET process): a Node cell warmed before them sat idle through them past the ~100 s after
// which V8's memory reducer shrinks an idle heap (run/interleave-blocks.js), and came out ×0.5–×0.6 of its later
// rounds in its first (light JSON at 2 CPUs, default run, 2026-11-26).
// An app's deployments not started yet start right before its first warm-up here (run.ready): an
// Express process started with the block and left idle through the .NET warm-ups (about 2 min)
// ran at a third of its speed for the whole run (harness/bench/README.md, "Express slowed").
// A deployment held below the CPUs it is pinned to (an experiment's 0.1-CPU containers) warms up
// under all of them where the engine can move it (run/warmup.js lentCpus), and is measured under
// its own quota.
async function warmBlock(run, cells, warmedProcesses) {
  const { records, params: p, ctx, threads, toolOf } = run;
  const first = (c) => !warmedProcesses.has(run.deploymentOf(c));
  const lentOf = (c) => {
    if (!run.canPlace || !first(c)) return null;
    const want = cellPlacement(c, ctx.isolation);
    return lentCpus(c.topology, want.budget, parseCpuList(want.cpuset).length);
  };
  const floorOf = (c) => warmupFloor(c, first(c), lentOf(c));
  const order = warmUpOrder(cells, floorOf);
  const starts = startsBefore(order);
  for (const [i, c] of order.entries()) {
    await run.ready(starts[i]);
    const rec = records.get(c.id);
    if (c.kind === 'count' || rec.status !== 'pending') continue;
    ctx.hooks.phase?.(`warm-up ${c.id}`);
    await guarded(rec, async () => {
      const floor = floorOf(c);
      const lent = lentOf(c);
      warmedProcesses.add(run.deploymentOf(c));
      const target = { url: rec.url, connections: c.connections, threads, request: c.request };
      const params = { ...p, warmupS: Math.max(p.warmupS, floor), warmupMaxS: Math.max(p.warmupMaxS, floor + 6) };
      if (lent) await placeBlock(run, [c], lent);
      try {
        rec.warmup = { ...(await warmUp(getTool(toolOf(c)), target, params)), ...(lent ? { lentCpus: lent } : {}) };
      } finally {
        // Back under its own quota before anything of it is measured.
        if (lent) await placeBlock(run, [c]);
      }
    });
    ctx.hooks.tick?.(rec.warmup?.seconds ?? p.warmupS);
  }
}

// A cell's saturated window (or a slice of one), between two readings of its app's own metrics.
const windowOfCell = (run, c, durationS) => withAppMetrics(run.appMetricsOf(c), () => closedWindow({
  url: run.records.get(c.id).url, tool: run.toolOf(c), connections: c.connections, durationS, threads: run.threads,
  usage: run.usageOf(c), request: c.request,
}));

async function roundsOfBlock(run, cells) {
  const { records, params: p, ctx, threads, toolOf } = run;
  const rounds = Math.max(...cells.map((c) => roundsOf(c, p)), 0);
  for (let r = 1; r <= rounds; r += 1) {
    const order = r % 2 ? cells : [...cells].reverse();
    for (const c of order) {
      const rec = records.get(c.id);
      if (rec.status === 'failed' || r > roundsOf(c, p) || c.sliceS) continue;
      ctx.hooks.phase?.(`round ${r}/${rounds} ${c.id}`);
      await guarded(rec, async () => {
        // A short re-warm before every window: the cell sat idle while the others were measured.
        if (c.kind !== 'count' && p.rewarmS > 0) {
          await getTool(toolOf(c)).run({
            url: rec.url, connections: c.connections, durationS: p.rewarmS, threads, request: c.request,
          });
        }
        const w = c.kind === 'count'
          ? await fixedCount(rec.url, c, toolOf(c), run.usageOf(c))
          : await windowOfCell(run, c, windowOf(c, p));
        rec.rounds.push({ round: r, at: new Date().toISOString(), ...w });
      });
      ctx.hooks.tick?.(c.kind === 'count' ? (c.expectS ?? 8) : closedCost(c, p));
    }
    const sliced = cells.filter((c) => c.sliceS && r <= roundsOf(c, p) && records.get(c.id).status !== 'failed');
    await slicedRound(run, r, rounds, sliced);
  }
}

// The round's saturated windows of the cells that take them in slices (cell.sliceS): each cell's
// window as slices of sliceS, in turn with the other cells (in a fresh order every slice), so that
// the machine's changes of state — a neighbour's burst, steal — land on every cell of the round
// alike instead of on whichever one held a 5 s window then. The slices add up to the round's window.
// No re-warm first: every slice, the first too, follows the same wait while the others take theirs.
async function slicedRound(run, r, rounds, cells) {
  const { records, params: p, ctx } = run;
  const live = () => cells.filter((c) => records.get(c.id).status !== 'failed');
  const windows = new Map(cells.map((c) => [c.id, []]));
  const started = new Map(); // a cell's round begins with its first slice
  const n = Math.max(...cells.map((c) => slicesOf(c, p)));
  for (let s = 0; s < n; s += 1) {
    for (const c of sliceOrder(live(), sliceSeed(r, s))) {
      if (s >= slicesOf(c, p)) continue;
      const rec = records.get(c.id);
      if (s === 0) {
        ctx.hooks.phase?.(`round ${r}/${rounds} ${c.id}`);
        started.set(c.id, new Date().toISOString());
      }
      await guarded(rec, async () => {
        const at = Date.now();
        const w = await windowOfCell(run, c, windowOf(c, p) / slicesOf(c, p));
        windows.get(c.id).push({ ...w, at });
      });
    }
  }
  for (const c of live()) {
    const ws = windows.get(c.id);
    if (ws.length) {
      records.get(c.id).rounds.push({
        round: r, at: started.get(c.id), ...combineWindows(ws), slices: ws.length, sliceRps: ws.map((w) => w.rps),
        sliceCpuMs: ws.map((w) => w.cpuMs), sliceAt: ws.map((w) => w.at),
        ...(ws.some((w) => w.appMetrics) ? { appMetrics: combineAppMetrics(ws.map((w) => w.appMetrics)) } : {}),
      });
    }
    ctx.hooks.tick?.(closedCost(c, p));
  }
}
