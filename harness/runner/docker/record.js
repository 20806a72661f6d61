// A run's record on Docker, <runDir>/docker.json: the project, the compose files, the knobs it was
// started with, the engine, the port ranges and, once up, its services. This module is its one
// writer (temporary file + rename: a reader never sees half a file); the others change it through
// updateRecord.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';

export const recordFile = (runDir) => path.join(path.resolve(runDir), 'docker.json');

/** The run's record, or undefined when nothing was started on Docker from runDir. */
export function readRecord(runDir = DEFAULT_RUN_DIR) {
  try { return JSON.parse(fs.readFileSync(recordFile(runDir), 'utf8')); } catch { return undefined; }
}

function write(record) {
  fs.mkdirSync(record.runDir, { recursive: true });
  const tmp = `${recordFile(record.runDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  fs.renameSync(tmp, recordFile(record.runDir));
}

/** The record of a run about to start (phase 'starting'). */
export function createRecord(record) {
  write(record);
  return record;
}

/**
 * Applies `change` (which mutates the record it is given) to the record as it is on disk, and to
 * `record`, the caller's copy, so both agree. Returns the caller's copy.
 * @param {Record<string, any>} record @param {(r: Record<string, any>) => void} change
 */
export function updateRecord(record, change) {
  const saved = readRecord(record.runDir) ?? record;
  change(saved);
  change(record);
  write(saved);
  return record;
}

/** The run's record, or one line saying nothing runs on Docker from runDir. */
export function recordOf(runDir) {
  const record = readRecord(runDir);
  if (!record) throw new Error(`nothing running on Docker from ${runDir}`);
  return record;
}

export const removeRecord = (runDir) => fs.rmSync(recordFile(runDir), { force: true });
