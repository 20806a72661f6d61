// A change of a running service's instances (`make reload`, `make scale`): the checks both make
// before they start, and the run's one claim, so two changes of a run never interleave.
import path from 'node:path';
import { resolveSample } from '../common/compose.js';
import { renderNginx, testConfig, reloadNginx } from './nginx.js';
import { call, readState } from './supervisor-client.js';

/**
 * Checks that `service` of the run in runDir can be changed and claims the run for `op`.
 * Returns { runDir, state, entry, release }; throws one line naming what is wrong.
 * @param {{ runDir: string, sample?: string, service: string, op: string }} options
 */
export async function claimService({ runDir, sample, service, op }) {
  runDir = path.resolve(runDir);
  const wanted = sample ? resolveSample(sample).name : undefined;
  const state = await readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}: start it first (make up SAMPLE=${wanted ?? '<dir>'})`);
  if (wanted && wanted !== state.sample)
    throw new Error(
      `${wanted} is not running here (${state.sample} is): make ${op} SAMPLE=${state.sample}, or make down first`,
    );
  if (state.stale)
    throw new Error(
      `${state.sample} cannot be ${op === 'scale' ? 'scaled' : 'reloaded'}: ${state.stale.reason}; \`make down\`, ` +
        `then \`make up\``,
    );
  if (state.phase !== 'up')
    throw new Error(`${state.sample} is ${state.phase ?? 'not up'}: wait until make up has finished`);
  const entry = state.services[service];
  if (!entry)
    throw new Error(
      `${state.sample} has no running service '${service}' (running: ${Object.keys(state.services).join(', ')})`,
    );
  if (entry.skipped) throw new Error(`${service} does not run locally (${entry.skipped})`);
  if (entry.oneshot) throw new Error(`${service} is a one-shot job: there is nothing running to ${op}`);
  /** @type {{ busy: { pid: number, service: string, op?: string, startedAt: string } | null }} */
  const { busy } = await call(runDir, 'claimReload', { pid: process.pid, service, op });
  if (busy)
    throw new Error(
      `a ${busy.op ?? 'reload'} of ${busy.service} is already in progress (pid ${busy.pid}, since ${busy.startedAt})`,
    );
  const release = () => call(runDir, 'releaseReload', { pid: process.pid }).catch(() => {});
  return { runDir, state, entry, release };
}

/**
 * Re-renders each nginx in front of a service with these upstream ports ({ service: [port, …] })
 * and reloads it. The nginx instance is read from `state` (its restart policy may have replaced it).
 */
export async function switchProxies(state, proxies, upstreamPorts) {
  for (const { name } of proxies) {
    const entry = state.services[name];
    const inst = entry.instances[0];
    const rendered = renderNginx({ svc: entry.spec, runDir: state.runDir, upstreamPorts, listenPorts: inst.listen });
    testConfig(rendered, state.runDir);
    await reloadNginx(inst.pid);
  }
}
