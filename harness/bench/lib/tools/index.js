// The three load generators behind one interface:
// run({url, connections, durationS, amount?, rate?}) -> {tool, requests, durationS, rps, latencyMs:{p50,p99,max}, non2xx, socketErrors}
import * as wrk from './wrk.js';
import * as autocannon from './autocannon.js';
import * as loadtest from './loadtest.js';

export const TOOLS = { wrk, autocannon, loadtest };

export function getTool(name) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool "${name}" (choose wrk, autocannon or loadtest)`);
  return tool;
}

/** wrk has no fixed-rate or fixed-count mode: those runs use loadtest unless autocannon was asked for. */
export function pacedToolName(name) {
  return name === 'autocannon' ? 'autocannon' : 'loadtest';
}
