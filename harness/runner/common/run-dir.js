// A run folder: where a run's state, logs and data live (one run per folder), and the short id
// that names its cgroups, its supervisor's socket and its Compose project.
import path from 'node:path';
import crypto from 'node:crypto';
import { REPO_ROOT } from '../../lib/repo-root.js';

export const DEFAULT_RUN_DIR = path.join(REPO_ROOT, '.run');

/** A short id per run folder. */
export const runIdOf = (runDir) => crypto.createHash('sha1').update(path.resolve(runDir)).digest('hex').slice(0, 10);
