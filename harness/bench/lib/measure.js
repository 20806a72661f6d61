// One measurement: verify, warm up, repeat, summarise.
import { getTool, pacedToolName } from './tools/index.js';
import { summarise, round } from './stats.js';
import { isGeneratorBound } from './ceiling.js';
import { verify } from './verify.js';

const slim = (r) => ({
  rps: round(r.rps), requests: r.requests, durationS: round(r.durationS, 2),
  latencyMs: { p50: r.latencyMs.p50, p99: r.latencyMs.p99, max: r.latencyMs.max },
  non2xx: r.non2xx, socketErrors: r.socketErrors,
});

/** Closed loop: `connections` clients each send the next request when the last one answered. */
export async function closedLoop({ url, workload, tool, connections, durationS, warmupS, repeats, ceilings, tick }) {
  await verify(url, workload);
  const gen = getTool(tool);
  if (warmupS > 0) await gen.run({ url, connections, durationS: warmupS });
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    runs.push(await gen.run({ url, connections, durationS }));
    tick?.();
  }
  const summary = summarise(runs);
  if (summary.requests === 0) throw new Error(`no request completed in ${repeats} × ${durationS} s at ${connections} connections (too slow for this duration, or hung)`);
  return {
    tool, connections, durationS, warmupS, repeats,
    ...summary,
    ceilingRps: ceilings?.[tool]?.rps ?? null,
    generatorBound: isGeneratorBound(summary.rps, ceilings?.[tool]?.rps),
    runs: runs.map(slim),
  };
}

/** A fixed number of requests from a fixed number of users (the tutorials' "10 users x 5 requests"). */
export async function fixedCount({ url, workload, tool, connections, amount, tick }) {
  await verify(url, workload);
  const name = pacedToolName(tool);
  const r = await getTool(name).run({ url, connections, amount, durationS: 60 });
  tick?.();
  return { tool: name, connections, amount, ...slim(r) };
}

/** Open loop at `rate` req/s for durationS; passes when p99 < limit, no errors and the rate was met. */
export async function fixedRate({ url, tool, rate, durationS, p99LimitMs, connections }) {
  const name = pacedToolName(tool);
  const r = await getTool(name).run({ url, rate, durationS, connections, timeoutS: 5 });
  const achieved = r.requests / durationS;
  const ok = r.latencyMs.p99 !== null && r.latencyMs.p99 < p99LimitMs
    && r.non2xx === 0 && r.socketErrors === 0 && achieved >= 0.9 * rate;
  return { rate, achievedRps: round(achieved), ok, ...slim(r), tool: name };
}

/**
 * The highest fixed rate with p99 < limit: double from `startRate` until a step fails, then bisect.
 * Bounded by maxSteps; a step that fails leaves a backlog, so wait coolS before the next one.
 */
export async function searchRate({ url, workload, tool, startRate, maxSteps, stepS, p99LimitMs = 500, coolS = 1, maxRate, ceilings, tick }) {
  await verify(url, workload);
  const steps = [];
  let lo = 0;
  let hi = null;
  let rate = Math.max(1, Math.round(startRate));
  for (let i = 0; i < maxSteps; i++) {
    const connections = Math.max(10, Math.min(1000, Math.ceil(rate * 0.2)));
    const step = await fixedRate({ url, tool, rate, durationS: stepS, p99LimitMs, connections });
    steps.push(step);
    tick?.();
    if (step.ok) lo = rate; else { hi = rate; await new Promise((r) => setTimeout(r, coolS * 1000)); }
    if (hi !== null && hi - lo <= Math.max(1, 0.1 * hi)) break;
    if (step.ok && maxRate && rate >= maxRate) break;
    let next = hi === null ? rate * 2 : Math.round((lo + hi) / 2);
    if (lo === 0 && hi !== null) next = Math.max(1, Math.round(hi / 4));
    if (maxRate) next = Math.min(next, maxRate);
    if (next === rate) break;
    rate = next;
  }
  const toolName = pacedToolName(tool);
  return {
    tool: toolName, p99LimitMs, stepS,
    maxRate: lo,
    bracketed: hi !== null,
    generatorBound: isGeneratorBound(lo, ceilings?.[toolName]?.rps),
    steps,
  };
}
