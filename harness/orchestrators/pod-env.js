// The environment the kubelet would give a container of a rendered pod spec: literal values with
// $(VAR) references to earlier entries expanded, and values from the downward API, Secrets and
// ConfigMaps, and the files of Secret volumes. Lets a check run the app's real entry point with
// what Kubernetes would set.
import fs from 'node:fs';
import path from 'node:path';
import { cpus } from './k8s-checks.js';

function fromResource(container, ref) {
  const [kind, name] = ref.resource.split('.');
  const raw = container.resources?.[kind]?.[name];
  if (raw === undefined)
    throw new Error(`${container.name}: ${ref.resource} is not set, the kubelet would give the node's capacity`);
  if (name !== 'cpu') throw new Error(`${ref.resource}: only cpu is emulated`);
  // The kubelet divides by the divisor and rounds up: 500m with divisor 1 -> "1".
  return String(Math.ceil(cpus(raw) / cpus(ref.divisor ?? '1')));
}

function fromObject(objects, kind, ref) {
  const obj = objects.find((o) => o.kind === kind && o.metadata?.name === ref.name);
  const value = obj?.stringData?.[ref.key] ?? (obj?.data?.[ref.key] !== undefined
    ? (kind === 'Secret' ? Buffer.from(obj.data[ref.key], 'base64').toString('utf8') : obj.data[ref.key])
    : undefined);
  if (value === undefined) throw new Error(`${kind} ${ref.name} has no key ${ref.key}`);
  return String(value);
}

export function podEnv(container, objects, { podName = 'pod-0', namespace = 'default' } = {}) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const item of container.env ?? []) {
    const from = item.valueFrom;
    if (item.value !== undefined) {
      env[item.name] = String(item.value).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name) => env[name] ?? m);
    } else if (from?.resourceFieldRef) {
      env[item.name] = fromResource(container, from.resourceFieldRef);
    } else if (from?.secretKeyRef) {
      env[item.name] = fromObject(objects, 'Secret', from.secretKeyRef);
    } else if (from?.configMapKeyRef) {
      env[item.name] = fromObject(objects, 'ConfigMap', from.configMapKeyRef);
    } else if (from?.fieldRef) {
      env[item.name] = { 'metadata.name': podName, 'metadata.namespace': namespace }[from.fieldRef.fieldPath] ?? '';
    }
  }
  return env;
}

/**
 * The files the kubelet would mount into `container` from the pod's Secret volumes, written under
 * `root` (one folder per mount): `env` is returned with every value under a mount path moved to
 * the written copy, so the app's real entry point reads the same files it would in the pod.
 * @param {Record<string, string>} env @param {any} container @param {any} podSpec @param {any[]} objects
 * @param {string} root a folder of the caller's, emptied by the caller
 */
export function withMountedSecrets(env, container, podSpec, objects, root) {
  const moved = {};
  for (const mount of container.volumeMounts ?? []) {
    const secret = (podSpec.volumes ?? []).find((v) => v.name === mount.name)?.secret;
    if (!secret) continue;
    const dir = path.join(root, mount.name);
    fs.mkdirSync(dir, { recursive: true });
    const obj = objects.find((o) => o.kind === 'Secret' && o.metadata?.name === secret.secretName);
    const keys = secret.items ?? Object.keys({ ...obj?.data, ...obj?.stringData }).map((key) => ({ key, path: key }));
    for (const { key, path: file } of keys) {
      fs.writeFileSync(path.join(dir, file), fromObject(objects, 'Secret', { name: secret.secretName, key }));
    }
    moved[mount.mountPath] = dir;
  }
  return Object.fromEntries(Object.entries(env).map(([name, value]) => {
    const at = Object.keys(moved).find((m) => value === m || value.startsWith(`${m}/`));
    return [name, at ? moved[at] + value.slice(at.length) : value];
  }));
}
