// The run's state as its supervisor keeps it: in memory, changed only by the supervisor's own
// event loop (one command or exit at a time, so two changes never interleave and none is lost),
// and written to the snapshot file after each change.
import fs from 'node:fs';
import { writeSnapshot, removeSnapshot } from './snapshot.js';

export function stateStore(runDir, log) {
  /** @type {Record<string, any> | undefined} */
  let state;

  function save() {
    try { writeSnapshot(state); } catch (err) { log(`could not write the snapshot: ${err.message}`); }
  }

  return {
    get: () => state,
    /** The state up() begins with; once per run. */
    init(initial) {
      if (state) throw new Error(`${state.sample} is already running from ${runDir}`);
      state = { ...initial, runDir, supervisor: { pid: process.pid } };
      save();
      return state;
    },
    /**
     * `change(state)` mutates the state in place; nothing is saved when there is no state yet or
     * `change` returns false. Returns the state as saved, or undefined.
     */
    update(change) {
      if (!state || change(state) === false) return undefined;
      save();
      return state;
    },
    instance: (service, index) => state?.services?.[service]?.instances.find((i) => i.index === index),
    /** The run folder was removed (a test's clean-up, say): nobody can reach this run any more. */
    gone: () => !fs.existsSync(runDir),
    /** A run taken down leaves no snapshot. */
    remove() {
      state = undefined;
      removeSnapshot(runDir);
    },
  };
}
