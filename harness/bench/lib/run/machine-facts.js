// What the numbers were measured on: machine, versions, git commit, CPU quota enforcement.
import os from 'node:os';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { TOOLS } from '../tools/index.js';
import { nginxBinary } from '../../../lib/nginx-binary.js';
import { track } from './cleanup.js';
import { REPO_ROOT as REPO } from '../../../lib/repo-root.js';

// The version probes still running. `dotnet --version` takes a second or more: a Ctrl-C in that
// second must not leave it behind, so Ctrl-C's stopAll waits for it and an exit kills any left.
const probes = new Set();
process.on('exit', () => {
  for (const child of probes) child.kill('SIGKILL');
});

function sh(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 10000, ...opts }, (err, stdout, stderr) =>
      resolve(err ? null : `${stdout}${stderr}`.trim()));
    probes.add(child);
    const gone = new Promise((done) => child.once('close', done));
    const untrack = track(() => (child.kill('SIGKILL'), gone));
    gone.then(() => { probes.delete(child); untrack(); });
  });
}

const osName = () => readFile('/etc/os-release', 'utf8')
  .then((text) => /PRETTY_NAME="([^"]+)"/.exec(text)?.[1] ?? null, () => null);

async function cgroupVersion() {
  try { await readFile('/sys/fs/cgroup/cgroup.controllers'); return 'v2'; } catch { /* not v2 */ }
  try { await readFile('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'); return 'v1'; } catch { return 'none'; }
}

function cpuTimes() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), idle: f[3] + (f[4] ?? 0), steal: f[7] ?? 0 };
  } catch { return null; }
}

/** The share of the machine's CPU time in use over the last `ms` (0..1), or null where unknown. */
export async function busyShare(ms = 1000) {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  if (!a || !b || b.total <= a.total) return null;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

/** The box at one moment: load average and CPU counters (for steal and busy time over a span). */
export function boxSnapshot() {
  return { at: new Date().toISOString(), loadAvg: os.loadavg().map((x) => Math.round(x * 100) / 100), cpu: cpuTimes() };
}

/**
 * The box over the run: load before and after, the share of CPU time stolen by the hypervisor,
 * and whether the machine was busy before we started (someone else's load skews everything).
 */
export function boxReport(before, after, cores = os.availableParallelism(), coreSpeed = null) {
  const d = before.cpu && after.cpu
    ? { total: after.cpu.total - before.cpu.total, steal: after.cpu.steal - before.cpu.steal }
    : null;
  const stealPct = d && d.total > 0 ? Math.round((1000 * d.steal) / d.total) / 10 : null;
  // The CPU in use when the run started, where measured; the load average lags a minute behind.
  const busyBefore = before.busyShare != null
    ? before.busyShare >= 0.5 && `${Math.round(before.busyShare * 100)}% of the CPU in use before the run`
    : before.loadAvg[0] > cores / 2 && `load average ${before.loadAvg[0]} on ${cores} cores before the run`;
  const stolen = stealPct > 5 && `${stealPct}% of CPU time stolen by the hypervisor during the run`;
  const why = [busyBefore, stolen].filter(Boolean);
  return {
    loadBefore: before.loadAvg, loadAfter: after.loadAvg, busyBefore: before.busyShare ?? null, stealPct,
    ...(coreSpeed ? { coreSpeed } : {}), busy: why.length > 0, busyWhy: why.join('; ') || null,
  };
}

/** @param {{ cpuLimits?: object }} [options] */
export async function collectMeta({ cpuLimits } = {}) {
  const [commit, dirty, nginx, dotnet, osPretty, cg] = await Promise.all([
    sh('git', ['rev-parse', 'HEAD'], { cwd: REPO }),
    sh('git', ['status', '--porcelain'], { cwd: REPO }),
    sh(nginxBinary(), ['-v']),
    sh('dotnet', ['--version']),
    osName(),
    cgroupVersion(),
  ]);
  const tools = {};
  for (const [name, t] of Object.entries(TOOLS)) tools[name] = await t.version();
  return {
    machine: {
      hostname: os.hostname(),
      os: osPretty ?? `${os.type()} ${os.release()}`,
      kernel: os.release(),
      arch: os.arch(),
      cpuModel: os.cpus()[0]?.model ?? null,
      cores: os.availableParallelism(),
      memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    },
    versions: {
      node: process.versions.node,
      nginx: nginx?.match(/nginx\/(\S+)/)?.[1] ?? null,
      dotnet: dotnet ?? null,
      ...tools,
    },
    git: { commit: commit ?? 'none (no commit yet)', dirty: dirty === null ? null : dirty.length > 0 },
    cgroup: cg,
    cpuLimits: cpuLimits ?? null,
  };
}
