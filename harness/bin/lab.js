#!/usr/bin/env node
// Command line for the local runner: `make up/ps/down/kill/term/hup/restart/reload` call this.
import { Command } from 'commander';
import Table from 'cli-table3';
import { up, down, ps, signal, restart, reload, readState, DEFAULT_RUN_DIR } from '../runner/index.js';

const program = new Command('lab').description('Run a sample\'s compose topology as local processes on 127.0.0.1');
/** @type {[string, string, string]} */
const runDirOption = ['--run-dir <dir>', 'where state and logs live', DEFAULT_RUN_DIR];
const say = (line) => console.log(`  ${line}`);

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
    // Ctrl-C while starting: take down what was started, leave nothing running, exit 130 (not
    // with the error of the up() it cancelled).
    let stopping;
    process.once('SIGINT', () => {
      console.error('SIGINT: stopping what was started');
      stopping = down({ runDir: o.runDir }).finally(() => process.exit(130));
    });
    const state = await up({
      sample, runDir: o.runDir, env: knobs(o), log: say,
      services: o.services ? o.services.split(',') : undefined, noDeps: o.services ? !o.deps : false,
    }).catch(async (err) => {
      if (stopping) await stopping;
      throw err;
    });
    const limits = state.cpuLimits.enforced ? `CPU limits enforced (${state.cpuLimits.mechanism})` : `CPU limits NOT enforced: ${state.cpuLimits.reason}`;
    console.log(`${state.sample} is up: ${state.url}\n  ${limits}\n  make ps | make reload SAMPLE=${state.sample} | make down`);
  });

program.command('ps').description('list the running processes').option(...runDirOption).action(async (o) => {
  const state = await readState(o.runDir);
  const rows = await ps({ runDir: o.runDir });
  if (!state || !rows.length) { console.log('nothing running'); return; }
  const table = new Table({ head: ['service', 'instance', 'pid', 'url', 'status', 'restarts', 'child pids'], style: { head: [], border: [] } });
  for (const r of rows) table.push([r.service, r.index, r.pid, r.url, r.status === 'exited' && r.exit ? `exited (${r.exit})` : r.status, r.restarts, (r.children ?? []).join(' ')]);
  console.log(`${state.sample}\n${table.toString()}`);
  // Where the supervisor is gone, ps shows what it last wrote: pids and statuses are checked now,
  // but nothing restarts any more.
  if (state.stale) console.log(`STALE: ${state.stale.reason}; nothing restarts — \`make down\` cleans up`);
});

program.command('down').description('stop everything and leave nothing running').option(...runDirOption).action(async (o) => {
  const { stopped, cgroupsLeft = [] } = await down({ runDir: o.runDir });
  console.log(stopped ? `stopped ${stopped} process(es)` : 'nothing running');
  if (cgroupsLeft.length) console.log(`cgroups left behind: ${cgroupsLeft.join(' ')}`);
});

const policyNote = async (o, service) => {
  const entry = (await readState(o.runDir))?.services?.[service];
  const policy = entry?.restart?.name ?? 'no';
  return policy === 'no' ? 'restart: no — it stays down (make restart brings it back)' : `restart: ${policy} — the runner decides from its exit code (make ps)`;
};

const fault = (name, sig, what) => program.command(`${name} <service> [index]`).description(what).option(...runDirOption)
  .action(async (service, index = '1', o) => {
    const inst = await signal({ runDir: o.runDir, service, index, signal: sig });
    console.log(`${sig} -> ${inst.name} (pid ${inst.pid}); ${await policyNote(o, service)}`);
  });
fault('kill', 'SIGKILL', 'kill -9 one instance (a crash, as far as its restart policy is concerned)');
fault('term', 'SIGTERM', 'SIGTERM one instance (it drains and exits; on-failure leaves a clean exit down)');
fault('hup', 'SIGHUP', 'SIGHUP one instance (node-cluster: rolling restart of its workers)');

program.command('restart <service> [index]').description('restart one instance on the same port').option(...runDirOption)
  .action(async (service, index = '1', o) => {
    const inst = await restart({ runDir: o.runDir, service, index });
    console.log(`restarted ${inst.name}: pid ${inst.pid}, ${inst.url}`);
  });

program.command('reload [sample]').description('replace a service\'s processes one at a time (rolling restart)')
  .option('--service <name>', 'the service to reload', 'app')
  .option(...runDirOption)
  .action(async (sample, o) => {
    const r = await reload({ runDir: o.runDir, sample, service: o.service, log: say });
    const how = { proxy: 'start-first behind nginx', signal: 'the process\'s own rolling restart', nginx: 'nginx -s reload', restart: 'stop-first, no proxy in front' }[r.strategy];
    console.log(`${r.sample} ${r.service}: ${r.steps.length} instance(s) replaced in ${(r.tookMs / 1000).toFixed(1)} s (${how}${r.zeroDowntime ? '' : '; not zero-downtime'})`);
  });

program.parseAsync().catch((err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
