// Consistency checks over one rendered, deployable kustomization: the manifests against the app's
// code and compose file. Each finding is { entry, path, message } (a field of a rendered object)
// or { field, message } (about the kustomization as a whole).
import fs from 'node:fs';
import path from 'node:path';
import { PLACEHOLDER } from './samples.js';
import { drainOf, drainOrder } from './drain.js';
import { databasePolicies } from './network-checks.js';

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'Job', 'DaemonSet']);
const POD = ['spec', 'template', 'spec'];

const refOf = (obj) => `${obj.kind}/${obj.metadata?.name}`;
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// '500m' -> 0.5, '2' -> 2.
export function cpus(quantity) {
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(String(quantity ?? ''));
  if (!m) return undefined;
  return m[2] ? Number(m[1]) / 1000 : Number(m[1]);
}

function containersOf(entry) {
  const pod = entry.obj.spec?.template?.spec ?? {};
  return ['initContainers', 'containers'].flatMap((list) =>
    (pod[list] ?? []).map((c, i) => ({ c, at: [...POD, list, i] })),
  );
}

const subset = (selector, labels) => selector && Object.keys(selector).length > 0
  && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

// A literal env value of the container, else the compose service's, else undefined.
function envValue(container, compose, name) {
  const item = (container.env ?? []).find((e) => e.name === name);
  if (item && item.value !== undefined) return item.value;
  return compose.appEnv[name];
}

function security(entry, writableRoot) {
  const issues = [];
  const podContext = entry.obj.spec.template.spec.securityContext ?? {};
  for (const { c, at } of containersOf(entry)) {
    const sc = c.securityContext ?? {};
    if ((sc.runAsNonRoot ?? podContext.runAsNonRoot) !== true) {
      issues.push({
        entry,
        path: [...POD, 'securityContext', 'runAsNonRoot'],
        message: `must be true (pod or container ${c.name})`,
      });
    }
    if (sc.allowPrivilegeEscalation !== false)
      issues.push({ entry, path: [...at, 'securityContext', 'allowPrivilegeEscalation'], message: 'must be false' });
    if (!(sc.capabilities?.drop ?? []).includes('ALL'))
      issues.push({ entry, path: [...at, 'securityContext', 'capabilities', 'drop'], message: 'must drop ALL' });
    if (sc.readOnlyRootFilesystem !== true && !writableRoot.includes(c.name)) {
      issues.push({
        entry,
        path: [...at, 'securityContext', 'readOnlyRootFilesystem'],
        message: 'must be true (mount an emptyDir where the app writes)',
      });
    }
  }
  return issues;
}

function resources(entry) {
  const issues = [];
  for (const { c, at } of containersOf(entry)) {
    for (const kind of ['requests', 'limits']) {
      for (const res of ['cpu', 'memory']) {
        if (c.resources?.[kind]?.[res] === undefined)
          issues.push({ entry, path: [...at, 'resources', kind, res], message: 'must be set' });
      }
    }
  }
  return issues;
}

function images(entry, compose, extra) {
  const allowed = new Set([...compose.images, ...extra]);
  return containersOf(entry)
    .filter(({ c }) => !allowed.has(c.image))
    .map(({ c, at }) => ({
      entry,
      path: [...at, 'image'],
      message: `'${c.image}' is not an image of compose.yaml (${[...compose.images].join(', ')})`,
    }));
}

// Committed Secrets hold placeholders only (every kustomization, deployable or not).
export function secretValues(entry) {
  const issues = [];
  const check = (field, value) => {
    if (!PLACEHOLDER.test(String(value))) {
      issues.push({
        entry,
        path: field,
        message: 'holds a value that is not a placeholder (change-me...): keep real secrets out of the repository',
      });
    }
  };
  for (const [key, value] of Object.entries(entry.obj.stringData ?? {})) check(['stringData', key], value);
  for (const [key, value] of Object.entries(entry.obj.data ?? {}))
    check(['data', key], Buffer.from(String(value), 'base64').toString('utf8'));
  return issues;
}

