// Shared by the bench-app tests: small services written into a temp folder as a user would have
// them (plain node:http, nothing of this repository), and the leak checks every case ends with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcesses } from '../runner/index.js';

const made = [];

/** Removes every folder userFolder() made (each test file: after(removeFolders)). */
export function removeFolders() {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A folder under the system's temp dir holding `files` ({ name: text }); returns its path. */
export function userFolder(label, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-app-${label}-`));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/**
 * A plain node:http service: GET / and /health answer JSON with its pid, GET /crash throws outside
 * any handler (the process dies with that error), GET /fail answers 500, anything else 404.
 * `listen` is the listen call.
 */
export function httpService(listen = "server.listen(Number(process.env.PORT), '127.0.0.1')") {
  return `const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/crash') { setImmediate(() => { throw new Error('crash requested by GET /crash'); }); }
  const found = ['/', '/health', '/crash'].includes(req.url);
  res.writeHead(req.url === '/fail' ? 500 : found ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(found ? { pid: process.pid } : { error: 'not found' }));
});
${listen};
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;
}

/**
 * A folder's state, to compare before and after: each entry (node_modules' own files left out: its
 * folders count) with its kind, size and modification time. Sorted.
 */
export function folderState(dir) {
  const walk = (rel) => fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const name = path.join(rel, d.name);
    const st = fs.lstatSync(path.join(dir, name));
    const row = `${name} ${st.isSocket() ? 'socket' : d.isDirectory() ? 'dir' : 'file'} ${st.size} ${st.mtimeMs}`;
    return d.isDirectory() && d.name !== 'node_modules' ? [row, ...walk(name)] : [row];
  });
  return walk('').sort();
}

/** Live processes whose working folder is `dir` or under it (an app the bench started there). */
export function processesIn(dir) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${name}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return found;
}

// What each strategy record sets on a generated Node app's knobs (x-bench.knobs), at 2 processes.
export const STRATEGY_KNOBS = Object.freeze({
  'one process': { CLUSTERING_ENABLED: 'false' },
  'cluster of 2': { CLUSTERING_ENABLED: 'true', PROCESS_MANAGER: 'cluster', WORKERS: '2' },
  'PM2, 2 instances': { PROCESS_MANAGER: 'pm2', WORKERS: '2' },
  '2 replicas × 0.5 CPU': { CLUSTERING_ENABLED: 'false', REPLICAS: '2', CPUS: '0.5' },
});

/** The statuses of `n` GETs of `pathname` (through nginx: `url` is the run's). */
export async function getThrough(url, pathname, n = 6) {
  const codes = [];
  for (let i = 0; i < n; i += 1) {
    codes.push((await fetch(`${url}${pathname}`, { signal: AbortSignal.timeout(5000) })).status);
  }
  return codes;
}

/** Every process of a run folder that is still alive (the runner gives each LAB_RUN_DIR). */
export const leftRunning = (runDir) => runProcesses(runDir);

/** Cgroups of instances whose name starts with `name` (the runner's <sample>-<service>-<n>) still there. */
export function cgroupsLeft(name) {
  const roots = ['cpu', 'cpu,cpuacct', '.'].map((c) => path.join('/sys/fs/cgroup', c, 'scaling-lab'))
    .filter((r) => fs.existsSync(r));
  const runs = roots.flatMap((r) => fs.readdirSync(r, { withFileTypes: true })
    .filter((d) => d.isDirectory()).map((d) => path.join(r, d.name)));
  return runs.flatMap((run) => fs.readdirSync(run).filter((f) => f.startsWith(`${name}-`))
    .map((f) => path.join(run, f)));
}
