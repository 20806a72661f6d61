// CPU and memory limits applied the way Docker applies `cpus:` and `memory:` (a CFS quota: cgroup
// v2 cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us, and a memory limit per instance), plus
// what the benchmark needs on top: a cpuset and a CPU budget for a whole run (every instance of a
// topology, nginx and databases included), CPU accounting per run and per instance, and pinning a
// process (the load generator) to CPUs of its own.
//
// Layout: <controller>/scaling-lab/<runId>/<instance>. The run group carries the cpuset and the
// budget; each instance group its own quota, memory limit and CPU usage.
import fs from 'node:fs';
import os from 'node:os';
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
const read = (file) => fs.readFileSync(file, 'utf8').trim();
const unique = (dirs) => [...new Map(dirs.map((d) => [realDir(d), d])).values()];
// A quota of `cpus` CPUs (none: unlimited) as cgroup v2 cpu.max and v1 cpu.cfs_quota_us write it.
const cpuMax = (cpus) => (cpus ? `${Math.round(cpus * PERIOD_US)} ${PERIOD_US}` : `max ${PERIOD_US}`);
const cfsQuota = (cpus) => (cpus ? Math.round(cpus * PERIOD_US) : -1);

// v1 hierarchies may be co-mounted (cpu,cpuacct): one directory then serves both.
function realDir(dir) {
  try { return path.join(fs.realpathSync(path.dirname(dir)), path.basename(dir)); } catch { return dir; }
}

// v1 controller roots (only those mounted).
function v1(controller) {
  const dir = path.join(ROOT, controller);
  return fs.existsSync(dir) ? dir : null;
}

/** "0-2,5" -> [0, 1, 2, 5]; throws on anything else. */
export function parseCpuList(text) {
  const out = new Set();
  for (const part of String(text).trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`'${text}' is not a CPU list (e.g. 1 or 0-3 or 1,3)`);
    const [a, b] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (b < a) throw new Error(`'${text}' is not a CPU list (range ${a}-${b} runs backwards)`);
    for (let c = a; c <= b; c += 1) out.add(c);
  }
  return [...out].sort((x, y) => x - y);
}

export const formatCpuList = (cpus) => cpus.join(',');

/** The CPUs this machine lets processes use (the root cpuset, else every core). */
export function availableCpus() {
  const v = version();
  const file =
    v === 2 ? path.join(ROOT, 'cpuset.cpus.effective') : v1('cpuset') && path.join(v1('cpuset'), 'cpuset.cpus');
  try { if (file) return parseCpuList(read(file)); } catch { /* not readable */ }
  return [...Array(os.cpus().length).keys()];
}

function v2Enable(dir, controllers = ['cpu', 'memory', 'cpuset']) {
  // Controllers must be enabled in the parent for a child group to get cpu.max / memory.max.
  for (const ctl of controllers) {
    try { write(path.join(dir, 'cgroup.subtree_control'), `+${ctl}`); } catch { /* may already be on, or absent */ }
  }
}

// A v1 cpuset group needs cpus and mems before a task may join; a new child starts empty.
function v1Cpuset(dir, cpus) {
  const parent = path.dirname(dir);
  fs.mkdirSync(dir, { recursive: true });
  write(path.join(dir, 'cpuset.mems'), read(path.join(parent, 'cpuset.mems')));
  write(path.join(dir, 'cpuset.cpus'), cpus ?? read(path.join(parent, 'cpuset.cpus')));
}

function v1Base(controller) {
  const root = v1(controller);
  if (!root) return null;
  const base = path.join(root, GROUP);
  if (controller === 'cpuset') v1Cpuset(base);
  else fs.mkdirSync(base, { recursive: true });
  return base;
}

// CPU weight of a prioritised run against everything else on the machine (v1 cpu.shares maximum,
// v2 cpu.weight maximum): other processes yield the run's CPUs to it while it is busy.
const PRIORITY = { 1: ['cpu.shares', 262144], 2: ['cpu.weight', 10000] };

/**
 * The run's own groups: `cpuset` (a CPU list string) pins every instance of the run to those CPUs;
 * `budget` (CPUs) caps the whole run with one quota, as `cpus:` caps one container; `priority`
 * gives the run the highest CPU weight, so other load on the machine disturbs it less.
 * Returns { dirs } for processes that belong to the run but to no instance.
 */
