// exec() on the processes engine: argv run on this host with one instance's resolved environment
// (its compose environment, x-local values, secrets as local files), from its working folder;
// `{port}` in argv is the instance's loopback port.
import path from 'node:path';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { runCommand } from '../common/command.js';
import { findInstance } from './snapshot.js';
import { readState } from './supervisor-client.js';
import { resolveCommand, toolPath } from './spec.js';

/** @param {import('../common/contract.js').ExecOptions} options */
export async function exec({ runDir = DEFAULT_RUN_DIR, service, index = 1, argv, timeoutMs = 60_000 }) {
  const dir = path.resolve(runDir);
  const state = await readState(dir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (state.services?.[service]?.skipped)
    throw new Error(`${service} does not run locally (${state.services[service].skipped})`);
  const { inst } = findInstance(state, service, index);
  const [command, ...args] = argv.map((a) => a.replaceAll('{port}', String(inst.port)));
  const env = { ...process.env, PATH: toolPath(), ...inst.env, LAB_RUN_DIR: dir };
  return runCommand(resolveCommand(command), args, { cwd: inst.cwd, env, timeoutMs });
}
