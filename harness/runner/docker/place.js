// `place` on Docker: a running run moved without a restart. `docker update --cpus` on a service's
// containers (its quota per container) and `--cpuset-cpus` on every container, the budget and
// cpuset of the run's cgroup_parent group (cgroup.js), in an order the kernel accepts
// (common/placement-steps.js); then the record (record.js) and the override (override.js), so that
// the containers of a later scale or reload are placed alike. Docker keeps an update across a
// container's restart.
import { availableCpus, formatCpuList, setCpuQuota, setRunCpuset } from '../common/cgroup.js';
import { PlacementError } from '../common/errors.js';
import { changesOf, nextPlacement } from '../common/placement.js';
import { applyPlacement, undoable } from '../common/placement-steps.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { cgroupLayout } from './connection.js';
import { limitsOf } from './cgroups.js';
import { placementOf, writeOverride } from './override.js';
import { containers, docker, sampleConfig } from './project.js';
import { recordOf, updateRecord } from './record.js';

/** @typedef {import('../common/placement.js').Placement} Placement */

// A service's quota per container: the one placed, else its compose file's (deploy.resources.limits.cpus or cpus).
const cpusOf = (record, name, svc) =>
  record.cpus?.[name] ?? (Number(svc.deploy?.resources?.limits?.cpus ?? svc.cpus) || null);

/** The run's placement now, from its record and the sample's compose files. @returns {Placement} */
function placementNow(record, config) {
  const cpus = Object.fromEntries(
    Object.entries(config.services).map(([name, svc]) => [name, cpusOf(record, name, svc)]),
  );
  return { cpuset: record.isolation?.cpuset ?? null, budget: record.isolation?.budget ?? null, cpus };
}

// `docker update` of some containers, stopped ones too (one started again later must fit the run's
// group); what it returns puts each back as its inspect said it was.
/** @param {Record<string, any>} record @param {any[]} list @param {{ cpus?: number | null, cpuset?: string }} change */
function updateContainers(record, list, { cpus, cpuset }) {
  if (!list.length || (cpus === undefined && cpuset === undefined)) return () => {};
  const before = new Map(JSON.parse(docker(record, ['inspect', ...list.map((c) => c.id)]).stdout)
    .map((c) => [c.Id, c.HostConfig]));
  const update = (id, { nanoCpus, cpusetCpus }) => {
    const args = [
      ...(nanoCpus === undefined ? [] : ['--cpus', String(nanoCpus / 1e9)]),
      ...(cpusetCpus === undefined ? [] : ['--cpuset-cpus', cpusetCpus]),
    ];
    if (args.length) docker(record, ['update', ...args, id]);
  };
  return undoable(list.map((c) => () => {
    const was = before.get(c.id);
    update(c.id, { nanoCpus: cpus === undefined ? undefined : Math.round(cpus * 1e9), cpusetCpus: cpuset });
    // `docker update --cpus 0` takes no quota away: a container that had none keeps the new one.
    return () => update(c.id, {
      nanoCpus: cpus === undefined || !was.NanoCpus ? undefined : was.NanoCpus,
      cpusetCpus: cpuset === undefined ? undefined : was.CpusetCpus || formatCpuList(availableCpus()),
    });
  }));
}

/**
 * The processes backend's place() on Docker: same options, same result.
 * @param {import('../common/contract.js').PlaceOptions} options
 * @returns {Promise<Placement>}
 */
export async function place({ runDir = DEFAULT_RUN_DIR, log = () => {}, ...ask } = {}) {
  const record = recordOf(runDir);
  if (record.phase !== 'up') throw new Error(`${record.sample} is ${record.phase}: place it once it is up`);
  const config = sampleConfig(record);
  const now = placementNow(record, config);
  const every = Object.fromEntries(Object.keys(config.services).map((n) => [n, null]));
  const { next, width } = nextPlacement(now, ask, every);
  if (next.budget !== now.budget && !record.cgroupParent)
    throw new PlacementError(`no run-wide budget on this engine (${record.cpuLimits.budget?.reason ?? 'no parent'})`);
  const changes = changesOf(now, next);
  if (!changes.length) return next;
  const all = containers(record);
  applyPlacement(now, next, {
    runCpuset: (cpus) => (record.cgroupParent ? setRunCpuset(record.runId, cpus) : () => {}),
    runBudget: (budget) => setCpuQuota(record.runId, undefined, budget),
    service: (name, change) => updateContainers(record, all.filter((c) => c.service === name), change),
  });
  const isolation = {
    ...record.isolation, cpuset: next.cpuset ?? undefined, cpus: width, budget: next.budget ?? undefined,
  };
  const cpuLimits = limitsOf(record.runId, cgroupLayout(record.host), isolation);
  updateRecord(record, (r) => Object.assign(r, { isolation, cpuLimits, cpus: next.cpus }));
  writeOverride(record.runDir, config, placementOf(record));
  log(`placed ${record.sample} (engine: docker): ${changes.join(', ')}`);
  return next;
}
