// Capacity at a latency target: the highest fixed (open-loop) rate a cell holds with its p99 under
// the target, nothing failed and at least 95% of the rate achieved. Searched as a fraction of the
// cell's saturated (closed-loop) throughput, by bisection over [range[0], range[1]] in `steps`
// one-slice steps; every cell of the block takes its step k in turn with the others (a fresh order
// every step), so a stall of the machine lands on every cell alike. A step at a rate beyond what
// the cell serves shows as a missed rate (the requests it could not answer in the slice) or as a
// p99 past the target (the queue they formed).
import * as paced from '../tools/paced.js';
import { sliceOrder, sliceSeed } from './measure-window.js';
import { heldOf } from '../judge/held-rate.js';
import { histogram } from '../judge/latency-histogram.js';
import { median, round } from '../judge/stats.js';
import { guarded } from './record.js';
import { lateWhy, LATE_TRIES } from '../judge/send-lag-bound.js';

/**
 * Connections the paced generator may open for a step: 60 ms of the rate in flight (a 50 ms wait
 * and its margin), at least 64, at most 2,048. Past them requests wait for a connection, and that
 * wait counts in their latency from the intended send: an overloaded step still shows as one.
 */
export const socketsFor = (rate) => Math.max(64, Math.min(2048, Math.ceil(rate * 0.06)));

/**
 * One step's outcome from one paced slice: held (rate achieved, no failure) and under the p99 target.
 * @param {{ rate: number, sliceS: number, p99TargetMs: number }} step @param {any} r paced.run's raw result
 */
export function stepOutcome({ rate, sliceS, p99TargetMs }, r) {
  const latencyMs = paced.latencySummary(r.latencies);
  const rec = {
    rate, requests: r.requests, rps: r.rps, errors: r.non2xx + r.socketErrors, slices: 1, sliceS,
    sliceHistograms: [histogram(r.latencies)], latencyMs,
  };
  const h = heldOf(rec);
  const over = latencyMs.p99 > p99TargetMs ? `p99 ${round(latencyMs.p99, 0)} ms over ${p99TargetMs} ms` : null;
  const why = [h.why, over].filter(Boolean).join(', ') || null;
  const lag = paced.latencySummary(r.lags);
  const late = lateWhy(lag);
  return {
    rate, held: h.held && !over, why, achieved: h.achieved, p99Ms: latencyMs.p99,
    errors: rec.errors, requests: r.requests, sendLagP99Ms: lag.p99, ...(late ? { late } : {}),
  };
}

/**
 * The bisection over fractions of the reference rate: the bracket after a step, which tried its middle.
 * Starts at the middle of `range`; a held step raises the floor, a missed one lowers the ceiling.
 */
const afterStep = ({ lo, hi }, f, held) => (held ? { lo: f, hi } : { lo, hi: f });

/**
 * A cell's capacity from its steps: the highest fraction held, the bracket, and the rate; none (with
 * `late`, why) when a step's generator sent late in every try: that step measured the generator.
 */
export function capacityOf({ reference, range, steps, p99TargetMs, sliceS }) {
  let bracket = { lo: range[0], hi: range[1] };
  for (const s of steps) bracket = afterStep(bracket, s.fraction, s.held);
  const late = steps.find((s) => s.late);
  const anyHeld = steps.some((s) => s.held) && !late;
  return {
    ...(late ? { late: `at ${late.rate} req/s ${late.late}` } : {}),
    p99TargetMs, sliceS, reference: round(reference, 1), range, steps,
    bracket: [round(bracket.lo, 4), round(bracket.hi, 4)],
    // None held: the capacity is below the range's floor, which was never shown to hold.
    fraction: anyHeld ? round(bracket.lo, 4) : null,
    rps: anyHeld ? round(bracket.lo * reference, 1) : null,
    rpsRange: [round(bracket.lo * reference, 1), round(bracket.hi * reference, 1)],
  };
}

/**
 * Searches every cell's capacity in turn, step by step (run: the scenario's run, interleave.js).
 * The reference of each cell: the median of its saturated rounds so far.
 */
export async function capacityBlock(run, cells) {
  const { records, params: p, ctx } = run;
  const steps = p.capacitySteps ?? 0;
  const live = () => cells.filter((c) => records.get(c.id).status !== 'failed' && records.get(c.id).rounds.length);
  if (!steps || !live().length) return;
  const sliceS = p.capacitySliceS ?? 1;
  const range = p.capacityRange ?? [0.5, 1.1];
  const p99TargetMs = p.sloP99Ms;
  // Each cell's search: what capacityOf takes, and the bracket so far.
  const state = new Map(live().map((c) => [c.id, {
    reference: median(records.get(c.id).rounds.map((r) => r.rps)),
    range, steps: [], p99TargetMs, sliceS,
    bracket: { lo: range[0], hi: range[1] },
  }]));
  for (let k = 0; k < steps; k += 1) {
    for (const c of sliceOrder(live(), sliceSeed(900 + k, 0))) {
      const st = state.get(c.id);
      const rec = records.get(c.id);
      ctx.hooks.phase?.(`capacity ${k + 1}/${steps} ${c.id}`);
      await guarded(rec, async () => {
        const fraction = (st.bracket.lo + st.bracket.hi) / 2;
        const rate = Math.max(1, Math.round(fraction * st.reference));
        // Its own connections for the step, closed after it: seven cells' idle sockets held
        // through a block ran the bench out of file descriptors.
        const usage = run.usageOf(c);
        // A step whose generator sent late is taken again, LATE_TRIES times in all.
        let step;
        for (let tries = 1; tries <= LATE_TRIES && (!step || step.late); tries += 1) {
          const agent = paced.keepAliveAgent(socketsFor(rate));
          const before = await usage();
          const r = await paced.run({ url: rec.url, rate, durationS: sliceS, agent, raw: true, ...(c.request ?? {}) })
            .finally(() => agent.destroy());
          const after = await usage();
          step = {
            fraction: round(fraction, 4),
            ...stepOutcome({ rate, sliceS, p99TargetMs }, r),
            cpuMs: round((after.cpuNs - before.cpuNs) / 1e6, 1),
            ...(tries > 1 ? { tries } : {}),
          };
        }
        st.steps.push(step);
        st.bracket = afterStep(st.bracket, fraction, step.held);
      });
      ctx.hooks.tick?.(sliceS + 0.05);
    }
  }
  for (const [id, st] of state) records.get(id).capacity = capacityOf(st);
}
