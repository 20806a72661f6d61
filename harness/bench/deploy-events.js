#!/usr/bin/env node
// A deploy as a user runs it, measured from outside: one sample brought up with its own files on the
// harness's private Docker daemon — `docker compose up` in its folder (with the stand-ins its
// x-bench.docker names: PostgreSQL for SQL Server), or `docker stack deploy -c compose.yaml -c
// compose.swarm.yaml …` on a single-node Swarm — then the generator load.js in a process of its own
// (an open loop, GETs and a share of POSTs, each request timed from its intended send) and N events
// cycling a graceful stop of one replica, a scale-down by one and a rolling replacement, each put
// back before the next. One line per event (what failed, the max latency of the requests meant to
// leave from its start to the next one's, the generator's own lateness), then the total with the
// rows the store holds against the POSTs acknowledged. Exit 1 if an event fails the bar (no failed
// request, max under --max-ms, send lag p99 within the bound), 2 on misuse. Everything it started
// is brought down at the end and on Ctrl-C. The run's folder (--out, else .run/deploy-events/…) keeps
// the load's records, nginx's log and the replicas' logs; an event that missed the bar is printed with
// nginx's lines of it that say what went wrong (lib/drills/event-evidence.js). A hand run, under the
// shared Docker lock:
//   node harness/bench/deploy-events.js --sample <folder> --orchestrator compose|swarm [--events 20]
//     [--env REPLICAS=2,…] [--rate 100] [--post-share 0.2] [--max-ms 1000] [--services app,nginx]
//     [--lift-per-node] [--out dir]
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, InvalidArgumentError } from 'commander';
import { positive, envList } from '../lib/option-parsers.js';
import { describeSample } from './lib/topologies/app-descriptions.js';
import { writesOn, checkWrites, readBack, accountWrites, writePost } from './lib/drills/writes.js';
import { whyNoSwarm, dockerOf, deployStack, removeStack, execIn } from './lib/drills/swarm.js';
import { failuresBetween } from './lib/drills/under-load.js';
import { summarise } from './lib/drills/load.js';
import { lateWhy, SEND_LAG_P99_BOUND_MS } from './lib/judge/send-lag-bound.js';
import { linesIn } from './lib/drills/event-evidence.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { engineUnavailable, startDaemon, stopDaemon, docker, DOCKER_HOST } from '../docker-engine/daemon.js';
import { buildStandIns } from '../docker-engine/build-stand-ins.js';
import { Project, dockerOk, freePort, waitFor, secretsReady } from '../test/docker/helpers.js';

const KINDS = ['stop', 'scale-down', 'replace'];
// nginx re-resolves the app's name every 2 s: a replica put back is in its list after this.
const RESOLVE_MS = 3000;

const orchestrator = (v) => {
  if (!['compose', 'swarm'].includes(v)) throw new InvalidArgumentError('--orchestrator is compose or swarm');
  return v;
};

const opts = new Command('deploy-events')
  .description('Stops, scale-downs and rolling replacements of a sample under a separate GET + POST load.')
  .requiredOption('--sample <folder>', 'the sample (a folder with compose.yaml and an x-bench description)')
  .requiredOption('--orchestrator <name>', 'compose or swarm (a single-node Swarm)', orchestrator)
  .option('--events <n>', 'events, cycling stop, scale-down, replace', positive('--events', { integer: true }), 20)
  .option('--env <NAME=value,…>', 'its knobs (REPLICAS, CPUS, …)', envList, {})
  .option('--rate <n>', 'requests per second', positive('--rate'), 100)
  .option('--post-share <x>', 'the share of POSTs', positive('--post-share', { max: 1 }), 0.2)
  .option('--max-ms <n>', 'the bar: max latency in an event under this', positive('--max-ms'), 1000)
  .option('--services <list>', 'only these run (compose: without their dependencies; a stack deploys all): a store '
    + 'not among them leaves the writes uncounted, POSTs going to x-bench.post', (v) => v.split(',').filter(Boolean))
  .option('--lift-per-node', "a stack that places fewer app tasks per node than REPLICAS + 1: lift it (said)")
  .option('--out <dir>', "the run's folder: records, nginx's and the replicas' logs (default .run/deploy-events/…)")
  .configureOutput({ outputError: (str, write) => write(`${str.trim()} (deploy-events --help lists them)\n`) })
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse()
  .opts();

