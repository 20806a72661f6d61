#!/usr/bin/env node
// Command line for the local runner: `make up/ps/down/kill/term/restart` call this.
import { Command } from 'commander';
import Table from 'cli-table3';
import { up, down, ps, signal, restart, readState, DEFAULT_RUN_DIR } from '../runner/index.js';

const program = new Command('lab').description('Run a sample\'s compose topology as local processes on 127.0.0.1');
const runDirOption = ['--run-dir <dir>', 'where state and logs live', DEFAULT_RUN_DIR];

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
    const state = await up({
      sample, runDir: o.runDir, env: knobs(o), log: (line) => console.log(`  ${line}`),
      services: o.services ? o.services.split(',') : undefined, noDeps: o.services ? !o.deps : false,
    });
    const limits = state.cpuLimits.enforced ? `CPU limits enforced (${state.cpuLimits.mechanism})` : `CPU limits NOT enforced: ${state.cpuLimits.reason}`;
    console.log(`${state.sample} is up: ${state.url}\n  ${limits}\n  make ps | make down`);
  });

program.command('ps').description('list the running processes').option(...runDirOption).action((o) => {
  const rows = ps({ runDir: o.runDir });
  if (!rows.length) { console.log('nothing running'); return; }
  const table = new Table({ head: ['service', 'instance', 'pid', 'url', 'status', 'child pids'], style: { head: [], border: [] } });
  for (const r of rows) table.push([r.service, r.index, r.pid, r.url, r.status, (r.children ?? []).join(' ')]);
  console.log(`${readState(o.runDir).sample}\n${table.toString()}`);
});

program.command('down').description('stop everything and leave nothing running').option(...runDirOption).action(async (o) => {
  const { stopped, cgroupsLeft = [] } = await down({ runDir: o.runDir });
  console.log(stopped ? `stopped ${stopped} process(es)` : 'nothing running');
  if (cgroupsLeft.length) console.log(`cgroups left behind: ${cgroupsLeft.join(' ')}`);
});

const fault = (name, sig, what) => program.command(`${name} <service> [index]`).description(what).option(...runDirOption)
  .action(async (service, index = '1', o) => {
    const inst = await signal({ runDir: o.runDir, service, index, signal: sig });
    console.log(`${sig} -> ${inst.name} (pid ${inst.pid})`);
  });
fault('kill', 'SIGKILL', 'kill -9 one instance');
fault('term', 'SIGTERM', 'SIGTERM one instance (graceful stop)');
fault('hup', 'SIGHUP', 'SIGHUP one instance (node-cluster: rolling restart of its workers)');

program.command('restart <service> [index]').description('restart one instance on the same port').option(...runDirOption)
  .action(async (service, index = '1', o) => {
    const inst = await restart({ runDir: o.runDir, service, index });
    console.log(`restarted ${inst.name}: pid ${inst.pid}, ${inst.url}`);
  });

program.parseAsync().catch((err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
