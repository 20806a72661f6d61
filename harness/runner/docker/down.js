// down() on Docker: `docker compose down -v --remove-orphans` (containers, networks, volumes of the
// project), the run's cgroups, its record; with `engine: true` (make down ENGINE=docker) the private
// daemon too, if that is what ran it. Returns { stopped, left, cgroupsLeft, engineStopped }.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_RUN_DIR } from '../state.js';
import { stopPrivateEngine } from './connection.js';
import { removeRunGroups } from './cgroups.js';
import { OVERRIDE, compose, containers, docker, readRecord, removeRecord } from './project.js';

// What is still there with the project's label: containers, networks, volumes.
function leftovers(record) {
  const label = `label=com.docker.compose.project=${record.project}`;
  return [['ps', '-aq'], ['network', 'ls', '-q'], ['volume', 'ls', '-q']]
    .flatMap((cmd) => docker(record, [...cmd, '--filter', label], { check: false }).stdout?.trim().split('\n').filter(Boolean) ?? []);
}

export async function down({ runDir = DEFAULT_RUN_DIR, engine = false } = {}) {
  runDir = path.resolve(runDir);
  const record = readRecord(runDir);
  let stopped = 0;
  let left = [];
  let cgroupsLeft = [];
  if (record) {
    try { stopped = containers(record).filter((c) => c.running).length; } catch { /* its engine is gone: nothing runs */ }
    const res = compose(record, ['down', '-v', '--remove-orphans', '--timeout', '20'], { check: false, timeout: 180_000 });
    if (res.status === 0) left = leftovers(record);
    cgroupsLeft = removeRunGroups(record.runId);
    removeRecord(runDir);
    fs.rmSync(path.join(runDir, OVERRIDE), { force: true });
  }
  const engineStopped = engine ? await stopPrivateEngine() : false;
  return { sample: record?.sample, stopped, left, cgroupsLeft, engineStopped };
}
