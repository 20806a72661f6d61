// Topologies: a sample started through the local runner with some knobs (REPLICAS, WORKERS,
// CPUS, LB, ...), reached either through its nginx or directly on one app instance.
// `url` topologies point at something already running (used by the tests).
import { readFile, readdir } from 'node:fs/promises';
import { childPids } from '../../runner/processes.js';

const RUNNER = new URL('../../runner/index.js', import.meta.url);

// The compose service that runs each sample's app.
export const APP_SERVICE = { 'node-replicas': 'app', 'node-cluster': 'app', 'dotnet-api': 'app' };

let runnerPromise;
export function loadRunner() {
  runnerPromise ??= import(RUNNER.href).catch((e) => {
    runnerPromise = undefined;
    throw new Error(`the local runner (harness/runner/index.js) cannot be loaded: ${e.message}`);
  });
  return runnerPromise;
}

/** Pids whose command line names this run folder (nginx runs with `-p <runDir>/nginx`). */
export async function pidsUnder(runDir) {
  const out = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if ((await readFile(`/proc/${name}/cmdline`, 'utf8')).includes(`${runDir}/`)) out.push(Number(name));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** Stops whatever the runner started in runDir (also half-way through an up()). */
export async function stopRunDir(runDir) {
  const runner = await loadRunner();
  await runner.down({ runDir });
  // Belt and braces: anything still running from this run folder (e.g. started while down() ran).
  for (const pid of await pidsUnder(runDir)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
}

/** A stable id for grouping and for the results JSON. */
export function topologyKey(t) {
  if (t.url) return `url:${t.url}`;
  const env = Object.entries(t.env ?? {}).sort().map(([k, v]) => `${k}=${v}`).join(',');
  return `${t.sample}${t.direct ? ':direct' : ''}[${env}]`;
}


/**
 * Starts a topology. Returns {url, state, cpuLimits, signal(index, sig), restart(index), workers(), stop()}.
 */
// Started without its database (and with a database address nobody answers on), a sample still
// serves its CPU and delay routes; used when no cell needs the database, or the database can't run.
const APP_ONLY_ENV = { 'node-cluster': { MONGODB_URI_LOCAL: 'mongodb://127.0.0.1:9/items' } };

// The runner reads knobs from the caller's environment too: pin the ones a topology doesn't set,
// so `LB=hash make bench` or a stray DELAY_MS can't change what a scenario measures.
const NEUTRAL_KNOBS = { LB: 'least_conn', WORKERS: '', CLUSTERING_ENABLED: '', DELAY_MS: '', DELAY_RANDOM_MAX_MS: '', SLOW_INSTANCE: '', MEMORY: '' };

export const canRunAppOnly = (t) => Boolean(t.direct && APP_ONLY_ENV[t.sample]);

export async function startTopology(t, { runDir, log, portEnv = 'HTTP_PORT', appOnly = false, build = true } = {}) {
  if (t.url) {
    return { url: t.url.replace(/\/$/, ''), state: null, cpuLimits: null, stop: async () => {} };
  }
  const runner = await loadRunner();
  const service = APP_SERVICE[t.sample] ?? 'app';
  appOnly = appOnly && canRunAppOnly(t);
  const env = { [portEnv]: '0', ...NEUTRAL_KNOBS, ...t.env, ...(appOnly ? APP_ONLY_ENV[t.sample] : {}) };
  // build: false asks the runner to skip x-local.build (already done once in this run).
  const opts = { sample: t.sample, runDir, env, log, build };
  if (t.direct) opts.services = [service];
  if (appOnly) opts.noDeps = true;
  let state;
  try {
    state = await runner.up(opts);
  } catch (e) {
    await runner.down({ runDir }).catch(() => {});
    throw new Error(`cannot start ${t.label ?? t.sample}: ${e.message}`);
  }
  const instances = state.services?.[service]?.instances ?? [];
  const url = t.direct ? instances[0]?.url : state.url;
  if (!url) {
    await runner.down({ runDir }).catch(() => {});
    throw new Error(`${t.sample}: the runner reported no URL (service "${service}")`);
  }
  return {
    url: url.replace(/\/$/, ''),
    state,
    cpuLimits: state.cpuLimits ?? null,
    signal: (index, sig) => runner.signal({ runDir, service, index, signal: sig }),
    restart: (index) => runner.restart({ runDir, service, index }),
    // Instance pids as the runner knows them (the cluster primary, for node-cluster).
    pids: () => instances.map((i) => i.pid),
    workers: () => childPids(instances[0]?.pid),
    instanceCount: instances.length,
    appOnly,
    stop: () => stopRunDir(runDir),
  };
}

export function describe(t) {
  return t.label ?? (t.url ? t.url : `${t.sample} ${JSON.stringify(t.env ?? {})}`);
}
