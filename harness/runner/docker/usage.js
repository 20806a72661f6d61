// What a run on Docker costs, in the processes backend's shape (runner/usage.js): CPU time and CFS
// throttling of each container from its own cgroup (inside the run's cgroup_parent), memory, threads
// and context switches of its processes (their PSS, read from /proc as for local processes, so the
// two backends count alike). Where the containers' cgroups are not reachable (another cgroup
// driver, another host): `docker stats --no-stream`, memory only, and the source says so.
import * as cgroup from '../common/cgroup.js';
import { memoryOf } from '../common/memory.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { containers, docker } from './project.js';
import { recordOf } from './record.js';

const MIB = { B: 1 / 1048576, KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1024.0, MB: 1e6 / 1048576, GB: 1e9 / 1048576 };

// "12.3MiB / 256MiB" -> 12.3
function statsMiB(text) {
  const m = /^([\d.]+)\s*([A-Za-z]+)/.exec(text ?? '');
  return m ? Math.round(Number(m[1]) * (MIB[m[2]] ?? 1) * 10) / 10 : 0;
}

function fromStats(record, running) {
  const lines = docker(record, ['stats', '--no-stream', '--format', '{{json .}}', ...running.map((c) => c.id)])
    .stdout.trim()
    .split('\n')
    .filter(Boolean);
  const byId = new Map(lines.map((l) => JSON.parse(l)).map((s) => [s.ID, s]));
  const instances = running.map((c) => {
    const s = byId.get(c.id.slice(0, 12)) ?? byId.get(c.id);
    const mib = statsMiB(s?.MemUsage);
    return {
      service: c.service,
      index: c.index,
      name: c.name,
      cpuNs: null,
      throttling: null,
      memory: {
        pssMiB: mib,
        anonMiB: mib,
        rssMiB: mib,
        processes: Number(s?.PIDs ?? 0),
        threads: 0,
        contextSwitches: { voluntary: 0, involuntary: 0 },
      },
    };
  });
  const sum = (f) => Math.round(instances.reduce((n, i) => n + f(i), 0) * 10) / 10;
  return {
    source: "docker stats --no-stream (the containers' cgroups are not reachable: no CPU time)",
    cpuNs: null,
    instances,
    throttling: null,
    memory: {
      pssMiB: sum((i) => i.memory.pssMiB),
      anonMiB: sum((i) => i.memory.anonMiB),
      rssMiB: sum((i) => i.memory.rssMiB),
      processes: sum((i) => i.memory.processes),
      threads: 0,
      contextSwitches: { voluntary: 0, involuntary: 0 },
    },
  };
}

/** A snapshot of the run's cost; subtract two snapshots' cpuNs for a measurement's CPU time. */
export async function usage({ runDir = DEFAULT_RUN_DIR } = {}) {
  const record = recordOf(runDir);
  const running = containers(record).filter((c) => c.running);
  if (!record.cgroupParent) return fromStats(record, running);
  const instances = running.map((c) => {
    const pids = cgroup.instancePids(record.runId, c.id);
    return {
      service: c.service, index: c.index, name: c.name,
      cpuNs: cgroup.cpuUsageNs(record.runId, c.id),
      throttling: cgroup.throttling(record.runId, c.id),
      memory: memoryOf(pids),
    };
  });
  return {
    source: record.cpuLimits.accounting,
    // The run's group also holds containers that have exited since: what they used still counts.
    cpuNs: cgroup.cpuUsageNs(record.runId) ?? instances.reduce((s, i) => s + (i.cpuNs ?? 0), 0),
    instances,
    throttling: cgroup.throttling(record.runId),
    memory: memoryOf(cgroup.runPids(record.runId)),
  };
}
