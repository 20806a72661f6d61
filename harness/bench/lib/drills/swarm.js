// The Swarm rolling update drill: the app's stack deployed as its README says (`docker stack deploy
// -c compose.yaml -c compose.swarm.yaml`, with the swarm file of each extra compose file the bench
// runs on Docker, e.g. compose.swarm.postgres.yaml), then `docker service update --force` of the
// app's service — Swarm's own rolling update, start-first, one task at a time — under the same fixed
// rate of GETs and POSTs as every drill, the writes counted in the stack's store where it runs.
// Swarm takes a task out of its DNS before it signals it, where plain Compose keeps a stopping
// container's address until it has exited: the two are drilled apart.
// The engine: the bench's private daemon, made a single-node Swarm for the drill and left again
// after; an engine the run did not start is used only if it is a Swarm manager already.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { runCommand } from '../../../runner/index.js';
import { freePort } from '../../../lib/ports.js';
import { waitFor } from '../../../lib/poll.js';
import { drillUnderLoad, checkMix, eventsRecord, inTurn } from './under-load.js';

/** The compose files of the app's stack, in its folder: compose.yaml, compose.swarm.yaml and the swarm extras. */
export function stackFiles(app) {
  const extra = String(app.docker?.compose_file ?? '')
    .split(':')
    .filter((f) => f && f !== 'compose.yaml')
    .map((f) => f.replace(/^compose\./, 'compose.swarm.'))
    .filter((f) => fs.existsSync(path.join(app.dir, f)));
  return ['compose.yaml', 'compose.swarm.yaml', ...extra];
}

/**
 * Why the app's `processes` replicas can't be rolled on a single-node Swarm (the bench's own daemon;
 * one line), or null: no compose.swarm.yaml, or a stack that places fewer app tasks per node than
 * that (a stack of this repository may place one per node, for machines of their own: start-first
 * needs a slot beside each old task, so there the update waits for a node that never comes).
 */
export function whyNoSwarm(app, processes) {
  const file = path.join(app.dir, 'compose.swarm.yaml');
  if (!fs.existsSync(file)) return `${app.folder} has no compose.swarm.yaml`;
  const cap = YAML.parse(fs.readFileSync(file, 'utf8'))?.services?.[app.app]?.deploy?.placement?.max_replicas_per_node;
  if (Number.isInteger(cap) && cap < processes)
    return `${app.folder}'s stack places at most ${cap} ${app.app} task per node (max_replicas_per_node): ` +
      `a single-node Swarm can't run ${processes} of them, nor roll one start-first`;
  return null;
}

/**
 * `docker <args>` against the engine, with `vars` in its environment; throws one line unless check is false.
 * @param {string | null | undefined} host @param {Record<string, string>} [vars]
 */
export function dockerOf(host, vars = {}) {
  const env = { ...process.env, ...vars, ...(host ? { DOCKER_HOST: host } : {}) };
  /** @param {string[]} args @param {{ cwd?: string, timeoutMs?: number, check?: boolean }} [options] */
  return async (args, { cwd, timeoutMs = 120_000, check = true } = {}) => {
    const res = await runCommand('docker', args, { cwd, env, timeoutMs });
    if (check && res.code !== 0) {
      const why = (res.stderr || res.stdout).trim().split('\n').slice(-2).join(' | ');
      throw new Error(`docker ${args.slice(0, 2).join(' ')}: ${why}`);
    }
    return res;
  };
}

// The stack's containers of one service (a task each), as `docker ps` lists them.
async function tasksOf(docker, service, { healthy = false } = {}) {
  const filters = ['--filter', `label=com.docker.swarm.service.name=${service}`];
  if (healthy) filters.push('--filter', 'health=healthy');
  const res = await docker(['ps', '-q', ...filters]);
  return res.stdout.split('\n').filter(Boolean);
}

// The Swarm drill's waits: a check that throws is "not yet" (a refused connection while nginx starts).
const until = (what, check, timeoutMs) => waitFor(check, { what, timeoutMs, everyMs: 1000, retryErrors: true });

/** A runner's exec() (writes.js readBack): in the first container `idsOf(service)` lists, {port} its image's port. */
export function execIn(docker, idsOf) {
  return async ({ service, argv, timeoutMs }) => {
    const [id] = await idsOf(service);
    if (!id) throw new Error(`no running container of ${service}`);
    const exposed = JSON.parse((await docker(['inspect', '--format', '{{json .Config.ExposedPorts}}', id])).stdout);
    const port = Object.keys(exposed ?? {}).map((p) => p.split('/')[0])[0] ?? '';
    return docker(['exec', id, ...argv.map((a) => a.replaceAll('{port}', port))], { timeoutMs, check: false });
  };
}

// The app's image built (Swarm ignores build:, so it is the one `docker compose build` tags) and its
// stack deployed from its folder, `docker` with the stack's knobs in its environment; its files.
export async function deployStack(docker, app, stack) {
  const files = stackFiles(app);
  const composeFiles = files.filter((f) => !f.includes('.swarm.')).flatMap((f) => ['-f', f]);
  await docker(['compose', ...composeFiles, 'build', app.app], { cwd: app.dir, timeoutMs: 900_000 });
  await docker(['stack', 'deploy', '--detach=true', ...files.flatMap((f) => ['-c', f]), stack],
    { cwd: app.dir, timeoutMs: 240_000 });
  return files;
}

