// The run's cgroups on Docker: a parent group per run (the processes backend's run group, made by
// cgroup.js: the run's cpuset, CPU budget and weight), named to the engine as `cgroup_parent`, so
// each container's group sits inside it (cgroupfs driver) and its CPU time and memory are read
// from there. runc adds the run's folder in the controllers cgroup.js does not use (pids, blkio, …);
// removeRunGroups takes those away too.
import fs from 'node:fs';
import path from 'node:path';
import * as cgroup from '../common/cgroup.js';

const ROOT = process.env.LAB_CGROUP_ROOT ?? '/sys/fs/cgroup';
const GROUP = 'scaling-lab';
const OWNED = new Set(['cpu', 'cpuacct', 'cpu,cpuacct', 'cpuacct,cpu', 'cpuset', 'memory']);

export const parentOf = (runId) => `/${GROUP}/${runId}`;

/**
 * What the engine enforces of a run's placement ({ cpuset, budget }) here: the run's cpuLimits.
 * layout: { driver, version, local } of the engine (connection.js).
 */
export function limitsOf(runId, layout, { cpuset, budget }) {
  const pinningAsked = cpuset
    ? { enforced: true, cpus: cpuset, mechanism: 'docker cpuset' }
    : { enforced: false, cpus: null, reason: 'not asked' };
  const perContainer = 'docker: each container\'s deploy.resources.limits (CFS quota, memory limit)';
  if (layout.driver !== 'cgroupfs' || !layout.local) {
    const why = layout.local ? `the engine's cgroup driver is ${layout.driver}` : 'the engine runs on another host';
    return {
      enforced: true, mechanism: perContainer, accounting: 'docker stats --no-stream (memory only)',
      budget: budget ? { enforced: false, reason: `${why}: no run-wide budget` } : null, pinning: pinningAsked,
    };
  }
  return {
    enforced: true,
    mechanism: `${perContainer}${budget ? `; the run's budget of ${budget} CPU on its cgroup_parent` : ''}`,
    accounting: `cgroup v${layout.version} ${layout.version === 2 ? 'cpu.stat' : 'cpuacct.usage'} of each ` +
      `container (cgroup_parent ${parentOf(runId)})`,
    budget: budget ? { enforced: true, cpus: budget } : null,
    pinning: cpuset ? { ...pinningAsked, mechanism: "docker cpuset, within the run's cpuset group" } : pinningAsked,
  };
}

/**
 * Creates the run's parent group where the engine puts containers' groups in this host's cgroup
 * tree; returns { cgroupParent, cpuLimits } saying what is enforced.
 */
export function createRunParent(runId, layout, { cpuset, budget, priority }) {
  const cpuLimits = limitsOf(runId, layout, { cpuset, budget });
  if (layout.driver !== 'cgroupfs' || !layout.local) return { cgroupParent: null, cpuLimits };
  cgroup.createRunGroups(runId, { cpuset, budget, priority });
  return { cgroupParent: parentOf(runId), cpuLimits };
}

function removeTree(dir, left) {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const e of entries) if (e.isDirectory()) removeTree(path.join(dir, e.name), left);
  try { fs.rmdirSync(dir); } catch (err) { if (err.code !== 'ENOENT') left.push(dir); }
}

/** Removes the run's groups once its containers are gone; returns the folders that could not go. */
export function removeRunGroups(runId) {
  const left = cgroup.removeRun(runId);
  let controllers;
  try { controllers = fs.readdirSync(ROOT); } catch { return left; }
  for (const ctl of controllers) {
    const base = path.join(ROOT, ctl, GROUP);
    if (!fs.existsSync(path.join(base, runId))) continue;
    removeTree(path.join(base, runId), left);
    // The shared folder of a controller only runc uses: gone once no run is in it.
    if (!OWNED.has(ctl)) try { fs.rmdirSync(base); } catch { /* another run's */ }
  }
  return left;
}