function probes(entry, app, c, at, ctx) {
  const issues = [];
  const routes = app.routes.map((f) => fs.readFileSync(path.join(ctx.sampleDir, f), 'utf8')).join('\n');
  const portOf = (port) =>
    typeof port === 'number' ? port : (c.ports ?? []).find((p) => p.name === port)?.containerPort;
  for (const probe of ['readinessProbe', 'livenessProbe']) {
    const get = c[probe]?.httpGet;
    if (!get) {
      issues.push({
        entry,
        path: [...at, probe, 'httpGet'],
        message: `must be an HTTP probe on the app's own endpoint (${ctx.compose.healthPath ?? 'see compose.yaml'})`,
      });
      continue;
    }
    if (!new RegExp(`["'\`]${escapeRe(String(get.path))}["'\`]`).test(routes)) {
      issues.push({
        entry,
        path: [...at, probe, 'httpGet', 'path'],
        message: `'${get.path}' is not a route of the app (looked in ${app.routes.join(', ')})`,
      });
    }
    const port = portOf(get.port);
    if (port !== ctx.compose.appPort) {
      issues.push({
        entry,
        path: [...at, probe, 'httpGet', 'port'],
        message: `'${get.port}' is port ${port ?? 'unknown'}; the app listens on ${ctx.compose.appPort} (compose ` +
          `healthcheck)`,
      });
    }
  }
  return issues;
}

// Seconds the preStop hook pauses: the sleep action, or `sleep N` as an exec command.
export function preStopSeconds(container) {
  const pre = container.lifecycle?.preStop;
  if (pre?.sleep?.seconds !== undefined) return Number(pre.sleep.seconds);
  const m = /(?:^|\s)sleep\s+(\d+)/.exec((pre?.exec?.command ?? []).join(' '));
  return m ? Number(m[1]) : 0;
}

function shutdown(entry, app, c, at, compose) {
  const issues = [];
  const pause = preStopSeconds(c);
  if (!(pause > 0))
    issues.push({
      entry,
      path: [...at, 'lifecycle', 'preStop'],
      message: 'needs a pause (sleep) so the pod leaves the endpoints before the drain starts',
    });
  const drain = drainOf(app.drain, (name) => envValue(c, compose, name));
  if (drain.error) {
    return [...issues, { entry, path: [...at, 'env'], message: `${drain.error} in the container or compose.yaml` }];
  }
  const grace = entry.obj.spec.template.spec.terminationGracePeriodSeconds ?? 30;
  for (const { about, message } of drainOrder(drain, grace * 1000, pause * 1000)) {
    if (about === 'delay') issues.push({ entry, path: [...at, 'env'], message });
    else {
      const field = [...POD, 'terminationGracePeriodSeconds'];
      issues.push({ entry, path: field, message: `${message}: the kubelet would SIGKILL mid-drain` });
    }
  }
  return issues;
}

function companions(appEntry, c, entries) {
  const issues = [];
  const labels = appEntry.obj.spec.template.metadata?.labels;
  const ports = new Set((c.ports ?? []).flatMap((p) => [p.name, p.containerPort]));
  const of = (kind) => entries.filter((e) => e.obj.kind === kind);
  if (
    !of('Service').some(
      (s) =>
        subset(s.obj.spec?.selector, labels) && (s.obj.spec.ports ?? []).some((p) => ports.has(p.targetPort ?? p.port)),
    )
  ) {
    issues.push({ field: refOf(appEntry.obj), message: 'no Service selects its pods on the app port' });
  }
  const hpa = of('HorizontalPodAutoscaler').find(
    (h) =>
      h.obj.spec?.scaleTargetRef?.kind === appEntry.obj.kind &&
      h.obj.spec.scaleTargetRef.name === appEntry.obj.metadata.name,
  );
  if (!hpa) issues.push({ field: refOf(appEntry.obj), message: 'no HorizontalPodAutoscaler scales it' });
  else if (!(hpa.obj.spec.metrics ?? []).some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')) {
    issues.push({ entry: hpa, path: ['spec', 'metrics'], message: 'must scale on cpu' });
  }
  if (hpa && appEntry.obj.spec.replicas !== undefined) {
    issues.push({
      entry: appEntry,
      path: ['spec', 'replicas'],
      message: 'leave the count to the HorizontalPodAutoscaler: every apply would reset it',
    });
  }
  if (!of('PodDisruptionBudget').some((p) => subset(p.obj.spec?.selector?.matchLabels, labels))) {
    issues.push({ field: refOf(appEntry.obj), message: 'no PodDisruptionBudget selects its pods' });
  }
  return issues;
}