/** The stack removed, its containers gone (a bounded wait); `leave`: the node made a Swarm for it leaves. */
export async function removeStack(docker, stack, { leave }) {
  await docker(['stack', 'rm', stack], { check: false });
  await until(`stack ${stack} removed`, async () =>
    (await docker(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${stack}`])).stdout.trim() === '',
  120_000).catch(() => {});
  if (leave) await docker(['swarm', 'leave', '--force'], { check: false, timeoutMs: 60_000 });
}

// What the write accounting (writes.js) asks of a runner, on the stack: its services' tasks, and a
// command in one of them.
function stackRunner(docker, stack) {
  return {
    engine: 'docker',
    readState: async () => ({ services: {} }),
    ps: async () => {
      const res = await docker(['ps', '--format', '{{.Label "com.docker.swarm.service.name"}}', '--filter',
        `label=com.docker.stack.namespace=${stack}`]);
      return res.stdout.split('\n').filter(Boolean).map((name) => ({
        service: name.slice(stack.length + 1), status: 'running',
      }));
    },
    exec: execIn(docker, (service) => tasksOf(docker, `${stack}_${service}`)),
  };
}

/**
 * swarmRolloutDrill({ host, ownEngine, app, env, processes, rate, mix, events, about, log }): deploys
 * the app's stack with `env` (the topology's knobs: REPLICAS = processes, CPUS), waits for its tasks
 * and nginx, then `events` rolling updates of the app's service under the load. Returns the
 * rollout's record, as rolloutDrill's: { kind: 'rollout', ...about, engine: 'swarm', roll:
 * 'swarm-update', steps: [{ instance, startedAtMs, tookMs, failed, outageMs, latencyMs, sendLagMs }],
 * get, post, latencyMs, sendLagMs, writes, … }. `ownEngine`: the run started this engine (it may
 * make it a Swarm and leave again); otherwise it must be a Swarm manager already.
 * @param {{ host?: string | null, ownEngine: boolean, app: any, env: Record<string, string>, processes: number,
 *   rate: number, mix: any, events?: number, about: any, log: (line: string) => void }} options
 */
export async function swarmRolloutDrill({ host, ownEngine, app, env, processes, rate, mix, events = 2, about, log }) {
  checkMix(mix);
  const why = whyNoSwarm(app, processes);
  if (why) throw new Error(why);
  const docker = dockerOf(host);
  const info = await docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}']);
  const state = info.stdout.trim();
  const joined = !state.startsWith('inactive');
  if (joined && !state.endsWith('true')) throw new Error(`the engine is in a Swarm but not a manager (${state})`);
  if (!joined && !ownEngine)
    throw new Error("the engine is not a Swarm manager, and the run won't make one of an engine it didn't start");
  if (!joined) await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  const stack = `lab-swarm-${Date.now().toString(36)}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  try {
    log(`swarm: docker stack deploy ${stackFiles(app).map((f) => `-c ${f}`).join(' ')} (${processes} app tasks)`);
    // The stack's knobs as its files read them (${REPLICAS}, ${CPUS}, ${HTTP_PORT}).
    const files = await deployStack(dockerOf(host, { ...env, HTTP_PORT: String(port) }), app, stack);
    const service = `${stack}_${app.app}`;
    await until(`${processes} healthy ${app.app} tasks`,
      async () => (await tasksOf(docker, service, { healthy: true })).length === processes, 300_000);
    await until(`GET ${mix.get} through nginx`,
      async () => (await fetch(new URL(mix.get, url), { signal: AbortSignal.timeout(5000) })).ok, 120_000);
    const run = await drillUnderLoad(
      { runner: /** @type {any} */ (stackRunner(docker, stack)), runDir: stack, url, rate, mix, app,
        name: about.app ?? app.folder, tag: `swarm-${about.strategy ?? 'replicas'}` },
      (load) => inTurn(events, 2000, async (k) => {
        const startedAtMs = Math.round(load.now());
        const t = Date.now();
        const res = await docker(['service', 'update', '--force', '--detach=false', service],
          { timeoutMs: 600_000, check: false });
        if (res.code !== 0) throw new Error(`docker service update: ${res.stderr.trim().split('\n').at(-1)}`);
        const tookMs = Date.now() - t;
        log(`swarm: rolling update ${k + 1}/${events} of ${service} in ${tookMs} ms`);
        return { instance: `${app.app} (${processes} tasks)`, startedAtMs, tookMs };
      }),
    );
    const { events: steps, ...rest } = eventsRecord(run, run.result, {
      startOf: (s) => s.startedAtMs, backOf: (s) => s.tookMs,
    });
    return {
      kind: 'rollout', ...about, engine: 'swarm', roll: 'swarm-update', rolledBy: 'swarm', zeroDowntime: true,
      files, steps, reloadMs: steps.reduce((n, s) => n + s.tookMs, 0), ...rest,
    };
  } finally {
    await removeStack(docker, stack, { leave: !joined });
  }
}
