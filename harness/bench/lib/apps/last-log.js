// The last line a service of a run logged: what a failed cell records when the app crashed mid-run,
// and what a failed app check names. The launchers' own lines ([bench-wrap …]) are passed over when
// the app said anything after them, so a worker's crash reads as the app's error, not as "exited".
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor } from '../../../runner/index.js';
import { attempt } from '../../wrap/listening.js';

const PROGRESS = /^\[bench-wrap \d+\] /;
const ERROR_LINE = /^(\w+)?(Error|Exception)\b[^:]*:/;

/**
 * The line that says most of what happened last: the last error line (`Error: listen EADDRINUSE …`)
 * where there is one, else the last line; null when only the launchers ([bench-wrap …]) spoke. Node's
 * crash output puts its stack, the error's own fields and "Node.js v24…" below the error.
 */
export function lastMeaningfulLine(text) {
  const noise = (l) => /^(at\s|\^+$|Node\.js v\d|[{}[\]]+$|\w+: ('.*'|-?\d+|true|false|null|undefined),?$|Emitted '\w+' event|\[bench-wrap \d+\])/.test(l);
  const said = String(text).split('\n').map((l) => l.trim()).filter((l) => l && !noise(l));
  const error = said.findLast((l) => ERROR_LINE.test(l));
  return (error ?? said.at(-1))?.slice(0, 400) ?? null;
}

function tail(file, bytes = 16_384) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, bytes));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    return buf.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

// Processes: the runner keeps each instance's output in <runDir>/logs/<sample>-<service>-<n>.log,
// also after the run is down. Newest first: the instance that wrote last said the last thing.
function logFiles(runDir, service) {
  const dir = path.join(path.resolve(runDir), 'logs');
  const mine = new RegExp(`-${service}-\\d+\\.log$`);
  const files = attempt(() => fs.readdirSync(dir), []).filter((f) => mine.test(f)).map((f) => path.join(dir, f));
  return attempt(() => files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs), []);
}

// Docker: the containers' own logs, through the run's record (while the project exists).
function fromContainers(record, service) {
  const args = [
    'compose', '-p', record.project, ...record.files.flatMap((f) => ['-f', f]),
    'logs', '--no-log-prefix', '--tail', '50', service,
  ];
  const res = spawnSync('docker', args, { cwd: record.sampleDir, encoding: 'utf8', timeout: 30_000,
    env: { ...process.env, ...record.env, ...(record.host ? { DOCKER_HOST: record.host } : {}) } });
  return res.status === 0 ? lastMeaningfulLine(`${res.stdout}\n${res.stderr}`) : null;
}

/**
 * What a processes-run service wrote last on its stdout and stderr, the launchers' progress lines
 * left out: from its last error line (a Node crash's `Error: …`, then its stack) where there is one
 * near the end, else its last `lines` lines; `text` is '' where it printed nothing of its own. Null
 * without a log. `file`: the log it is in (the newest of the service's instances).
 * @param {{ runDir: string, service: string, lines?: number }} what
 */
export function lastOutput({ runDir, service, lines = 12 }) {
  const files = logFiles(runDir, service);
  if (!files.length) return null;
  const own = tail(files[0]).split('\n').filter((l) => l.trim() && !PROGRESS.test(l)).slice(-40);
  const error = own.findLastIndex((l) => ERROR_LINE.test(l.trim()));
  const from = error >= 0 && own.length - error <= 2 * lines ? error : own.length - lines;
  return { file: files[0], text: own.slice(Math.max(0, from)).join('\n') };
}

/**
 * What `service` of the run in `runDir` logged last, or null.
 * @param {{ runDir: string, service: string, engine?: string }} options
 */
export async function lastLogLine({ runDir, service, engine = 'processes' }) {
  if (engine === 'docker') {
    const record = await runnerFor('docker').readState(path.resolve(runDir));
    return record ? fromContainers(record, service) : null;
  }
  return logFiles(runDir, service).map((f) => lastMeaningfulLine(tail(f))).find(Boolean) ?? null;
}
