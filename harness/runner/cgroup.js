// CPU and memory limits applied the way Docker applies `cpus:` and `memory:`: a CFS quota
// (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us) and a memory limit per instance.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = process.env.LAB_CGROUP_ROOT ?? '/sys/fs/cgroup';
const PERIOD_US = 100_000; // Docker's default CFS period
const GROUP = 'scaling-lab';

function version() {
  if (fs.existsSync(path.join(ROOT, 'cgroup.controllers'))) return 2;
  if (fs.existsSync(path.join(ROOT, 'cpu', 'cpu.cfs_quota_us'))) return 1;
  return 0;
}

const write = (file, value) => fs.writeFileSync(file, String(value));

function v2Enable(dir) {
  // Controllers must be enabled in the parent for a child group to get cpu.max / memory.max.
  for (const ctl of ['cpu', 'memory']) {
    try { write(path.join(dir, 'cgroup.subtree_control'), `+${ctl}`); } catch { /* may already be on */ }
  }
}

// One group per instance. Returns { procs: [cgroup.procs files], dirs: [...] } or throws.
export function createGroup(runId, instanceName, { cpus, memoryBytes }) {
  const v = version();
  if (v === 0) throw new Error('no cgroup filesystem found');
  const dirs = [];
  if (v === 2) {
    const base = path.join(ROOT, GROUP);
    fs.mkdirSync(base, { recursive: true });
    v2Enable(ROOT);
    v2Enable(base);
    const run = path.join(base, runId);
    fs.mkdirSync(run, { recursive: true });
    v2Enable(run);
    const dir = path.join(run, instanceName);
    fs.mkdirSync(dir, { recursive: true });
    write(path.join(dir, 'cpu.max'), cpus ? `${Math.round(cpus * PERIOD_US)} ${PERIOD_US}` : `max ${PERIOD_US}`);
    if (memoryBytes) write(path.join(dir, 'memory.max'), memoryBytes);
    dirs.push(dir);
  } else {
    const cpuDir = path.join(ROOT, 'cpu', GROUP, runId, instanceName);
    fs.mkdirSync(cpuDir, { recursive: true });
    write(path.join(cpuDir, 'cpu.cfs_period_us'), PERIOD_US);
    write(path.join(cpuDir, 'cpu.cfs_quota_us'), cpus ? Math.round(cpus * PERIOD_US) : -1);
    dirs.push(cpuDir);
    if (memoryBytes) {
      const memDir = path.join(ROOT, 'memory', GROUP, runId, instanceName);
      fs.mkdirSync(memDir, { recursive: true });
      write(path.join(memDir, 'memory.limit_in_bytes'), memoryBytes);
      dirs.push(memDir);
    }
  }
  return { dirs, procs: dirs.map((d) => path.join(d, 'cgroup.procs')) };
}

// Whether quotas can be enforced here, and how; probed by creating and removing a group.
export function probe(runId) {
  const v = version();
  if (v === 0) return { enforced: false, mechanism: 'none', reason: `no cgroup filesystem at ${ROOT}` };
  try {
    const group = createGroup(runId, 'probe', { cpus: 1 });
    for (const dir of group.dirs) fs.rmdirSync(dir);
    removeRun(runId); // leave nothing behind if the run fails before its first instance
    return { enforced: true, mechanism: v === 2 ? 'cgroup v2 cpu.max' : 'cgroup v1 cpu.cfs_quota_us' };
  } catch (err) {
    return { enforced: false, mechanism: 'none', reason: `cgroups not writable (${err.code ?? err.message}); running without CPU/memory limits` };
  }
}

// Removes a run's groups once their processes have gone. Best effort: a group with a live
// process in it can't be removed, and that is reported, not hidden.
export function removeRun(runId) {
  const left = [];
  const bases = version() === 2 ? [path.join(ROOT, GROUP, runId)]
    : [path.join(ROOT, 'cpu', GROUP, runId), path.join(ROOT, 'memory', GROUP, runId)];
  for (const base of bases) {
    if (!fs.existsSync(base)) continue;
    for (const child of fs.readdirSync(base, { withFileTypes: true })) {
      if (!child.isDirectory()) continue;
      try { fs.rmdirSync(path.join(base, child.name)); } catch { left.push(path.join(base, child.name)); }
    }
    try { fs.rmdirSync(base); } catch { /* not empty */ }
  }
  return left;
}