// One line, then exit: 2 on misuse, 1 where the run can't be done here.
const misuse = (line, code = 2) => {
  console.error(`deploy-events: ${line}`);
  process.exit(code);
};
let app;
let declared; // its x-bench.writes on Docker
try {
  app = describeSample(opts.sample);
  declared = writesOn(app, 'docker');
  checkWrites(declared);
} catch (err) {
  misuse(err.message);
}
const env = { REPLICAS: '2', ...opts.env };
const replicas = Number(env.REPLICAS);
if (!Number.isInteger(replicas) || replicas < 2) misuse('REPLICAS must be 2 or more: 1 cannot stop without a gap');
const cap = opts.orchestrator === 'swarm' ? whyNoSwarm(app, replicas + 1) : null;
if (cap && !opts.liftPerNode) misuse(`${cap} (--lift-per-node lifts it on this node)`);
const writes = declared && (!opts.services || opts.services.includes(declared.service)) ? declared : null;
const post = writes?.post ?? app.post;
if (!post) misuse(`${app.folder} names no POST route (x-bench.writes or x-bench.post)`);
if (engineUnavailable()) misuse(`no Docker engine here: ${engineUnavailable()}`, 1);

const name = `lab-events-${app.folder}`;
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const outDir = path.resolve(opts.out
  ?? path.join(REPO_ROOT, '.run', 'deploy-events', `${app.folder}-${opts.orchestrator}-${stamp}`));
const label = (service) => (opts.orchestrator === 'swarm'
  ? [`label=com.docker.swarm.service.name=${name}_${service}`]
  : [`label=com.docker.compose.project=${name}`, `label=com.docker.compose.service=${service}`]);
/** The running containers of a service (`healthy`: whose health check passes; `all`: stopped ones too). */
const containers = (service, { healthy = false, all = false } = {}) => {
  const filters = [...label(service), ...(healthy ? ['health=healthy'] : [])].flatMap((f) => ['--filter', f]);
  return dockerOk(['ps', all ? '-aq' : '-q', ...filters]).split('\n').filter(Boolean);
};
const backTo = (n) => waitFor(
  () => containers(app.app, { healthy: true }).length === n && containers(app.app).length === n,
  { what: `${n} healthy ${app.app} containers`, timeoutMs: 300_000, everyMs: 1000 },
);
/** A container's log, stamped by Docker, into the run's folder (before it is removed); its text. */
const keepLog = (id, what) => {
  const res = docker(['logs', '--timestamps', id], { timeout: 60_000 });
  const text = `${res.stdout}${res.stderr}`;
  fs.writeFileSync(path.join(outDir, `${what}-${id.slice(0, 12)}.log`), text);
  return text;
};
const oldest = (ids) => ids.map((id) => [JSON.parse(dockerOk(['inspect', id]))[0].Created, id]).sort()[0][1];

const composeFiles = String(app.docker?.compose_file ?? '').split(':').filter(Boolean);
const project = new Project({ sample: app.folder, name, files: composeFiles, env });
const scaleCompose = (n) =>
  project.run(['up', '-d', '--no-deps', '--no-recreate', '--wait', '--scale', `${app.app}=${n}`, app.app],
    { timeout: 300_000 });
const swarm = (args) => dockerOk(args, { cwd: app.dir, env, timeout: 600_000 });

