// The rollout drill: the strategy's own rolling restart of the app under the same fixed rate of
// mixed traffic as the fault drill, counting what the clients saw while every process was
// replaced one at a time, and what the store kept. `roll`:
//   reload   the runner's reload (make reload): start-first behind nginx for replicas, the
//            process manager's own rolling restart (SIGHUP) where the app names a reload signal
//   restart  each instance stopped and started again in place: a lone process's deploy, which
//            nothing serves while it restarts (the counter-example)
import { withDefaults, drillUnderLoad, eventsRecord, instancesOf } from './under-load.js';

export const ROLLS = ['reload', 'restart'];

/** @param {import('./under-load.js').Where & { log: (line: string) => void }} options */
async function restartInPlace({ runner, runDir, service, log }) {
  const rows = await instancesOf(runner, runDir, service);
  if (!rows.length) throw new Error(`no running instance of '${service}' to restart`);
  const began = Date.now();
  const steps = [];
  for (const r of rows) {
    const t = Date.now();
    log(`${r.name}: stopped and started again in place`);
    const now = await runner.restart({ runDir, service, index: r.index });
    steps.push({ instance: r.name, from: { pid: r.pid }, to: { pid: now.pid }, startedAt: t, tookMs: Date.now() - t });
  }
  return { strategy: 'restart', zeroDowntime: false, steps, tookMs: Date.now() - began };
}

/**
 * rolloutDrill({ runner, runDir, sample, service = 'app', url, roll = 'reload', rate, mix, app, about, log }):
 * the roll under the load (the runner: the engine's, the processes backend by default). Returns
 * { kind: 'rollout', ...about, engine, roll, rolledBy (the runner's way: proxy | signal | restart),
 * zeroDowntime, steps: [{ instance, from, to, startedAtMs, tookMs, outageMs, failed: { get, post } }],
 * reloadMs, get, post, latencyMs, backMs, outageMs, writes, durationS, rate, mix }.
 * A rollout that stops (a new instance never healthy) throws its one-line reason.
 * @param {import('./under-load.js').DrillOptions & { sample?: string, roll?: string }} options */
export async function rolloutDrill(options) {
  const o = withDefaults(options);
  const { runner, runDir, service, about, log } = o;
  const { sample, roll = 'reload' } = options;
  if (!ROLLS.includes(roll))
    throw new Error(`roll must be ${ROLLS.map((r) => `'${r}'`).join(' or ')} (got ${JSON.stringify(roll)})`);
  const tag = `rollout-${about.strategy ?? roll}`;
  const run = await drillUnderLoad({ ...o, name: about.app ?? sample, tag }, () =>
    roll === 'restart'
      ? restartInPlace({ runner, runDir, service, log })
      : runner.reload({ runDir, sample, service, log }),
  );
  const { result } = run;
  const timed = result.steps.map(({ startedAt, ...s }) => ({ ...s, startedAtMs: startedAt - run.startedAt }));
  const { events: steps, ...rest } = eventsRecord(run, timed, {
    startOf: (s) => s.startedAtMs,
    backOf: (s) => s.tookMs,
  });
  return {
    kind: 'rollout',
    ...about,
    engine: runner.engine ?? null,
    roll,
    rolledBy: result.strategy,
    zeroDowntime: result.zeroDowntime,
    steps,
    reloadMs: result.tookMs,
    ...rest,
  };
}