function workers(entry, app, c, at, ctx) {
  const { env, readIn } = app.workers;
  const i = (c.env ?? []).findIndex((e) => e.name === env);
  const ref = c.env?.[i]?.valueFrom?.resourceFieldRef;
  const issues = [];
  if (
    !ref ||
    ref.resource !== 'limits.cpu' ||
    (ref.containerName ?? c.name) !== c.name ||
    !['1', 1, undefined].includes(ref.divisor)
  ) {
    issues.push({
      entry,
      path: i < 0 ? [...at, 'env'] : [...at, 'env', i, 'valueFrom'],
      message: `${env} must come from the downward API: resourceFieldRef limits.cpu of container ${c.name}, divisor 1`,
    });
  }
  if (!new RegExp(`\\b${escapeRe(env)}\\b`).test(fs.readFileSync(path.join(ctx.sampleDir, readIn), 'utf8'))) {
    issues.push({
      file: readIn,
      field: env,
      message: `${readIn} does not read ${env}: the worker count would not follow the CPU limit`,
    });
  }
  return issues;
}

function threadPool(entry, app, c, at, compose) {
  const limit = cpus(c.resources?.limits?.cpu);
  if (limit === undefined || limit >= 1) return [];
  const min = Number(envValue(c, compose, app.threadPool.env) ?? 0);
  if (min >= app.threadPool.minBelowOneCpu) return [];
  return [
    {
      entry,
      path: [...at, 'resources', 'limits', 'cpu'],
      message: `${c.resources.limits.cpu} is below one CPU: the thread pool starts with one worker thread; set ` +
        `${app.threadPool.env} to ${app.threadPool.minBelowOneCpu} or more (now ${min})`,
    },
  ];
}

function migrator(appEntry, job, entries) {
  const issues = [];
  if (!entries.some((e) => refOf(e.obj) === `Job/${job}`))
    issues.push({ field: `Job/${job}`, message: 'the migrator Job is missing' });
  const pod = appEntry.obj.spec.template.spec;
  const waits = (pod.initContainers ?? []).some((c) => {
    const argv = [...(c.command ?? []), ...(c.args ?? [])].join(' ');
    return argv.includes(`job/${job}`) && argv.includes('--for=condition=complete');
  });
  if (!waits)
    issues.push({
      entry: appEntry,
      path: [...POD, 'initContainers'],
      message: `no init container waits for job/${job} to complete`,
    });
  const roles = entries.filter(
    (e) =>
      e.obj.kind === 'Role' &&
      (e.obj.rules ?? []).some(
        (r) => r.resources?.includes('jobs') && ['get', 'watch'].every((v) => r.verbs?.includes(v)),
      ),
  );
  const bound = entries.some(
    (e) =>
      e.obj.kind === 'RoleBinding' &&
      roles.some((r) => r.obj.metadata.name === e.obj.roleRef?.name) &&
      (e.obj.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === pod.serviceAccountName),
  );
  if (waits && !bound)
    issues.push({
      entry: appEntry,
      path: [...POD, 'serviceAccountName'],
      message: 'is not bound to a Role that may get and watch Jobs: the init container could not wait',
    });
  return issues;
}