/** @param {string} runId @param {{ cpuset?: string, budget?: number, priority?: boolean }} [options] */
export function createRunGroups(runId, { cpuset, budget, priority = false } = {}) {
  const v = version();
  if (v === 0) throw new Error('no cgroup filesystem found');
  if (v === 2) {
    const base = path.join(ROOT, GROUP);
    fs.mkdirSync(base, { recursive: true });
    v2Enable(ROOT);
    v2Enable(base);
    const run = path.join(base, runId);
    fs.mkdirSync(run, { recursive: true });
    v2Enable(run);
    write(path.join(run, 'cpu.max'), cpuMax(budget));
    if (cpuset) write(path.join(run, 'cpuset.cpus'), cpuset);
    if (priority) prioritise([base, run], 2);
    return { dirs: [run] };
  }
  const dirs = [];
  const cpuRun = path.join(v1Base('cpu'), runId);
  fs.mkdirSync(cpuRun, { recursive: true });
  write(path.join(cpuRun, 'cpu.cfs_period_us'), PERIOD_US);
  write(path.join(cpuRun, 'cpu.cfs_quota_us'), cfsQuota(budget));
  if (priority) prioritise([path.dirname(cpuRun), cpuRun], 1);
  dirs.push(cpuRun);
  const acct = v1Base('cpuacct');
  if (acct) { fs.mkdirSync(path.join(acct, runId), { recursive: true }); dirs.push(path.join(acct, runId)); }
  if (cpuset) {
    const set = v1Base('cpuset');
    if (!set) throw new Error('no cpuset controller mounted');
    v1Cpuset(path.join(set, runId), cpuset);
    dirs.push(path.join(set, runId));
  }
  return { dirs: unique(dirs) };
}

// The weight counts among siblings, so the shared parent gets it too (it holds only runs).
function prioritise(dirs, v) {
  const [file, value] = PRIORITY[v];
  for (const dir of dirs) write(path.join(dir, file), value);
}

// One group per instance, inside the run's groups. Returns { dirs: [the instance's own groups],
// procs: [cgroup.procs files to join: its own groups and the run's cpuset, which all instances share] }.
/** @param {string} runId @param {string} instanceName @param {{ cpus?: number, memoryBytes?: number }} limits */
export function createGroup(runId, instanceName, { cpus, memoryBytes }) {
  const v = version();
  if (v === 0) throw new Error('no cgroup filesystem found');
  const dirs = [];
  if (v === 2) {
    const run = path.join(ROOT, GROUP, runId);
    if (!fs.existsSync(run)) createRunGroups(runId);
    const dir = path.join(run, instanceName);
    fs.mkdirSync(dir, { recursive: true });
    write(path.join(dir, 'cpu.max'), cpuMax(cpus));
    if (memoryBytes) write(path.join(dir, 'memory.max'), memoryBytes);
    dirs.push(dir);
  } else {
    if (!fs.existsSync(path.join(v1('cpu'), GROUP, runId))) createRunGroups(runId);
    const cpuDir = path.join(v1('cpu'), GROUP, runId, instanceName);
    fs.mkdirSync(cpuDir, { recursive: true });
    write(path.join(cpuDir, 'cpu.cfs_period_us'), PERIOD_US);
    write(path.join(cpuDir, 'cpu.cfs_quota_us'), cfsQuota(cpus));
    dirs.push(cpuDir);
    if (v1('cpuacct')) {
      const acctDir = path.join(v1('cpuacct'), GROUP, runId, instanceName);
      fs.mkdirSync(acctDir, { recursive: true });
      dirs.push(acctDir);
    }
    if (memoryBytes) {
      const memDir = path.join(v1('memory'), GROUP, runId, instanceName);
      fs.mkdirSync(memDir, { recursive: true });
      write(path.join(memDir, 'memory.limit_in_bytes'), memoryBytes);
      dirs.push(memDir);
    }
  }
  const own = unique(dirs);
  const procs = own.map((d) => path.join(d, 'cgroup.procs'));
  // The run's cpuset (when it has one, v1) holds every instance directly.
  const setProcs = runCpusetProcs(runId);
  if (setProcs) procs.push(setProcs);
  return { dirs: own, procs };
}

/** The cgroup.procs file of a run's own cpuset group (cgroup v1, where it has one), which its instances join. */
export function runCpusetProcs(runId) {
  const dir = version() === 1 && v1('cpuset') && path.join(v1('cpuset'), GROUP, runId);
  return dir && fs.existsSync(dir) ? path.join(dir, 'cgroup.procs') : null;
}

/** What a run's pinning to `cpus` (a CPU list) is, where cgroups enforce it. */
export const pinnedTo = (cpus) => ({
  enforced: true, cpus, mechanism: version() === 2 ? 'cgroup v2 cpuset.cpus' : 'cgroup v1 cpuset',
});

// Writes `value` to `file`; returns what writes the old value back (an empty v2 cpuset: inherit).
function rewrite(file, value) {
  const old = read(file);
  write(file, value);
  return () => write(file, old === '' ? '\n' : old);
}