// Each orchestrator's way to start, stop one replica (put back after), scale, replace and end.
const ORCHESTRATORS = {
  compose: {
    up: () => project.run(['up', '-d', '--build', '--wait', '--quiet-pull',
      ...(opts.services ? ['--no-deps', ...opts.services] : [])], { timeout: 900_000 }),
    // Compose gives each container its service's stop_grace_period: `docker stop` waits that long.
    stopWait: () => [],
    restart: (id) => dockerOk(['start', id]),
    scale: scaleCompose,
    async replace() {
      const before = containers(app.app);
      scaleCompose(replicas + 1);
      await sleep(RESOLVE_MS);
      const victim = oldest(before);
      dockerOk(['stop', victim], { timeout: 120_000 });
      keepLog(victim, app.app);
      dockerOk(['rm', victim]);
    },
    down: () => project.down(),
  },
  swarm: {
    async up() {
      swarm(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
      await deployStack(dockerOf(DOCKER_HOST, env), app, name);
      if (cap) {
        console.log(`${cap}: lifted to ${replicas + 1} (docker service update --replicas-max-per-node)`);
        const lift = ['--replicas-max-per-node', String(replicas + 1)];
        // Waited for: the lift is a rolling update of every task (a placement change), and events must
        // not overlap it (a run that went on at once, 2026-12-05: the put-back after its first scale-down
        // never converged).
        swarm(['service', 'update', '--detach=false', ...lift, `${name}_${app.app}`]);
      }
    },
    // A Swarm task's container carries no stop timeout: `docker stop` alone waits Docker's 10 s, not
    // the service's stop_grace_period, and kills the replica mid-drain (proxy/README.md). As that
    // README tells users: -t with the service's own grace period.
    stopWait: () => ['--time', String(swarmGraceSeconds())],
    restart: () => {}, // Swarm starts a new task itself (restart_policy: any)
    scale: (n) => swarm(['service', 'scale', '--detach=false', `${name}_${app.app}=${n}`]),
    replace: () => swarm(['service', 'update', '--force', '--detach=false', `${name}_${app.app}`]),
    down: () => removeStack(dockerOf(DOCKER_HOST), name, { leave: true }),
  },
};
const orch = ORCHESTRATORS[opts.orchestrator];

/** The app service's stop_grace_period on Swarm, in whole seconds (unset: Docker's 10). */
function swarmGraceSeconds() {
  // json: nanoseconds (a plain template prints the Go duration, "24s"); unset: null.
  const format = '{{json .Spec.TaskTemplate.ContainerSpec.StopGracePeriod}}';
  const out = dockerOk(['service', 'inspect', '--format', format, `${name}_${app.app}`]).trim();
  if (out === 'null') return 10;
  if (!(Number(out) > 0)) throw new Error(`${name}_${app.app}: a stop grace period not understood: ${out}`);
  return Math.ceil(Number(out) / 1e9);
}

// An event; what puts the replicas back after it.
const EVENTS = {
  stop() {
    const [victim] = containers(app.app);
    dockerOk(['stop', ...orch.stopWait(), victim], { timeout: 120_000 });
    return () => orch.restart(victim);
  },
  'scale-down'() {
    orch.scale(replicas - 1);
    return () => orch.scale(replicas);
  },
  async replace() {
    await orch.replace();
    return () => {};
  },
};

let load = null;
let daemon = false; // started here: only then is anything brought down (never another run's)
let tornDown = null;
// Once, whoever asks first (the end of the run, Ctrl-C): the load, the deployment, the daemon.
const tearDown = () => (tornDown ??= (async () => {
  load?.kill('SIGTERM');
  if (!daemon) return;
  try {
    await orch.down();
  } finally {
    await stopDaemon();
  }
})());
// A first Ctrl-C ends the run after the event under way (its figures printed); a second, at once.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (!stopping) {
      stopping = true;
      console.error(`deploy-events: ${signal}: ending after this event (again: at once)`);
      return;
    }
    console.error(`deploy-events: ${signal}: bringing everything down`);
    tearDown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

const ms = (x) => (x === null ? '-' : `${Math.round(x)}`);

/** The requests meant to leave in [from, to) of the load's clock: what failed, latency, lateness, the bar. */
function judge(records, from, to) {
  const sent = records.filter((r) => r.at >= from && r.at < to);
  const { latencyMs, sendLagMs, ...s } = summarise(sent);
  const failed = failuresBetween(records, from, to);
  // From when each request really left: what the server took, the generator's lateness apart.
  const served = Math.max(0, ...sent.filter((r) => r.status !== undefined).map((r) => r.latencyMs - r.lagMs));
  const why = [failed.get && `${failed.get} GET failed`, failed.post && `${failed.post} POST failed`,
    !(latencyMs.max < opts.maxMs) && `max ${ms(latencyMs.max)} ms`, lateWhy(sendLagMs)].filter(Boolean);
  const errors = { ...s.get.errors, ...s.post.errors };
  const text = `GET ${s.get.requests} sent / ${failed.get} failed, POST ${s.post.requests} sent / ${failed.post} ` +
    `failed${failed.get + failed.post ? ` ${JSON.stringify(errors)}` : ''}; ` +
    `latency p99 ${ms(latencyMs.p99)} / max ${ms(latencyMs.max)} ms (${ms(served)} from the actual send); ` +
    `lateness p99 ${ms(sendLagMs.p99)} / max ${ms(sendLagMs.max)} ms`;
  // A generator late past the bound timed itself: no verdict on the latency, to be run again.
  const verdict = lateWhy(sendLagMs) && !failed.get && !failed.post ? 'INVALID' : 'FAILED';
  return { ok: why.length === 0, text: `${text}: ${why.length ? `${verdict} (${why.join('; ')})` : 'ok'}` };
}

const body = writes ? writePost(writes).body : '{"drill":true}';

/** Up with its own files, a GET and a POST answered through nginx; returns the URL. */
async function up() {
  const port = await freePort();
  env.HTTP_PORT = String(port);
  const url = `http://127.0.0.1:${port}`;
  await startDaemon();
  daemon = true;
  buildStandIns();
  secretsReady(app.folder);
  console.log(`${app.folder} on ${opts.orchestrator}, ${JSON.stringify(env)}: up with its own files`);
  await orch.up();
  await backTo(replicas);
  const answers = async () => (await fetch(new URL(app.workloads.light ?? '/', url))).ok &&
    (await fetch(new URL(post, url), { method: 'POST', headers: { 'content-type': 'application/json' },
      body: body.replaceAll('{id}', 'pre-0') })).ok;
  await waitFor(answers, { what: 'a GET and a POST through nginx', timeoutMs: 120_000, everyMs: 1000 });
  return url;
}

