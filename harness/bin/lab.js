#!/usr/bin/env node
// Command line for the local runner: `make up/ps/down/kill/term/hup/restart/reload/scale/place` call this.
// --engine docker|processes (make's ENGINE=) picks the backend; runner/index.js selectEngine decides the
// default.
import { Command } from 'commander';
import Table from 'cli-table3';
import { DEFAULT_RUN_DIR, selectEngine, runnerFor, EngineChoiceError, PlacementError } from '../runner/index.js';

const program = new Command('lab')
  .description('Run a sample\'s compose topology as local processes on 127.0.0.1, or on Docker (--engine docker)')
  .option('--engine <name>', 'docker | processes (default: docker when an engine answers, else processes)');
/** @type {[string, string, string]} */
const runDirOption = ['--run-dir <dir>', 'where state and logs live', DEFAULT_RUN_DIR];
const say = (line) => console.log(`  ${line}`);

// The backend for this command: { engine, why, runner } (an unknown engine: one line, exit 2);
// without ENGINE, the engine of the run already in runDir.
/** @param {string} runDir @returns {{ engine: string, why: string, runner: import('../runner/index.js').Runner }} */
function backend(runDir) {
  const { engine, why } = selectEngine(program.opts().engine ?? process.env.ENGINE, { runDir });
  return { engine, why, runner: runnerFor(engine) };
}

// Knobs reach compose.yaml through interpolation, exactly as with `docker compose`.
const knobs = (o) => Object.fromEntries(Object.entries({
  REPLICAS: o.replicas, WORKERS: o.workers, CPUS: o.cpus, LB: o.lb, HTTP_PORT: o.port,
}).filter(([, v]) => v !== undefined && v !== ''));

program.command('up <sample>').description('start a sample and wait until it is healthy')
  .option('--replicas <n>').option('--workers <n>').option('--cpus <x>').option('--lb <method>')
  .option('--port <port>', 'published port (0 = any free port)')
  .option('--services <names>', 'comma-separated services to start (with their dependencies)')
  .option('--no-deps', 'with --services: not their dependencies')
  .option(...runDirOption)
  .action(async (sample, o) => {
    const { engine, why, runner } = backend(o.runDir);
    if (engine === 'processes') say(`engine: processes (${why})`);
    // Ctrl-C while starting: take down what was started, leave nothing running, exit 130 (not
    // with the error of the up() it cancelled).
    let stopping;
    process.once('SIGINT', () => {
      console.error('SIGINT: stopping what was started');
      stopping = runner.down({ runDir: o.runDir }).finally(() => process.exit(130));
    });
    const state = await runner.up({
      sample, runDir: o.runDir, env: knobs(o), log: say,
      services: o.services ? o.services.split(',') : undefined, noDeps: o.services ? !o.deps : false,
    }).catch(async (err) => {
      if (stopping) await stopping;
      throw err;
    });
    const limits = state.cpuLimits.enforced
      ? `CPU limits enforced (${state.cpuLimits.mechanism})`
      : `CPU limits NOT enforced: ${state.cpuLimits.reason}`;
    const flag = engine === 'docker' ? ' ENGINE=docker' : '';
    console.log(
      `${state.sample} is up (engine: ${engine}): ${state.url}\n  ${limits}\n  make ps${flag} | make reload ` +
        `SAMPLE=${state.sample}${flag} | make down${flag}`,
    );
  });

program.command('ps').description('list the running processes').option(...runDirOption).action(async (o) => {
  const { engine, runner } = backend(o.runDir);
  const state = await runner.readState(o.runDir);
  const rows = await runner.ps({ runDir: o.runDir });
  if (!state || !rows.length) { console.log('nothing running'); return; }
  const table = new Table({
    head: ['service', 'instance', 'pid', 'url', 'status', 'restarts', 'child pids'],
    style: { head: [], border: [] },
  });
  for (const r of rows)
    table.push([
      r.service,
      r.index,
      r.pid,
      r.url,
      r.status === 'exited' && r.exit ? `exited (${r.exit})` : r.status,
      r.restarts,
      (r.children ?? []).join(' '),
    ]);
  console.log(`${state.sample} (engine: ${engine})\n${table.toString()}`);
  // Where the supervisor is gone, ps shows what it last wrote: pids and statuses are checked now,
  // but nothing restarts any more.
  if (state.stale) console.log(`STALE: ${state.stale.reason}; nothing restarts — \`make down\` cleans up`);
});

program
  .command('down')
  .description('stop everything and leave nothing running')
  .option(...runDirOption)
  .action(async (o) => {
    const { engine, runner } = backend(o.runDir);
    const {
      stopped,
      cgroupsLeft = [],
      left = [],
      engineStopped,
    } = await runner.down({ runDir: o.runDir, engine: true });
    const what = engine === 'docker' ? 'container(s)' : 'process(es)';
    console.log(stopped ? `stopped ${stopped} ${what} (engine: ${engine})` : `nothing running (engine: ${engine})`);
    if (engineStopped) console.log('stopped the private Docker daemon');
    if (left.length) console.log(`Docker objects left behind: ${left.join(' ')}`);
    if (cgroupsLeft.length) console.log(`cgroups left behind: ${cgroupsLeft.join(' ')}`);
  });

