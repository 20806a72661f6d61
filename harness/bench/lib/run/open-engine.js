// The engine a run's topologies go through, opened once by measure-plan.js (and by the drills' and
// the app check's commands): which one (the runner's selectEngine chose it), its Runner, and for
// Docker the private daemon this run started, stopped again by release().
import { runnerFor } from '../../../runner/index.js';
import { track } from './cleanup.js';

/**
 * @typedef {object} Engine
 * @property {{ name: string, chosen: string, version?: string, daemon?: string }} record
 *   what results.json keeps (protocol.engine)
 * @property {import('../../../runner/index.js').Runner} runner    the engine's Runner (runner/index.js)
 * @property {() => Promise<void>} release  stops what opening it started (the private Docker daemon)
 */

/**
 * Opens the chosen engine: for docker gets one running (the private daemon when none answers)
 * before the bench pins itself to the generator's CPUs.
 * @param {{ engine: string, why: string }} choice @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<Engine>}
 */
export async function openEngine({ engine: name, why }, { log } = {}) {
  let runner;
  try {
    runner = await runnerFor(name);
  } catch (e) {
    throw new Error(`the runner (harness/runner, engine ${name}) cannot be loaded: ${e.message}`, { cause: e });
  }
  if (name !== 'docker') return { record: { name, chosen: why }, runner, release: async () => {} };
  const running = runner.runningEngine();
  const e = await runner.ensureEngine({ log });
  let started = !running;
  const release = async () => {
    if (!started) return;
    started = false;
    await runner.stopPrivateEngine();
  };
  if (started) track(release);
  const daemon = e.private ? 'private (harness/docker-engine, userland proxy off)' : 'existing';
  return { record: { name, chosen: why, version: e.version, daemon }, runner, release };
}
