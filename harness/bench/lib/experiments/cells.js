// Helpers the experiments share: a cell on a topology, a comparison between two cells, and the
// mode's rounds and windows. Each experiment keeps the original's tool, connections and duration
// and says where this machine made it scale something down.
import { workloadPath, appWith } from '../topologies/app-descriptions.js';
import { WORKLOADS } from '../workloads/index.js';
import { METRICS, EXTRA_METRICS } from '../judge/compared-metrics.js';

// The samples the Node experiments run on: an app with both a cluster and replicas, a plain node:http one.
const hasBoth = (a) => a.runtime === 'node' && a.knobs.workers && a.knobs.instances;
export const sampleWithBoth = (apps) => appWith(apps, hasBoth, 'a Node app with both a cluster and replicas').sample;
export const plainHttpSample = (apps) => appWith(apps, { framework: 'node:http' }, 'a plain node:http app').sample;

/**
 * @param {string} scenario @param {string} key @param {{ sample: string }} topology
 * @param {{ workload?: string, params?: object, [field: string]: any }} spec
 * @returns {Record<string, any>}
 */
export function cell(scenario, key, topology, { workload = 'light', params, ...rest }) {
  const path = workloadPath(topology.sample, workload, params ?? WORKLOADS[workload].params);
  return {
    id: `${scenario}:${key}`, scenario, kind: 'closed', workload, path, topology,
    needsDb: Boolean(WORKLOADS[workload]?.database), keep: true, ...rest,
  };
}

/** A comparison of two cells of an experiment: its ratio and 95% interval, as the verdicts get. */
export function compare(id, question, a, b, metric = 'throughput') {
  const m = METRICS[metric] ?? EXTRA_METRICS[metric];
  return {
    id, question, workload: a.workload, comparison: id, column: question, metric, better: m.better, a: a.id, b: b.id,
    limit: null,
  };
}