/** @param {import('../runner/index.js').Runner} runner @param {{ runDir: string }} o @param {string} service */
const policyNote = async (runner, o, service) => {
  const entry = (await runner.readState(o.runDir))?.services?.[service];
  const policy = entry?.restart?.name ?? 'no';
  const who = runner.engine === 'docker' ? 'Docker' : 'the runner';
  return policy === 'no'
    ? 'restart: no — it stays down (make restart brings it back)'
    : `restart: ${policy} — ${who} decides from its exit code (make ps)`;
};

const fault = (name, sig, what) =>
  program
    .command(`${name} <service> [index]`)
    .description(what)
    .option(...runDirOption)
    .action(async (service, index = '1', o) => {
      const { runner } = backend(o.runDir);
      const inst = await runner.signal({ runDir: o.runDir, service, index, signal: sig });
      console.log(`${sig} -> ${inst.name} (pid ${inst.pid}); ${await policyNote(runner, o, service)}`);
    });
fault('kill', 'SIGKILL', 'kill -9 one instance (a crash, as far as its restart policy is concerned)');
fault('term', 'SIGTERM', 'SIGTERM one instance (it drains and exits; on-failure leaves a clean exit down)');
fault('hup', 'SIGHUP', 'SIGHUP one instance (node-cluster: rolling restart of its workers)');

program
  .command('restart <service> [index]')
  .description('restart one instance on the same port')
  .option(...runDirOption)
  .action(async (service, index = '1', o) => {
    const { engine, runner } = backend(o.runDir);
    const inst = await runner.restart({ runDir: o.runDir, service, index });
    console.log(`restarted ${inst.name} (engine: ${engine}): pid ${inst.pid}, ${inst.url}`);
  });

program.command('reload [sample]').description('replace a service\'s processes one at a time (rolling restart)')
  .option('--service <name>', 'the service to reload', 'app')
  .option(...runDirOption)
  .action(async (sample, o) => {
    const { engine, runner } = backend(o.runDir);
    say(`engine: ${engine}`);
    const r = await runner.reload({ runDir: o.runDir, sample, service: o.service, log: say });
    const how = {
      proxy: 'start-first behind nginx',
      signal: "the process's own rolling restart",
      nginx: 'nginx -s reload',
      restart: 'stop-first, no proxy in front',
    }[r.strategy];
    console.log(
      `${r.sample} ${r.service}: ${r.steps.length} instance(s) replaced in ${(r.tookMs / 1000).toFixed(1)} s ` +
        `(${how}${r.zeroDowntime ? '' : '; not zero-downtime'})`,
    );
  });

program.command('scale <service> <replicas>').description('run a service as N instances (nginx in front follows)')
  .option(...runDirOption)
  .action(async (service, replicas, o) => {
    const { engine, runner } = backend(o.runDir);
    const r = await runner.scale({ runDir: o.runDir, service, replicas, log: say });
    const what =
      [r.added.length && `started ${r.added.join(', ')}`, r.removed.length && `stopped ${r.removed.join(', ')}`]
        .filter(Boolean)
        .join('; ') || 'nothing to change';
    console.log(
      `${r.sample} ${r.service}: ${r.from} -> ${r.to} instance(s) in ${(r.tookMs / 1000).toFixed(1)} s (engine: ` +
        `${engine}; ${what})`,
    );
  });

// --cpus app=1,nginx=0.5 -> { app: '1', nginx: '0.5' } (place checks the numbers).
function quotas(text) {
  if (text === undefined) return undefined;
  return Object.fromEntries(text.split(',').map((pair) => {
    const m = /^([\w.-]+)=(.*)$/.exec(pair.trim());
    if (!m) throw new PlacementError(`--cpus ${text}: expected <service>=<CPUs>[,<service>=<CPUs>…]`);
    return [m[1], m[2]];
  }));
}

program.command('place').description('move a running run to other CPUs, another budget, other quotas, in place')
  .option('--cpuset <cpus>', 'the CPUs every process of the run is pinned to from now on (e.g. 1 or 0-1)')
  .option('--budget <cpus>', "the run's one CPU quota over all of it")
  .option('--cpus <service=cpus>', 'a service\'s quota per instance (app=1, or app=1,nginx=0.5)')
  .option(...runDirOption)
  .action(async (o) => {
    const { engine, runner } = backend(o.runDir);
    const { cpuset, budget } = o;
    const p = await runner.place({ runDir: o.runDir, cpuset, budget, cpus: quotas(o.cpus), log: say });
    const none = (v) => v ?? 'none';
    const cpus = Object.entries(p.cpus).map(([s, c]) => `${s} ${none(c)}`).join(', ');
    console.log(
      `placed (engine: ${engine}): cpuset ${none(p.cpuset)}, budget ${none(p.budget)}; CPUs per instance: ${cpus}`,
    );
  });

program.parseAsync().catch((err) => {
  console.error(`error: ${err.message}`);
  process.exit(err instanceof EngineChoiceError || err instanceof PlacementError ? 2 : 1);
});
