// Generator ceiling: each tool against a bare nginx `return 200` (ceiling/compose.yaml), with the
// generator and nginx pinned as the topologies will be. A result above GENERATOR_BOUND of it says
// more about the generator than about the server.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTool } from './tools/index.js';
import { stopRunDir } from './run/deployments.js';
import { track } from './cleanup.js';

export const GENERATOR_BOUND = 0.7;
const CEILING = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'ceiling');

/** Measures each named tool's ceiling (req/s) with the isolation the cells get. */
export async function measureCeilings(toolNames, { runner, runDir, isolation, durationS = 5, connections = 64, onStep }) {
  if (toolNames.length === 0) return {};
  const untrack = track(() => stopRunDir(runner, runDir));
  const out = {};
  try {
    const state = await runner.up({ sample: CEILING, runDir, env: { HTTP_PORT: '0' }, cpuset: isolation.pinned ? isolation.sutCpus : undefined, budget: isolation.budgetCpus, priority: true });
    for (const name of toolNames) {
      onStep?.(`generator ceiling: ${name}`);
      const r = await getTool(name).run({ url: `${state.url}/`, connections, durationS, threads: isolation.generatorThreads });
      out[name] = { rps: Math.round(r.rps), connections, durationS, latencyMs: r.latencyMs };
    }
  } finally {
    await stopRunDir(runner, runDir);
    untrack();
  }
  return out;
}
