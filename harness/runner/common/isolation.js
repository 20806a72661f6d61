// Where a run may run: its CPU set, its CPU budget and its priority, checked against the CPUs this
// machine lets us use. Both backends place a run by it (the processes backend's run cgroup, the
// Docker backend's cpuset and cgroup_parent).
import * as cgroup from './cgroup.js';

// `priority` puts the run ahead of other load on the machine (the highest CPU weight).
// `cpuset` (CPU list, e.g. "1" or "2-5") pins every process of the run; `budget` (CPUs) caps the
// whole run with one quota. The benchmark uses both to give the load generator CPUs of its own.
export function isolationOf(opts) {
  const available = cgroup.availableCpus();
  let cpus = available;
  if (opts.cpuset !== undefined && opts.cpuset !== null && opts.cpuset !== '') {
    cpus = cgroup.parseCpuList(opts.cpuset);
    const missing = cpus.filter((c) => !available.includes(c));
    if (missing.length)
      throw new Error(
        `cpuset ${opts.cpuset} names CPU ${missing.join(',')}, which this machine doesn't let us use (available: ` +
          `${cgroup.formatCpuList(available)})`,
      );
  }
  const budget = opts.budget === undefined || opts.budget === null ? undefined : Number(opts.budget);
  if (budget !== undefined && !(budget > 0 && budget <= cpus.length)) {
    throw new Error(
      `a CPU budget of ${opts.budget} doesn't fit on the ${cpus.length} CPU(s) ` +
        `${opts.cpuset ? `of cpuset ${opts.cpuset}` : 'of this machine'}`,
    );
  }
  return {
    cpuset: opts.cpuset ? cgroup.formatCpuList(cpus) : undefined,
    cpus: cpus.length,
    budget,
    priority: Boolean(opts.priority),
  };
}
