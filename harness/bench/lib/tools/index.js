// The four load generators behind one interface:
// run({url, connections, durationS, amount?, rate?, threads?})
//   -> {tool, requests, durationS, rps, latencyMs:{p50,p90,p99,max}, non2xx, socketErrors, socketErrorDetail}
import * as wrk from './wrk.js';
import * as autocannon from './autocannon.js';
import * as loadtest from './loadtest.js';
import * as paced from './paced.js';

export const TOOLS = { wrk, autocannon, loadtest, paced };

export function getTool(name) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool "${name}" (choose wrk, autocannon, loadtest or paced)`);
  return tool;
}

/**
 * The experiments' fixed-rate and fixed-count runs (their articles' tools): wrk has neither mode, so
 * they use autocannon; loadtest where an experiment used it. Latency at a fixed rate and the open
 * loop use `paced` (paced.js), which sends on schedule.
 */
export function pacedToolName(name) {
  return name === 'loadtest' ? 'loadtest' : 'autocannon';
}
