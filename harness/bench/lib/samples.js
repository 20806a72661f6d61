// What the benchmark knows of a sample comes from the sample's own compose.yaml: its `x-bench`
// field names the app and proxy services, the runtime, each workload's path and the knobs.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { resolveSample } from '../../runner/index.js';

const cache = new Map();

/** The sample's x-bench description, checked for what the bench relies on. */
export function describeSample(sample) {
  if (cache.has(sample)) return cache.get(sample);
  const { name, dir } = resolveSample(sample);
  const doc = YAML.parse(fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf8'));
  const x = doc['x-bench'];
  const where = `${path.relative(REPO_ROOT, dir) || dir}/compose.yaml`;
  if (!x) throw new Error(`${where} has no x-bench field: the benchmark can't measure it`);
  for (const key of ['app', 'runtime', 'framework', 'workloads', 'knobs']) {
    if (!x[key]) throw new Error(`${where}: x-bench.${key} is missing`);
  }
  for (const svc of [x.app, x.proxy, x.database].filter(Boolean)) {
    if (!doc.services?.[svc]) throw new Error(`${where}: x-bench names service '${svc}', which the file doesn't define`);
  }
  const described = {
    sample: name,
    app: x.app,
    proxy: x.proxy ?? null,
    database: x.database ?? null,
    runtime: x.runtime,
    framework: x.framework,
    knobs: x.knobs,
    defaults: Object.fromEntries(Object.entries(x.defaults ?? {}).map(([k, v]) => [k, String(v ?? '')])),
    withoutDatabase: x.without_database ?? null,
    // { compose_file }: the files `docker compose` runs on the docker engine (COMPOSE_FILE's spelling).
    docker: x.docker ?? null,
    post: x.post ?? null,
    // { process: s (the first cell on a started deployment), <workload>: s (every cell of it) }
    warmupMinS: typeof x.warmup_min_s === 'object' && x.warmup_min_s !== null ? x.warmup_min_s : { process: x.warmup_min_s ?? 0 },
    workloads: x.workloads,
  };
  cache.set(sample, described);
  return described;
}

/** The path of a workload on a sample, its {placeholders} filled from `params`; null if it has none. */
export function workloadPath(sample, workload, params = {}) {
  const template = describeSample(sample).workloads[workload];
  if (!template) return null;
  return template.replace(/\{(\w+)\}/g, (whole, key) => {
    if (params[key] === undefined) throw new Error(`${sample}: workload ${workload} needs {${key}}`);
    return String(params[key]);
  });
}
