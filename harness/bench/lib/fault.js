// Fault drill: fixed-rate load while an instance or worker is killed every few seconds.
// Fixed rate (open loop), so every topology is offered the same requests and failures compare.
import { getTool, pacedToolName } from './tools/index.js';
import { round } from './stats.js';
import { verify } from './verify.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * how: 'instance' kills runner instance k (SIGKILL) then restarts it, as a compose restart policy would;
 *      'worker' SIGKILLs one cluster worker by pid and lets the primary respawn it.
 */
export async function faultDrill({ topo, url, workload, tool, rate, durationS, everyS, how, tick }) {
  await verify(url, workload);
  const name = pacedToolName(tool);
  const load = getTool(name).run({ url, rate, durationS, connections: 50, timeoutS: 5 });
  const kills = [];
  const t0 = Date.now();
  let stop = false;
  load.finally(() => { stop = true; }).catch(() => {});
  const killer = (async () => {
    let n = 0;
    while (!stop) {
      // On a fixed schedule: a slow restart doesn't push the next kill back.
      await sleep(Math.max(0, t0 + (n + 1) * everyS * 1000 - Date.now()));
      if (stop || Date.now() - t0 > (durationS - 1) * 1000) break;
      const at = round((Date.now() - t0) / 1000, 1);
      try {
        if (how === 'worker') {
          const workers = await topo.workers();
          if (workers.length === 0) throw new Error('no worker processes found under the cluster primary');
          const pid = workers[n % workers.length];
          process.kill(pid, 'SIGKILL');
          kills.push({ atS: at, pid });
        } else {
          const index = (n % topo.instanceCount) + 1;
          await topo.signal(index, 'SIGKILL');
          const before = Date.now();
          await topo.restart(index);
          kills.push({ atS: at, index, backAfterS: round((Date.now() - before) / 1000, 2) });
        }
      } catch (e) {
        kills.push({ atS: at, error: e.message });
      }
      n++;
      tick?.();
    }
  })();
  const [r] = await Promise.all([load, killer]);
  const failed = r.non2xx + r.socketErrors;
  return {
    tool: name, rate, durationS, everyS, how,
    requests: r.requests, failed,
    failedPct: r.requests ? round((100 * failed) / r.requests, 2) : null,
    non2xx: r.non2xx, socketErrors: r.socketErrors, errorDetail: r.socketErrorDetail,
    latencyMs: r.latencyMs,
    kills,
  };
}
