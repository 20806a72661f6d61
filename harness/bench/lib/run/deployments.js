// Starting and stopping deployments through the engine's Runner (the run's context holds it),
// pinned to the CPUs of the system under test, and reading what one topology of a deployment costs.
import { describeSample } from '../samples.js';
import { servicesOf } from '../topologies.js';
import { track } from '../cleanup.js';

/** Stops whatever the runner started in runDir (also half-way through an up(): down() waits for it). */
export const stopRunDir = (runner, runDir) => runner.down({ runDir });

/**
 * Starts a deployment: { sample, env } through the engine runner's up, pinned to `cpuset` under `budget`.
 * needsDb: false starts the app without its database where the sample says how (x-bench.without_database);
 * knownDatabaseError: that database already failed to start here (said why), so it isn't tried again.
 * Returns { state, runner, withDatabase, databaseError, url(topology), usage(topology), stop() }.
 */
export async function startDeployment(runner, dep, { runDir, cpuset, budget, build = true, needsDb = false, knownDatabaseError = null, log }) {
  const engine = runner.engine;
  const s = describeSample(dep.sample);
  const untrack = track(() => stopRunDir(runner, runDir));
  const files = engine === 'docker' && s.docker?.compose_file ? { COMPOSE_FILE: s.docker.compose_file } : {};
  const base = { sample: dep.sample, runDir, env: { HTTP_PORT: '0', ...files, ...dep.env }, cpuset, budget, priority: true, build, log };
  // Without its database server: the sample's own recipe (x-bench.without_database): an environment,
  // and where it says so, only some services (with no dependencies).
  const w = s.withoutDatabase;
  const alone = { ...base, env: { ...base.env, ...(w?.env ?? {}) }, ...(w?.services ? { services: w.services, noDeps: true } : {}) };
  let state;
  let databaseError = null;
  let startedAlone = false;
  try {
    if (s.database && !needsDb && s.withoutDatabase) {
      startedAlone = true;
      state = await runner.up(alone);
    } else if (knownDatabaseError && s.withoutDatabase) {
      // Another deployment of this sample already found its database can't run here: don't retry.
      databaseError = knownDatabaseError;
      startedAlone = true;
      state = await runner.up(alone);
    } else {
      try {
        state = await runner.up(base);
      } catch (e) {
        // The database may not run on this machine: measure what doesn't need it.
        if (!s.withoutDatabase) throw e;
        databaseError = e.message;
        log?.(`${dep.sample}: starting without its database (${e.message})`);
        await stopRunDir(runner, runDir);
        startedAlone = true;
        state = await runner.up(alone);
      }
    }
  } catch (e) {
    await stopRunDir(runner, runDir).catch(() => {});
    untrack();
    throw new Error(`cannot start ${dep.sample}: ${e.message}`, { cause: e });
  }
  // A database the runner skips locally (x-local.skip) is stood in for inside the app (SQLite).
  const withDatabase = !startedAlone;
  return {
    state,
    runDir,
    // The engine's runner module, for what acts on the running deployment (the drills).
    runner,
    withDatabase,
    databaseError,
    url: (t) => {
      const svc = t.viaNginx ? s.proxy : s.app;
      const url = t.viaNginx ? state.url : state.services[svc]?.instances?.[0]?.url;
      if (!url) throw new Error(`${dep.sample}: the runner reported no URL for ${svc}`);
      return url.replace(/\/$/, '');
    },
    // CPU ns and memory of the services the topology covers: its app, nginx if through it, and its
    // database for the workload that uses it.
    usage: async (t, workload) => {
      const u = await runner.usage({ runDir });
      const wanted = servicesOf(t, { withDatabase: workload === 'db' });
      const mine = u.instances.filter((i) => wanted.includes(i.service));
      return {
        source: u.source,
        cpuNs: mine.reduce((sum, i) => sum + (i.cpuNs ?? 0), 0),
        // By role, for what bounded a cell (bottleneck.js): the app's own, nginx's, the store's.
        cpuNsBy: Object.fromEntries([['app', s.app], ['proxy', s.proxy], ['database', s.database]].filter(([, svc]) => svc && wanted.includes(svc))
          .map(([role, svc]) => [role, mine.filter((i) => i.service === svc).reduce((sum, i) => sum + (i.cpuNs ?? 0), 0)])),
        pssMiB: mine.reduce((sum, i) => sum + i.memory.pssMiB, 0),
        anonMiB: mine.reduce((sum, i) => sum + i.memory.anonMiB, 0),
        rssMiB: mine.reduce((sum, i) => sum + i.memory.rssMiB, 0),
        processes: mine.reduce((sum, i) => sum + i.memory.processes, 0),
        threads: mine.filter((i) => i.service === s.app).reduce((sum, i) => sum + i.memory.threads, 0),
        contextSwitches: mine.filter((i) => i.service === s.app).reduce((sum, i) => ({ voluntary: sum.voluntary + i.memory.contextSwitches.voluntary, involuntary: sum.involuntary + i.memory.contextSwitches.involuntary }), { voluntary: 0, involuntary: 0 }),
        throttling: Object.fromEntries(mine.filter((i) => i.throttling).map((i) => [i.name, i.throttling])),
      };
    },
    instanceUrls: () => (state.services[s.app]?.instances ?? []).map((i) => i.url),
    signal: (index, sig) => runner.signal({ runDir, service: s.app, index, signal: sig }),
    // Down for good (as `docker kill`: no restart policy brings it back), for the experiments.
    killHeld: (index) => runner.killHeld({ runDir, service: s.app, index }),
    // Each app instance's own GET / (e.g. the delay each replica drew), in instance order.
    describeInstances: () => Promise.all((state.services[s.app]?.instances ?? []).map(async (i) => {
      const res = await fetch(`${i.url}/`, { signal: AbortSignal.timeout(15_000) });
      const body = /** @type {{ instance?: string, delayMs?: number }} */ (await res.json());
      return { instance: body.instance ?? i.name, delayMs: body.delayMs ?? null };
    })),
    stop: async () => { try { await stopRunDir(runner, runDir); } finally { untrack(); } },
  };
}
