// Whether a container serves, and waiting until a crashed one serves again, as the processes
// backend's isServing/waitServing: its healthcheck's URL path (or a TCP connect) asked on the
// loopback port it publishes now (a container that restarted may have another), then, with the
// sample's nginx in front, until nginx sends to it again (proxy.js).
import { setTimeout as sleep } from 'node:timers/promises';
import { checkOnce } from '../common/health.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { containers, findContainer } from './project.js';
import { statusOf } from './instances.js';
import { recordOf } from './record.js';
import { healthcheckOf, sampleFile } from './sample.js';
import { proxyOf, readmissionMs } from './proxy.js';

async function answers(c, healthcheck) {
  if (!c.running || !c.url) return false;
  return checkOnce(Number(new URL(c.url).port), healthcheck);
}

/**
 * Whether a container answers its health check now, on the port it publishes now.
 * @param {{ runDir?: string, service: string, index: number }} options
 */
export async function isServing({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const record = recordOf(runDir);
  return answers(findContainer(record, service, index), healthcheckOf(record, service));
}

// Whether the sample's nginx runs in this run, in front of `service`.
function behindProxy(record, service) {
  const proxy = proxyOf(sampleFile(record.sampleDir));
  return Boolean(proxy) && proxy !== service && containers(record).some((c) => c.service === proxy && c.running);
}

/**
 * Waits until a container that died serves again: it runs with another first process than
 * `notPid`, answers its health check and, behind nginx, nginx sends to it again.
 * Returns { pid, healthyAt, inRotationAt } (epoch ms).
 * @param {{ runDir?: string, service: string, index: number, notPid?: number, timeoutMs?: number }} options
 */
export async function waitServing({ runDir = DEFAULT_RUN_DIR, service, index, notPid, timeoutMs = 120_000 }) {
  const record = recordOf(runDir);
  const healthcheck = healthcheckOf(record, service);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = findContainer(record, service, index);
    if (c.pid !== notPid && await answers(c, healthcheck)) {
      const healthyAt = Date.now();
      await sleep(behindProxy(record, service) ? readmissionMs(record.sampleDir) : 0);
      return { pid: c.pid, healthyAt, inRotationAt: Date.now() };
    }
    if (Date.now() > deadline)
      throw new Error(`${c.name} did not serve again within ${timeoutMs / 1000} s (${statusOf(c)})`);
    await sleep(25);
  }
}
