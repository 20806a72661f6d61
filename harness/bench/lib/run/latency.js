// Tail latency and CPU per request at one fixed rate per block: a fraction (latencyLoad) of the
// weakest cell's capacity at the latency target, so every pair is compared at the same load and the
// pairs with the weakest side near its capacity (a p99 taken far below capacity says little: at a
// third of it every strategy looks alike). Windows of whole slices taken in turn with the other
// cells (run/measure-window.js latencyBlock), kept with the closed rounds they follow.
import { latencyBlock, latencyRounds } from './measure-window.js';
import { round } from '../judge/stats.js';
import { latencySlicesOf, latencyWindowCost, roundsOf } from './estimate.js';
import { socketsFor } from './capacity.js';
import { lateWhy, LATE_TRIES } from '../judge/send-lag-bound.js';

/** The block's fixed rate: `load` of the weakest capacity (or, without one, of the weakest saturated throughput). */
export function blockRate(cells, records, load) {
  const caps = cells.map((c) => {
    const rec = records.get(c.id);
    return { id: c.id, x: rec.capacity?.rps ?? Math.min(...rec.rounds.map((r) => r.rps)) };
  }).filter((e) => Number.isFinite(e.x) && e.x > 0);
  if (!caps.length) return null;
  const weakest = caps.reduce((a, b) => (b.x < a.x ? b : a));
  // Three significant figures: the same rate to within 1% from one run to the next.
  const raw = weakest.x * load;
  const digits = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 2);
  return { rate: Math.max(1, Math.floor(raw / digits) * digits), load, of: weakest.id, weakest: round(weakest.x, 1) };
}

/** The block's latency windows, one per round of latencyRounds, each kept with its round. */
export async function latencyWindows(run, cells) {
  const { records, params: p, ctx } = run;
  const asked = cells.filter((c) => c.latencyRounds && records.get(c.id).status !== 'failed');
  const at = blockRate(asked, records, p.latencyLoad);
  if (!at) return;
  for (const c of asked) records.get(c.id).latencyRate = at;
  const rounds = Math.max(...asked.map((c) => roundsOf(c, p)));
  for (const r of latencyRounds(rounds, Math.max(...asked.map((c) => c.latencyRounds)))) {
    const live = asked.filter((c) =>
      records.get(c.id).status !== 'failed' && records.get(c.id).rounds.some((x) => x.round === r));
    if (!live.length) continue;
    ctx.hooks.phase?.(`latency at ${at.rate} req/s (round ${r}): ${live.length} cells`);
    const slices = Math.max(...live.map((c) => latencySlicesOf(c, p)));
    const targets = live.map((c) => ({
      id: c.id,
      url: records.get(c.id).url,
      rate: at.rate,
      connections: Math.max(Math.min(c.connections, 256), socketsFor(at.rate)),
      usage: run.usageOf(c),
      request: c.request ?? null,
    }));
    // A block whose generator sent late for some cell is taken again, LATE_TRIES times in all; one
    // still late is kept, not held (judge/held-rate.js), so its verdict says why instead of a figure.
    const block = () => latencyBlock({ targets, slices, sliceS: p.latencySliceS, round: r, warmS: p.latencyWarmS });
    let byId = await block();
    let tries = 1;
    for (; tries < LATE_TRIES && [...byId.values()].some((x) => lateWhy(x.sendLagMs)); tries += 1) {
      const late = [...byId].filter(([, x]) => lateWhy(x.sendLagMs)).map(([id, x]) => `${id}: ${lateWhy(x.sendLagMs)}`);
      ctx.hooks.log?.(`  latency block of round ${r}, try ${tries} of ${LATE_TRIES}, not kept: ${late.join('; ')}`);
      byId = await block();
    }
    for (const c of live) {
      const paced = byId.get(c.id);
      records.get(c.id).rounds.find((x) => x.round === r).paced = tries > 1 ? { ...paced, tries } : paced;
    }
    ctx.hooks.tick?.(live.reduce((s, c) => s + latencyWindowCost(c, p), 0));
  }
}
