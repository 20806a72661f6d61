// A private Docker daemon for the Docker tests: its own data root (kept under .tools/docker/, so the
// stand-in images survive between runs), exec root, pidfile and Unix socket (under .run/docker/),
// no userland proxy and published ports on 127.0.0.1 only. Started in a process group of its own so
// a Ctrl-C reaches the tests, which then stop it (stopDaemon) rather than it dying mid-cleanup.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../lib/repo-root.js';

export const DATA_ROOT = path.join(REPO_ROOT, '.tools', 'docker', 'data-root');
export const RUN_DIR = path.join(REPO_ROOT, '.run', 'docker');
const PIDFILE = path.join(RUN_DIR, 'dockerd.pid');
const SOCKET = path.join(RUN_DIR, 'docker.sock');
const LOG = path.join(RUN_DIR, 'dockerd.log');
export const DOCKER_HOST = `unix://${SOCKET}`;

const found = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** Why no Docker engine can be started here, or null when one can. */
export function engineUnavailable() {
  if (process.getuid?.() !== 0) return 'not root (a private dockerd needs root)';
  if (!found('dockerd')) return 'no dockerd (make setup installs Docker Engine 28 from Debian sid)';
  if (spawnSync('docker', ['compose', 'version']).status !== 0) return 'no Docker Compose v2 (make setup installs it)';
  if (!found('mmdebstrap')) return 'no mmdebstrap to build the stand-in images (make setup installs it)';
  if (!fs.existsSync('/sys/fs/cgroup/memory') && !fs.existsSync('/sys/fs/cgroup/cgroup.controllers'))
    return 'no cgroups mounted';
  return null;
}

export function docker(args, opts = {}) {
  return spawnSync('docker', args, {
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 << 20,
    ...opts,
    env: { ...process.env, DOCKER_HOST, ...opts.env },
  });
}

function lastLines(file, n) {
  try { return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-n).join('\n'); } catch { return '(no log)'; }
}

/** Starts the daemon; throws with the end of its log when it does not answer within 60 s. */
export async function startDaemon() {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  fs.mkdirSync(DATA_ROOT, { recursive: true });
  const stale = Number(fs.existsSync(PIDFILE) && fs.readFileSync(PIDFILE, 'utf8'));
  if (stale && alive(stale))
    throw new Error(`another test run's dockerd is running (pid ${stale}, ${PIDFILE}); stop it first`);
  fs.rmSync(PIDFILE, { force: true });
  fs.rmSync(SOCKET, { force: true });
  const config = {
    'data-root': DATA_ROOT,
    'exec-root': path.join(RUN_DIR, 'exec'),
    pidfile: PIDFILE,
    hosts: [DOCKER_HOST],
    'userland-proxy': false,
    ip: '127.0.0.1',
    'storage-driver': 'overlay2',
    'log-driver': 'json-file',
    'log-opts': { 'max-size': '10m', 'max-file': '2' },
    features: { buildkit: true },
  };
  const configFile = path.join(RUN_DIR, 'daemon.json');
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  const log = fs.openSync(LOG, 'w');
  const child = spawn('dockerd', ['--config-file', configFile], { detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  child.unref();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (docker(['version', '--format', '{{.Server.Version}}'], { timeout: 5000 }).status === 0)
      return { pid: child.pid, host: DOCKER_HOST };
    await sleep(300);
  }
  try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  throw new Error(`dockerd did not start: ${lastLines(LOG, 5)}`);
}

/** Removes every container, network, volume and swarm of the private daemon (images stay cached). */
export function removeEverything() {
  docker(['swarm', 'leave', '--force'], { timeout: 30_000 });
  const ids = docker(['ps', '-aq']).stdout?.trim().split('\n').filter(Boolean) ?? [];
  if (ids.length) docker(['rm', '-fv', ...ids], { timeout: 120_000 });
  docker(['network', 'prune', '-f']);
  docker(['volume', 'prune', '-af']);
}

/** Removes everything, then stops the daemon (SIGTERM, SIGKILL after 30 s). */
export async function stopDaemon() {
  const pid = Number(fs.existsSync(PIDFILE) && fs.readFileSync(PIDFILE, 'utf8'));
  if (!pid || !alive(pid)) return;
  removeEverything();
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 300 && alive(pid); i++) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  // dockerd leaves its default bridge behind; remove it unless another daemon is there to use it.
  if (spawnSync('pgrep', ['-x', 'dockerd']).status !== 0) spawnSync('ip', ['link', 'delete', 'docker0']);
}
