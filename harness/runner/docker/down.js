// down() on Docker: `docker compose down -v --remove-orphans` (containers, networks, volumes of the
// project), the run's cgroups, its record; with `engine: true` (make down ENGINE=docker) the
// provided engine too (`stopEngine`), if that is what ran it. Returns { stopped, left, cgroupsLeft,
// engineStopped }.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { removeRunGroups } from './cgroups.js';
import { OVERRIDE, LEFTOVER_QUERIES, compose, containers, docker } from './project.js';
import { readRecord, removeRecord } from './record.js';

// What is still there of the project: containers, networks, volumes.
function leftovers(record) {
  return LEFTOVER_QUERIES(record.project).flatMap(
    (cmd) =>
      docker(record, cmd, { check: false })
        .stdout?.trim()
        .split('\n')
        .filter(Boolean) ?? [],
  );
}

/**
 * @param {{ runDir?: string, engine?: boolean }} [options]
 * @param {() => Promise<boolean>} [stopEngine]
 */
export async function down({ runDir = DEFAULT_RUN_DIR, engine = false } = {}, stopEngine = async () => false) {
  runDir = path.resolve(runDir);
  const record = readRecord(runDir);
  let stopped = 0;
  let left = [];
  let cgroupsLeft = [];
  if (record) {
    try {
      stopped = containers(record).filter((c) => c.running).length;
    } catch {
      /* its engine is gone: nothing runs */
    }
    const args = ['down', '-v', '--remove-orphans', '--timeout', '20'];
    const res = compose(record, args, { check: false, timeout: 180_000 });
    if (res.status === 0) left = leftovers(record);
    cgroupsLeft = removeRunGroups(record.runId);
    removeRecord(runDir);
    fs.rmSync(path.join(runDir, OVERRIDE), { force: true });
  }
  const engineStopped = engine ? await stopEngine() : false;
  return { sample: record?.sample, stopped, left, cgroupsLeft, engineStopped };
}