/** load.js in a process of its own; stop() ends it and returns what it wrote and its summary line. */
function startLoad(url) {
  const out = path.join(outDir, 'records.json');
  const args = ['--url', url, '--get', app.workloads.light ?? '/', '--post', post, '--body', body,
    '--post-share', String(opts.postShare), '--rate', String(opts.rate), '--seconds', '86400', '--out', out];
  load = spawn(process.execPath, [path.join(import.meta.dirname, 'load.js'), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  let line = '';
  load.stdout.on('data', (d) => { line += d; });
  const ended = new Promise((resolve) => load.once('exit', resolve));
  return {
    async stop() {
      load.kill('SIGTERM');
      await ended;
      const kept = JSON.parse(fs.readFileSync(out, 'utf8'));
      return { ...kept, line: line.trim() };
    },
  };
}

/** What the store holds of the load's POSTs (one line), and how many were lost or stored twice. */
async function rows(records, idPrefix) {
  if (!writes) {
    const why = declared ? `its store (${declared.service}) not run here` : 'x-bench.writes: null';
    return { text: `writes not counted: ${post} keeps nothing (${why})`, bad: 0 };
  }
  const exec = execIn(dockerOf(DOCKER_HOST), (service) => containers(service));
  const stored = await readBack({ runner: /** @type {any} */ ({ engine: 'docker', exec }), runDir: name, writes,
    prefix: idPrefix });
  const w = accountWrites(records, stored);
  return {
    text: `${w.acknowledged} POSTs acknowledged, ${w.stored} of them stored (rows in ${writes.service}), ` +
      `${w.lost} lost, ${w.duplicated} duplicated, ${w.ambiguous} failed but stored`,
    bad: w.lost + w.duplicated,
  };
}

/** nginx's and the replicas' logs into the run's folder; nginx's text (all its containers). */
function keepLogs() {
  for (const id of containers(app.app, { all: true })) keepLog(id, app.app);
  const proxy = app.proxy ?? 'nginx';
  return containers(proxy, { all: true }).map((id) => keepLog(id, proxy)).join('\n');
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const generator = startLoad(await up());
  await sleep(RESOLVE_MS);
  const events = [];
  let broken = null; // an event that could not be done or undone ends the run; what was measured is kept
  for (let i = 0; i < opts.events && !stopping && !broken; i += 1) {
    const kind = KINDS[i % KINDS.length];
    const at = Date.now();
    try {
      const putBack = await EVENTS[kind]();
      events.push({ kind, at, actedMs: Date.now() - at });
      await putBack();
      await backTo(replicas);
      await sleep(RESOLVE_MS);
      console.error(`event ${i + 1}/${opts.events} ${kind}: done in ${Math.round((Date.now() - at) / 1000)} s`);
    } catch (err) {
      broken = `event ${i + 1} (${kind}): ${err.message}`;
    }
  }
  const { records, startedAt, idPrefix, line } = await generator.stop();
  if (broken) console.log(`deploy-events: ${broken}`);
  if (!events.length) throw new Error('no event done');
  const nginxLog = keepLogs();
  let failures = 0;
  events.forEach((e, i) => {
    const end = i + 1 < events.length ? events[i + 1].at : Infinity;
    const j = judge(records, e.at - startedAt, end - startedAt);
    console.log(`event ${i + 1}/${events.length} ${e.kind} (${Math.round(e.actedMs / 1000)} s): ${j.text}`);
    if (j.ok) return;
    failures += 1;
    const said = linesIn(nginxLog, { fromMs: e.at, toMs: end, slowMs: opts.maxMs });
    for (const line of said) console.log(`  nginx ${line}`);
  });
  fs.writeFileSync(path.join(outDir, 'events.json'), `${JSON.stringify(events)}\n`);
  const all = judge(records, events[0].at - startedAt, Infinity);
  const stored = await rows(records, idPrefix);
  const bar = `0 failed, max < ${opts.maxMs} ms, lateness p99 ≤ ${SEND_LAG_P99_BOUND_MS} ms`;
  console.log(`${events.length} of ${opts.events} events, ${failures} failed the bar (${bar}): ${all.text}; ` +
    stored.text);
  console.log(`load.js, the whole run: ${line}`);
  console.log(`kept: ${path.relative(process.cwd(), outDir) || outDir} (records, nginx's and the replicas' logs)`);
  return failures || stored.bad || events.length < opts.events ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`deploy-events: ${err.message}`);
} finally {
  await tearDown();
}
process.exit(code);