/**
 * Sets the CPU quota of a run's group (no instanceName: its budget) or of one instance's or
 * container's group inside it: `cpus` CPUs, null for none. Returns what puts the old one back.
 * @param {string} runId @param {string | undefined} instanceName @param {number | null} cpus
 */
export function setCpuQuota(runId, instanceName, cpus) {
  const v = version();
  const dir = path.join(v === 2 ? ROOT : v1('cpu'), GROUP, runId, instanceName ?? '');
  return v === 2
    ? rewrite(path.join(dir, 'cpu.max'), cpuMax(cpus))
    : rewrite(path.join(dir, 'cpu.cfs_quota_us'), cfsQuota(cpus));
}

/**
 * Pins a run's group to `cpus` (a CPU list). On cgroup v1 a run started unpinned has no cpuset
 * group of its own: it gets one now, and with `adopt` every process of the run joins it (the
 * processes backend; Docker's runc makes the group itself). Returns what undoes it.
 * @param {string} runId @param {string} cpus @param {{ adopt?: boolean }} [options]
 */
export function setRunCpuset(runId, cpus, { adopt = false } = {}) {
  if (version() === 2) return rewrite(path.join(ROOT, GROUP, runId, 'cpuset.cpus'), cpus);
  const base = v1Base('cpuset');
  if (!base) throw new Error('no cpuset controller mounted');
  const dir = path.join(base, runId);
  if (fs.existsSync(dir)) return rewrite(path.join(dir, 'cpuset.cpus'), cpus);
  v1Cpuset(dir, cpus);
  const members = () => read(path.join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
  // A process forked while the others move may start outside: a few rounds until every one is in.
  for (let round = 0; adopt && round < 5; round += 1) {
    const outside = runPids(runId).filter((pid) => !members().includes(pid));
    if (!outside.length) break;
    for (const pid of outside) try { write(path.join(dir, 'cgroup.procs'), pid); } catch { /* gone meanwhile */ }
  }
  return () => {
    for (const pid of members()) try { write(path.join(v1('cpuset'), 'cgroup.procs'), pid); } catch { /* gone */ }
    fs.rmdirSync(dir);
  };
}

// Whether quotas (and, if asked, a cpuset) can be enforced here; probed by creating and removing groups.
/** @param {string} runId @param {{ cpuset?: string }} [options] */
export function probe(runId, { cpuset } = {}) {
  const v = version();
  const accounting = v === 2 ? 'cgroup v2 cpu.stat' : v1('cpuacct') ? 'cgroup v1 cpuacct.usage' : 'proc utime+stime';
  if (v === 0) {
    return {
      enforced: false,
      mechanism: 'none',
      reason: `no cgroup filesystem at ${ROOT}`,
      accounting: 'proc utime+stime',
      pinning: unpinned(cpuset, 'no cgroup filesystem'),
    };
  }
  try {
    const group = createGroup(runId, 'probe', { cpus: 1 });
    /** @type {{ enforced: boolean, cpus: string | null, reason?: string, mechanism?: string }} */
    let pinning = { enforced: false, cpus: null, reason: 'not asked' };
    if (cpuset) {
      try {
        createRunGroups(runId, { cpuset });
        pinning = pinnedTo(cpuset);
      } catch (err) {
        pinning = unpinned(cpuset, `cpuset not writable (${err.code ?? err.message})`);
      }
    }
    for (const dir of group.dirs) if (path.basename(dir) === 'probe') fs.rmdirSync(dir);
    removeRun(runId); // leave nothing behind if the run fails before its first instance
    return {
      enforced: true,
      mechanism: v === 2 ? 'cgroup v2 cpu.max' : 'cgroup v1 cpu.cfs_quota_us',
      accounting,
      pinning,
    };
  } catch (err) {
    const why = `cgroups not writable (${err.code ?? err.message})`;
    return {
      enforced: false,
      mechanism: 'none',
      reason: `${why}; running without CPU/memory limits`,
      accounting: 'proc utime+stime',
      pinning: unpinned(cpuset, why),
    };
  }
}

const unpinned = (cpuset, reason) =>
  cpuset
    ? { enforced: false, cpus: null, reason: `${reason}: running unpinned` }
    : { enforced: false, cpus: null, reason: 'not asked' };

function runDirs(runId) {
  if (version() === 2) return [path.join(ROOT, GROUP, runId)];
  return unique(['cpu', 'cpuacct', 'cpuset', 'memory'].map(v1).filter(Boolean).map((r) => path.join(r, GROUP, runId)));
}

/** Whether any of a run's groups is still there. */
export const runExists = (runId) => runDirs(runId).some((d) => fs.existsSync(d));

// Removes a run's groups once their processes have gone. Best effort: a group with a live
// process in it can't be removed, and that is reported, not hidden. A group that is gone already
// (another teardown of the same run got there first: an up() cancelled by a down() from another
// process takes its run down while the down() may too) is what was wanted, not an error.
export function removeRun(runId) {
  const left = [];
  const gone = (err) => err.code === 'ENOENT';
  for (const base of runDirs(runId)) {
    let children;
    try {
      children = fs.readdirSync(base, { withFileTypes: true });
    } catch (err) {
      if (gone(err)) continue;
      throw err;
    }
    for (const child of children.filter((c) => c.isDirectory())) {
      const dir = path.join(base, child.name);
      try { fs.rmdirSync(dir); } catch (err) { if (!gone(err)) left.push(dir); }
    }
    try { fs.rmdirSync(base); } catch (err) { if (!gone(err) && !left.length) left.push(base); }
  }
  return left;
}

function parseStat(text) {
  return Object.fromEntries(
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [k, v] = l.split(/\s+/);
        return [k, Number(v)];
      }),
  );
}

