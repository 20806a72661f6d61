// The rollout drill: `make reload` of the app under the same fixed rate of mixed traffic as the
// fault drill, counting what the clients saw while every instance was replaced one at a time.
import { runnerFor } from '../../../runner/index.js';
import { underLoad, checkMix, failuresBetween, traffic } from './under-load.js';

const processes = runnerFor('processes');

/**
 * rolloutDrill({ runner, runDir, sample, service = 'app', url, rate, mix, log }): `runner`'s reload
 * (the engine's runner module, the processes backend by default) under the load. Returns the fault
 * drill's shape without kills — { strategy, zeroDowntime, steps: [{ instance, from, to, startedAtMs,
 * tookMs, failed: { get, post } }], reloadMs, get, post, latencyMs, durationS, rate, mix }.
 * A rollout that stops (a new instance never healthy) throws its one-line reason.
 */
/** @param {{ runner?: Partial<import('../../../runner/index.js').Runner>, runDir: string, sample?: string, service?: string, url: string, rate?: number, mix: object, log?: (line: string) => void, settleMs?: number }} options */
export async function rolloutDrill({ runner = processes, runDir, sample, service = 'app', url, rate = 100, mix, log = () => {}, settleMs = 1000 }) {
  checkMix(mix);
  const { records, result, durationS } = await underLoad({ url, rate, mix, settleMs }, async (load) => {
    const began = load.now();
    const r = await runner.reload({ runDir, sample, service, log });
    return { ...r, beganMs: began, startedAt: load.startedAt };
  });
  const steps = result.steps.map((s) => ({ ...s, startedAtMs: s.startedAt - result.startedAt }))
    .map(({ startedAt, ...s }, i, all) => ({ ...s, failed: failuresBetween(records, s.startedAtMs, all[i + 1]?.startedAtMs ?? Infinity) }));
  return {
    strategy: result.strategy,
    zeroDowntime: result.zeroDowntime,
    steps,
    reloadMs: result.tookMs,
    ...traffic(records, { rate, mix, durationS }),
  };
}
