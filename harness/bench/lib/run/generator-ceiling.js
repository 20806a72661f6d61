// Generator ceiling: each tool against a bare nginx `return 200` (ceiling/compose.yaml), with the
// generator and nginx pinned as the topologies will be. A result above GENERATOR_BOUND of it says
// more about the generator than about the server (judge/bottleneck.js). A closed-loop tool's ceiling is its req/s; the
// paced generator's is the highest rate it holds (pacedCeiling).
import { fileURLToPath } from 'node:url';
import { getTool } from '../tools/index.js';
import * as paced from '../tools/paced.js';
import { track } from './cleanup.js';

/**
 * A paced step is held when it answered this share of its rate, sent with a p99 lag under
 * PACED_LAG_MS, and nothing failed.
 */
export const PACED_HELD_SHARE = 0.95;
export const PACED_LAG_MS = 20;
const CEILING = fileURLToPath(new URL('../../ceiling', import.meta.url));

/**
 * Measures each named tool's ceiling (req/s) with the isolation the cells get, on the run's Runner.
 * @param {string[]} toolNames
 * @param {{ runner: import('../../../runner/index.js').Runner, runDir: string, isolation: any,
 *   durationS?: number, connections?: number,
 *   onStep?: (line: string) => void }} options
 */
export async function measureCeilings(toolNames, options) {
  const { runner, runDir, isolation, durationS = 5, connections = 64, onStep } = options;
  if (toolNames.length === 0) return {};
  const untrack = track(() => runner.down({ runDir }));
  const out = {};
  try {
    const state = await runner.up({
      sample: CEILING, runDir, env: { HTTP_PORT: '0' }, cpuset: isolation.pinned ? isolation.sutCpus : undefined,
      budget: isolation.budgetCpus, priority: true,
    });
    const url = `${state.url}/`;
    for (const name of toolNames) {
      onStep?.(`generator ceiling: ${name}`);
      if (name === 'paced') {
        out[name] = await pacedCeiling({ url, connections, stepS: durationS, threads: isolation.generatorThreads });
        continue;
      }
      const r = await getTool(name).run({ url, connections, durationS, threads: isolation.generatorThreads });
      out[name] = { rps: Math.round(r.rps), connections, durationS, latencyMs: r.latencyMs };
    }
  } finally {
    await runner.down({ runDir });
    untrack();
  }
  return out;
}

/** Whether a paced step held its rate, and if not why. */
export function pacedHeld(rate, r) {
  const achieved = r.requests / r.durationS;
  const why = [];
  if (achieved < PACED_HELD_SHARE * rate) why.push(`answered ${Math.round(achieved)} of ${rate} req/s`);
  if (!(r.sendLagMs.p99 < PACED_LAG_MS)) why.push(`send lag p99 ${r.sendLagMs.p99} ms`);
  if (r.non2xx + r.socketErrors > 0) why.push(`${r.non2xx + r.socketErrors} failed`);
  return { achieved, held: why.length === 0, why: why.join(', ') || null };
}

/**
 * The highest rate the paced generator holds against `url` (see pacedHeld): from `startRate` up by
 * ×growth while rates hold, then halving the bracket until it is within `resolution`, at most
 * maxSteps rates, each tried up to `tries` times for stepS (a rate fails only if every try
 * fails: a stall of the machine is not the generator's limit, which fails every time), on
 * connections kept from one step to the next. `run` is paced.run (a test may count its calls).
 * Returns { rps (the highest held rate; 0 if none), bracket, bracketed, connections, threads, stepS,
 * lagP99LimitMs, steps: [{ rate, try, achievedRps, lagP99Ms, p99Ms, held, why }] }.
 * @param {{ url: string, connections?: number, threads?: number, stepS?: number, startRate?: number,
 *   growth?: number, resolution?: number, maxSteps?: number, tries?: number, warmS?: number,
 *   run?: (options: any) => Promise<any> }} options
 */
export async function pacedCeiling({
  url, connections = 64, threads = 1, stepS = 2, startRate = 10_000, growth = 2, resolution = 0.05, maxSteps = 10,
  tries = 2, warmS = 2, run = paced.run,
}) {
  const agent = paced.keepAliveAgent(connections, { threads });
  const steps = [];
  let lo = 0;
  let hi = null;
  let rate = Math.round(startRate);
  try {
    // Not counted: connections opened, and the code compiled — on a generator pinned to one core the
    // compiler's threads share it, and the first second after start-up sends late.
    await run({ url, rate, durationS: warmS, agent });
    for (let i = 0; i < maxSteps; i += 1) {
      let step = null;
      for (let t = 1; t <= tries && !step?.held; t += 1) {
        const r = await run({ url, rate, durationS: stepS, agent });
        const { achieved, held, why } = pacedHeld(rate, r);
        step = {
          rate, try: t, achievedRps: Math.round(achieved), lagP99Ms: r.sendLagMs.p99, p99Ms: r.latencyMs.p99, held, why,
        };
        steps.push(step);
      }
      if (step.held) lo = rate; else hi = rate;
      if (hi !== null && lo > 0 && (hi - lo) / hi <= resolution) break;
      // Past its limit the generator still answers about what it can: a first guess below it.
      const next = Math.round(hi === null
        ? rate * growth
        : lo === 0 ? Math.min(hi / growth, step.achievedRps) : (lo + hi) / 2);
      if (next < 1 || next === lo || next === hi) break;
      rate = next;
    }
  } finally {
    await agent.destroy();
  }
  return {
    rps: lo, bracket: [lo, hi], bracketed: lo > 0 && hi !== null, connections, threads, stepS,
    lagP99LimitMs: PACED_LAG_MS, steps,
  };
}
