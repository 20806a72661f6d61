// How many CPUs this process may really use: the smallest of the cgroup CPU quota, the CPU
// affinity and os.availableParallelism(). os.cpus() reports the host's cores inside a
// `cpus:`-limited container, and availableParallelism() only follows quotas with a recent libuv
// (and not on every cgroup layout), so the quota is read here directly.
// Pure logic: every file read goes through `readFile`, so tests can hand in a fake tree.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const defaultRead = (file) => fs.readFileSync(file, 'utf8');

function tryRead(readFile, file) {
  try {
    return readFile(file);
  } catch {
    return undefined;
  }
}

// /proc/self/cgroup lines: "hierarchy-id:controllers:path" (v2 has the single line "0::path").
export function parseProcCgroup(text = '') {
  const entries = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (m) entries.push({ id: Number(m[1]), controllers: m[2].split(',').filter(Boolean), path: m[3] || '/' });
  }
  return entries;
}

// The group's path and each ancestor's, deepest first; a limit anywhere above applies too.
// In a container the path in /proc/self/cgroup is the host's while the mount shows the
// container's own group at its root, so the mount root is always tried last.
function candidateDirs(mountRoot, groupPath) {
  const dirs = [];
  let p = path.posix.normalize(`/${groupPath}`);
  for (;;) {
    dirs.push(path.posix.join(mountRoot, p));
    if (p === '/') break;
    p = path.posix.dirname(p);
  }
  return dirs;
}

// cgroup v2 "cpu.max": "<quota> <period>" or "max <period>".
export function parseCpuMax(text) {
  if (text === undefined) return undefined;
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === 'max') return Infinity;
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : undefined;
}

// cgroup v1 cpu.cfs_quota_us (-1 = unlimited) / cpu.cfs_period_us.
export function parseCfs(quotaText, periodText) {
  if (quotaText === undefined || periodText === undefined) return undefined;
  const q = Number(quotaText.trim());
  const p = Number(periodText.trim());
  if (q === -1) return Infinity;
  return q > 0 && p > 0 ? q / p : undefined;
}

function minDefined(values) {
  const found = values.filter((v) => v !== undefined);
  return found.length ? Math.min(...found) : undefined;
}

// The CPU quota in CPUs (e.g. 1.5), Infinity when unlimited, undefined when nothing was found.
export function cgroupQuota({ readFile = defaultRead, root = '/sys/fs/cgroup' } = {}) {
  const entries = parseProcCgroup(tryRead(readFile, '/proc/self/cgroup'));
  const quotas = [];

  const v2 = entries.find((e) => e.id === 0 && e.controllers.length === 0);
  if (v2) {
    for (const dir of candidateDirs(root, v2.path)) {
      quotas.push(parseCpuMax(tryRead(readFile, path.posix.join(dir, 'cpu.max'))));
    }
  }

  const v1 = entries.find((e) => e.controllers.includes('cpu'));
  if (v1) {
    // The cpu controller is mounted as cpu/, or cpu,cpuacct/ on some distributions.
    for (const mount of ['cpu', 'cpu,cpuacct', 'cpuacct,cpu']) {
      for (const dir of candidateDirs(path.posix.join(root, mount), v1.path)) {
        quotas.push(parseCfs(
          tryRead(readFile, path.posix.join(dir, 'cpu.cfs_quota_us')),
          tryRead(readFile, path.posix.join(dir, 'cpu.cfs_period_us')),
        ));
      }
    }
  }
  return minDefined(quotas);
}

// "0-3,8,10-11" -> 7
export function parseCpuList(text) {
  if (!text) return undefined;
  let count = 0;
  for (const part of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return undefined;
    count += m[2] === undefined ? 1 : Number(m[2]) - Number(m[1]) + 1;
  }
  return count > 0 ? count : undefined;
}

// Like `nproc` (sched_getaffinity): the CPUs this process may be scheduled on.
export function affinityCount({ readFile = defaultRead } = {}) {
  const status = tryRead(readFile, '/proc/self/status') ?? '';
  const m = /^Cpus_allowed_list:\s*(.+)$/m.exec(status);
  return m ? parseCpuList(m[1]) : undefined;
}

// Effective CPUs: ceil of the quota, capped by affinity and availableParallelism, at least 1.
export function effectiveCpus({
  readFile = defaultRead,
  root = '/sys/fs/cgroup',
  availableParallelism = os.availableParallelism(),
} = {}) {
  const quota = cgroupQuota({ readFile, root });
  const limits = [availableParallelism, affinityCount({ readFile })];
  if (quota !== undefined && Number.isFinite(quota)) limits.push(Math.ceil(quota));
  const n = minDefined(limits.filter((v) => Number.isFinite(v) && v > 0));
  return Math.max(1, n ?? 1);
}

// WORKERS wins when it is a positive integer; anything else is an error the caller reports.
export function workerCount(env = process.env, options = {}) {
  const raw = (env.WORKERS ?? '').trim();
  if (raw !== '') {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      throw new Error(`WORKERS must be a positive integer, got "${raw}"`);
    }
    return { count: Number(raw), source: 'WORKERS' };
  }
  return { count: effectiveCpus(options), source: 'cpu quota/affinity' };
}
