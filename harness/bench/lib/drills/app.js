// The description of the app a run was started from (describeSample of the run's folder), for a
// drill that was not handed one: what it POSTs and where its writes are kept.
import { describeSample } from '../topologies/app-descriptions.js';

/**
 * { name, app }: the run's sample name and its description.
 * @param {import('../../../runner/index.js').Runner} runner @param {string} runDir
 */
export async function appOfRun(runner, runDir) {
  const state = await runner.readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (!state.sampleDir)
    throw new Error(`the run in ${runDir} names no sample folder: hand the drill the app's description`);
  return { name: state.sample, app: describeSample(state.sampleDir) };
}
