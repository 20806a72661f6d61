// Which file sets a field of a rendered object: the last patch (overlay first) that writes it,
// else the resource file the object comes from.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

function patchFiles(kustomizationFile) {
  const k = YAML.parse(fs.readFileSync(kustomizationFile, 'utf8')) ?? {};
  const dir = path.dirname(kustomizationFile);
  const entries = [
    ...(k.patches ?? []).filter((p) => p.path).map((p) => ({ file: path.join(dir, p.path), target: p.target })),
    ...(k.patchesStrategicMerge ?? []).filter((p) => typeof p === 'string').map((p) => ({ file: path.join(dir, p) })),
  ];
  return entries.filter((e) => fs.existsSync(e.file));
}

function appliesTo(doc, target, obj) {
  if (target) {
    return (!target.kind || target.kind === obj.kind) && (!target.name || target.name === obj.metadata?.name);
  }
  return doc?.kind === obj.kind && doc?.metadata?.name === obj.metadata?.name;
}

// Walks `doc` along the rendered object's path; list items are matched by name where they have one.
function sets(doc, obj, fieldPath) {
  let d = doc;
  let o = obj;
  for (const segment of fieldPath) {
    if (d === undefined || d === null) return false;
    if (typeof segment === 'number') {
      if (!Array.isArray(d)) return false;
      const name = o?.[segment]?.name;
      d = name === undefined ? d[segment] : d.find((item) => item?.name === name);
    } else {
      if (typeof d !== 'object' || !Object.hasOwn(d, segment)) return false;
      d = d[segment];
    }
    o = o?.[segment];
  }
  return d !== undefined;
}

export function locate({ obj, file, patchedIn = [] }, fieldPath) {
  for (const kustomization of [...new Set(patchedIn)].reverse()) {
    for (const { file: patch, target } of patchFiles(kustomization).reverse()) {
      const docs = YAML.parseAllDocuments(fs.readFileSync(patch, 'utf8')).map((d) => d.toJS());
      if (docs.some((doc) => appliesTo(doc, target, obj) && sets(doc, obj, fieldPath))) return patch;
    }
  }
  return file;
}
