// What the benchmark knows of an app comes from the app's own compose files: its `x-bench` field
// names the app and proxy services, the runtime, each workload's path, the knobs the strategies turn
// and the app's place in a run (harness/bench/README.md, "How an app describes itself"). The samples
// of this repository keep it in compose.lab.yaml, beside compose.yaml (which it is merged on);
// `make bench APP=…` generates one for a service of yours.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../lib/repo-root.js';
import { resolveSample, listSamples, readCompose, LAB_FILE } from '../../../runner/index.js';

const cache = new Map();

const objectOr = (x, fallback) => (typeof x === 'object' && x !== null ? x : fallback);

// The health path of the app's compose healthcheck (an http://127.0.0.1:<port>/path in its test).
function healthOf(service) {
  const test = [service?.healthcheck?.test ?? []].flat().join(' ');
  return /https?:\/\/(?:127\.0\.0\.1|localhost)(?::\d+)?(\/[^\s"']*)/.exec(test)?.[1] ?? null;
}

/** The app's x-bench description, checked for what the bench relies on. `sample`: a folder name
 * of this repository or a path to any folder with a compose.yaml. */
export function describeSample(sample) {
  if (cache.has(sample)) return cache.get(sample);
  const { name, dir } = resolveSample(sample);
  const doc = readCompose(dir);
  const x = doc['x-bench'];
  const file = fs.existsSync(path.join(dir, LAB_FILE)) ? LAB_FILE : 'compose.yaml';
  const where = `${path.relative(REPO_ROOT, dir) || dir}/${file}`;
  if (!x) throw new Error(`${where} has no x-bench field: the benchmark can't measure it`);
  for (const key of ['app', 'runtime', 'framework', 'knobs']) {
    if (!x[key]) throw new Error(`${where}: x-bench.${key} is missing`);
  }
  if (!x.workloads && !x.requests) {
    throw new Error(`${where}: x-bench has neither workloads nor requests: nothing to measure`);
  }
  for (const svc of [x.app, x.proxy, x.database, x.writes?.service].filter(Boolean)) {
    if (!doc.services?.[svc]) {
      throw new Error(`${where}: x-bench names service '${svc}', which the file doesn't define`);
    }
  }
  const label = x.name ?? x.framework;
  const described = {
    // How the runner finds it again: a folder name of this repository, or the path given.
    sample,
    folder: name,
    dir,
    name: label,
    key: x.key ?? String(label).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
    app: x.app,
    proxy: x.proxy ?? null,
    database: x.database ?? null,
    runtime: x.runtime,
    framework: x.framework,
    health: x.health ?? healthOf(doc.services[x.app]) ?? '/',
    knobs: x.knobs,
    processManagers: x.process_managers ?? [],
    strategies: x.strategies ?? null,
    baseline: Boolean(x.baseline),
    asked: objectOr(x.asked, {}),
    defaults: Object.fromEntries(Object.entries(x.defaults ?? {}).map(([k, v]) => [k, String(v ?? '')])),
    withoutDatabase: x.without_database ?? null,
    // { compose_file }: the files `docker compose` runs on the docker engine (COMPOSE_FILE's spelling).
    docker: x.docker ?? null,
    engines: x.engines ?? ['processes', 'docker'],
    // Whether a running deployment may be moved to another budget (run/families.js): not where the
    // runtime sizes itself from its CPUs at start-up (.NET's thread pool and GC heaps).
    movable: x.movable ?? x.runtime === 'node',
    // A build step before its first local start (x-local.build, e.g. dotnet publish): the estimate counts it.
    builds: Boolean(doc.services[x.app]?.['x-local']?.build),
    post: x.post ?? null,
    writes: x.writes ?? null,
    // A GET answering { provider, serverVersion } of the store: kept with every database-bound cell.
    databaseInfo: x.database_info ?? null,
    // { process: s (the first cell on a started deployment), <workload>: s (every cell of it) }
    warmupMinS: objectOr(x.warmup_min_s, { process: x.warmup_min_s ?? 0 }),
    workloads: x.workloads ?? {},
    requests: x.requests ?? [],
  };
  cache.set(sample, described);
  return described;
}

/** The folders of this repository an app can be measured from (those whose compose files have x-bench). */
export function listApps() {
  return listSamples().filter((s) => {
    try { return Boolean(describeSample(s)); } catch { return false; }
  });
}

/** The path of a workload on an app, its {placeholders} filled from `params`; null if it has none. */
export function workloadPath(sample, workload, params = {}) {
  const app = describeSample(sample);
  const own = app.requests.find((r) => r.name === workload);
  const template = own?.path ?? app.workloads[workload];
  if (!template) return null;
  return template.replace(/\{(\w+)\}/g, (whole, key) => {
    if (params[key] === undefined) throw new Error(`${sample}: workload ${workload} needs {${key}}`);
    return String(params[key]);
  });
}

/**
 * The one app of `apps` that has what an experiment needs (e.g. { framework: 'node:http' }, or a
 * predicate); one line naming the need when none has it.
 * @param {any[]} apps @param {Record<string, string> | ((app: any) => boolean)} need @param {string} what
 */
export function appWith(apps, need, what) {
  const test = typeof need === 'function' ? need : (a) => Object.entries(need).every(([k, v]) => a[k] === v);
  const found = apps.find(test);
  if (!found) throw new Error(`no app here is ${what}`);
  return found;
}
