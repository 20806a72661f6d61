// Starting and stopping deployments through the engine's Runner (the run's context holds it),
// pinned to the CPUs of the system under test, and reading what one topology of a deployment costs.
import { describeSample } from '../topologies/app-descriptions.js';
import { servicesOf } from '../topologies/topology.js';
import { track } from './cleanup.js';
import { WORKLOADS } from '../workloads/index.js';

/** @typedef {import('../../../runner/index.js').Runner} Runner */

// Up with its database, or without it where it needn't or can't have it (`alone`: the sample's own
// recipe): { state, databaseError, startedAlone }.
/** @param {Runner} runner @param {any} s @param {any} options */
async function upWithOrWithoutDatabase(runner, s, { base, alone, needsDb, knownDatabaseError }) {
  const upAlone = async (databaseError) => ({ state: await runner.up(alone), databaseError, startedAlone: true });
  if (s.database && !needsDb && s.withoutDatabase) return upAlone(null);
  // Another deployment of this sample already found its database can't run here: don't retry.
  if (knownDatabaseError && s.withoutDatabase) return upAlone(knownDatabaseError);
  try {
    return { state: await runner.up(base), databaseError: null, startedAlone: false };
  } catch (e) {
    // The database may not run on this machine: measure what doesn't need it.
    if (!s.withoutDatabase) throw e;
    base.log?.(`${base.sample}: starting without its database (${e.message})`);
    await runner.down({ runDir: base.runDir });
    return upAlone(e.message);
  }
}

const sumOf = (xs, f) => xs.reduce((sum, i) => sum + f(i), 0);

// CPU ns and memory of the services a topology covers: its app, nginx if through it, and its
// database for the workload that uses it.
/** @param {Runner} runner @param {string} runDir @param {any} s */
const usageReader = (runner, runDir, s) => async (t, workload) => {
  const u = await runner.usage({ runDir });
  const wanted = servicesOf(t, { withDatabase: Boolean(WORKLOADS[workload]?.database) });
  const mine = u.instances.filter((i) => wanted.includes(i.service));
  const roles = [['app', s.app], ['proxy', s.proxy], ['database', s.database]]
    .filter(([, svc]) => svc && wanted.includes(svc));
  const app = mine.filter((i) => i.service === s.app);
  return {
    source: u.source,
    cpuNs: sumOf(mine, (i) => i.cpuNs ?? 0),
    // By role, for what bounded a cell (judge/bottleneck.js): the app's own, nginx's, the store's.
    cpuNsBy: Object.fromEntries(roles.map(([role, svc]) =>
      [role, sumOf(mine.filter((i) => i.service === svc), (i) => i.cpuNs ?? 0)])),
    // Each app instance's own, for the spread of CPU over them (run/app-metrics.js).
    cpuNsByInstance: Object.fromEntries(app.map((i) => [i.name, i.cpuNs ?? 0])),
    ...Object.fromEntries(['pssMiB', 'anonMiB', 'rssMiB', 'processes']
      .map((k) => [k, sumOf(mine, (i) => i.memory[k])])),
    threads: sumOf(app, (i) => i.memory.threads),
    contextSwitches: Object.fromEntries(['voluntary', 'involuntary']
      .map((k) => [k, sumOf(app, (i) => i.memory.contextSwitches[k])])),
    throttling: Object.fromEntries(mine.filter((i) => i.throttling).map((i) => [i.name, i.throttling])),
  };
};

/**
 * Starts a deployment: { sample, env } through the engine runner's up, pinned to `cpuset` under `budget`.
 * needsDb: false starts the app without its database where the sample says how (x-bench.without_database);
 * knownDatabaseError: that database already failed to start here (said why), so it isn't tried again.
 * Returns { state, runner, withDatabase, databaseError, url(topology), usage(topology), stop() }.
 * @param {Runner} runner @param {any} dep @param {any} opts
 */
export async function startDeployment(runner, dep, opts) {
  const { runDir, cpuset, budget, build = true, needsDb = false, knownDatabaseError = null, log } = opts;
  const s = describeSample(dep.sample);
  // down() stops whatever the runner started in runDir, also half-way through an up() (it waits for it).
  const untrack = track(() => runner.down({ runDir }));
  const files = runner.engine === 'docker' && s.docker?.compose_file ? { COMPOSE_FILE: s.docker.compose_file } : {};
  const env = { HTTP_PORT: '0', ...files, ...dep.env };
  const base = { sample: dep.sample, runDir, env, cpuset, budget, priority: true, build, log };
  // Without its database server: the sample's own recipe (x-bench.without_database): an environment,
  // and where it says so, only some services (with no dependencies).
  const w = s.withoutDatabase;
  const services = w?.services ? { services: w.services, noDeps: true } : {};
  const alone = { ...base, env: { ...base.env, ...(w?.env ?? {}) }, ...services };
  const up = upWithOrWithoutDatabase(runner, s, { base, alone, needsDb, knownDatabaseError });
  const { state, databaseError, startedAlone } = await up.catch(async (e) => {
    await runner.down({ runDir }).catch(() => {});
    untrack();
    throw new Error(`cannot start ${dep.sample}: ${e.message}`, { cause: e });
  });
  const instances = () => state.services[s.app]?.instances ?? [];
  return {
    state,
    runDir,
    // The engine's runner module, for what acts on the running deployment (the drills).
    runner,
    // A database the runner skips locally (x-local.skip) is stood in for inside the app (SQLite).
    withDatabase: !startedAlone,
    databaseError,
    url: (t) => {
      const svc = t.viaNginx ? s.proxy : s.app;
      const url = t.viaNginx ? state.url : state.services[svc]?.instances?.[0]?.url;
      if (!url) throw new Error(`${dep.sample}: the runner reported no URL for ${svc}`);
      return url.replace(/\/$/, '');
    },
    usage: usageReader(runner, runDir, s),
    instanceUrls: () => instances().map((i) => i.url),
    // Each app instance's /metrics where it has a metrics port: on loopback (processes engine: the
    // sample's x-local extra_ports_env), or at the container's address on its network (Docker).
    appMetricsUrls: () => instances().filter((i) => i.extraPorts?.METRICS_PORT)
      .map((i) => `http://${i.host ?? '127.0.0.1'}:${i.extraPorts.METRICS_PORT}/metrics`),
    // Down for good (as `docker kill`: no restart policy brings it back), for the experiments.
    killHeld: (index) => runner.killHeld({ runDir, service: s.app, index }),
    // Each app instance's own GET / (e.g. the delay each replica drew), in instance order.
    describeInstances: () => Promise.all(instances().map(async (i) => {
      const res = await fetch(`${i.url}/`, { signal: AbortSignal.timeout(15_000) });
      const body = /** @type {{ instance?: string, delayMs?: number }} */ (await res.json());
      return { instance: body.instance ?? i.name, delayMs: body.delayMs ?? null };
    })),
    stop: async () => { try { await runner.down({ runDir }); } finally { untrack(); } },
  };
}