/** CPU time (ns) a run's group, or one instance's, has used since it was created; null if unknown. */
export function cpuUsageNs(runId, instanceName) {
  const v = version();
  const rel = instanceName ? path.join(GROUP, runId, instanceName) : path.join(GROUP, runId);
  try {
    if (v === 2) return parseStat(read(path.join(ROOT, rel, 'cpu.stat'))).usage_usec * 1000;
    if (v === 1 && v1('cpuacct')) return Number(read(path.join(v1('cpuacct'), rel, 'cpuacct.usage')));
  } catch { /* no such group */ }
  return null;
}

/** CFS throttling counters of a run's group or one instance's: { periods, throttled, throttledMs }. */
export function throttling(runId, instanceName) {
  const v = version();
  const rel = instanceName ? path.join(GROUP, runId, instanceName) : path.join(GROUP, runId);
  try {
    const s = parseStat(read(path.join(v === 2 ? ROOT : v1('cpu'), rel, 'cpu.stat')));
    return {
      periods: s.nr_periods,
      throttled: s.nr_throttled,
      throttledMs: v === 2 ? s.throttled_usec / 1000 : s.throttled_time / 1e6,
    };
  } catch { return null; }
}

/** Pids in a run's groups (every instance, and whatever they started). */
export function runPids(runId) {
  const pids = new Set();
  const walk = (dir) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    try {
      for (const p of read(path.join(dir, 'cgroup.procs')).split('\n').filter(Boolean)) pids.add(Number(p));
    } catch {
      /* gone */
    }
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  const base = version() === 2 ? path.join(ROOT, GROUP, runId) : v1('cpu') && path.join(v1('cpu'), GROUP, runId);
  if (base) walk(base);
  return [...pids].sort((a, b) => a - b);
}

/** Pids in one instance's group (the instance and whatever it started). */
export function instancePids(runId, instanceName) {
  const base =
    version() === 2
      ? path.join(ROOT, GROUP, runId, instanceName)
      : v1('cpu') && path.join(v1('cpu'), GROUP, runId, instanceName);
  try { return read(path.join(base, 'cgroup.procs')).split('\n').filter(Boolean).map(Number); } catch { return []; }
}

/**
 * Pins a running process (all its threads, and what it starts later) to `cpus` (a CPU list string)
 * in a group of its own. Returns { cpus, release() }; release moves it back and removes the group.
 */
export function pinProcess(name, pid, cpus) {
  const v = version();
  if (v === 0) throw new Error('no cgroup filesystem found');
  if (v === 2) {
    const base = path.join(ROOT, GROUP);
    fs.mkdirSync(base, { recursive: true });
    v2Enable(ROOT, ['cpuset']);
    v2Enable(base, ['cpuset']);
    const dir = path.join(base, name);
    fs.mkdirSync(dir, { recursive: true });
    write(path.join(dir, 'cpuset.cpus'), cpus);
    const before = read(`/proc/${pid}/cgroup`).split('\n').find((l) => l.startsWith('0::'))?.slice(3) ?? '/';
    write(path.join(dir, 'cgroup.procs'), pid);
    return {
      cpus,
      release: () => {
        try {
          write(path.join(ROOT, before, 'cgroup.procs'), pid);
        } catch {
          /* gone */
        }
        try {
          fs.rmdirSync(dir);
        } catch {
          /* busy */
        }
      },
    };
  }
  const base = v1Base('cpuset');
  if (!base) throw new Error('no cpuset controller mounted');
  const dir = path.join(base, name);
  v1Cpuset(dir, cpus);
  write(path.join(dir, 'cgroup.procs'), pid);
  return {
    cpus,
    release: () => {
      try { write(path.join(v1('cpuset'), 'cgroup.procs'), pid); } catch { /* gone */ }
      try { fs.rmdirSync(dir); } catch { /* still has members */ }
    },
  };
}