// Every Secret key a workload reads exists in one of the sample's Secrets (`known`).
function secretRefs(entry, known) {
  const has = (name, key) => known.some((s) => s.metadata?.name === name && (key === undefined
    || Object.hasOwn(s.stringData ?? {}, key) || Object.hasOwn(s.data ?? {}, key)));
  const issues = [];
  for (const { c, at } of containersOf(entry)) {
    (c.env ?? []).forEach((e, i) => {
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && !ref.optional && !has(ref.name, ref.key)) {
        issues.push({
          entry,
          path: [...at, 'env', i, 'valueFrom', 'secretKeyRef'],
          message: `no Secret ${ref.name} with key ${ref.key} in this sample's k8s/`,
        });
      }
    });
  }
  (entry.obj.spec.template.spec.volumes ?? []).forEach((v, i) => {
    for (const key of v.secret ? (v.secret.items ?? [{}]).map((it) => it.key) : []) {
      if (!has(v.secret.secretName, key)) {
        issues.push({
          entry,
          path: [...POD, 'volumes', i, 'secret'],
          message: `no Secret ${v.secret.secretName}${key ? ` with key ${key}` : ''} in this sample's k8s/`,
        });
      }
    }
  });
  return issues;
}

function stateful(ref, entries) {
  const entry = entries.find((e) => refOf(e.obj) === ref);
  if (!entry) return [{ field: ref, message: 'is missing' }];
  if (!(entry.obj.spec.volumeClaimTemplates ?? []).length)
    return [{ entry, path: ['spec', 'volumeClaimTemplates'], message: 'needs a PersistentVolumeClaim for its data' }];
  return [];
}

export function checkDeployable({ desc, entries, ctx }) {
  const { app } = desc;
  const issues = [];
  for (const entry of entries) {
    if (WORKLOADS.has(entry.obj.kind)) {
      issues.push(
        ...security(entry, desc.writableRoot ?? []),
        ...resources(entry),
        ...images(entry, ctx.compose, desc.k8sOnlyImages ?? []),
      );
      if (ctx.secrets) issues.push(...secretRefs(entry, ctx.secrets));
    }
  }
  const appEntry = entries.find((e) => refOf(e.obj) === app.workload);
  if (!appEntry) return [...issues, { field: app.workload, message: 'is not in the rendered output' }];
  const index = appEntry.obj.spec.template.spec.containers.findIndex((c) => c.name === app.container);
  if (index < 0)
    return [
      ...issues,
      { entry: appEntry, path: [...POD, 'containers'], message: `has no container '${app.container}'` },
    ];
  const c = appEntry.obj.spec.template.spec.containers[index];
  const at = [...POD, 'containers', index];
  if (c.image !== ctx.compose.appImage) {
    issues.push({
      entry: appEntry,
      path: [...at, 'image'],
      message: `'${c.image}' differs from compose.yaml's ${app.composeService} image '${ctx.compose.appImage}'`,
    });
  }
  issues.push(
    ...probes(appEntry, app, c, at, ctx),
    ...shutdown(appEntry, app, c, at, ctx.compose),
    ...companions(appEntry, c, entries),
  );
  if (app.workers) issues.push(...workers(appEntry, app, c, at, ctx));
  if (app.threadPool) issues.push(...threadPool(appEntry, app, c, at, ctx.compose));
  if (desc.migrator) issues.push(...migrator(appEntry, desc.migrator.job, entries));
  for (const ref of desc.stateful ?? []) issues.push(...stateful(ref, entries));
  issues.push(...databasePolicies(desc, entries));
  return issues;
}

// The app container of a rendered kustomization and its HTTP probes, for the live checks.
export function appProbes(desc, entries) {
  const appEntry = entries.find((e) => refOf(e.obj) === desc.app.workload);
  const c = appEntry?.obj.spec.template.spec.containers.find((x) => x.name === desc.app.container);
  return ['readinessProbe', 'livenessProbe']
    .filter((p) => c?.[p]?.httpGet)
    .map((p) => ({ probe: p, path: c[p].httpGet.path }));
}
