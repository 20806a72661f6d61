// The three load generators behind one interface:
// run({url, connections, durationS, amount?, rate?, threads?}) -> {tool, requests, durationS, rps, latencyMs:{p50,p99,max}, non2xx, socketErrors}
import * as wrk from './wrk.js';
import * as autocannon from './autocannon.js';
import * as loadtest from './loadtest.js';

export const TOOLS = { wrk, autocannon, loadtest };

export function getTool(name) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool "${name}" (choose wrk, autocannon or loadtest)`);
  return tool;
}

/**
 * Fixed-rate and fixed-count runs: wrk has neither mode, so they use autocannon, which at a fixed
 * rate corrects its latencies for coordinated omission; loadtest only where an experiment used it.
 */
export function pacedToolName(name) {
  return name === 'loadtest' ? 'loadtest' : 'autocannon';
}
