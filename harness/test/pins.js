// Every version the repository's files pin, as versions.test.js checks them against versions.yaml:
// the images of Dockerfiles (FROM), compose and Kubernetes files (image:), dotnet-api's
// PackageReference versions (its $(Properties) resolved) and tool manifest, and the Node samples'
// package.json dependencies. Files are found by walking the tree, so a copy of it can be checked.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const SKIP = new Set(['node_modules', '.git', '.run', '.tools', 'bin', 'obj', 'out']);
// Images this repository builds itself (`scaling-lab/<sample>:local`): no upstream version.
const OWN = /^scaling-lab\//;

function walk(dir, found = []) {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(d.name)) continue;
    const p = path.join(dir, d.name);
    if (d.isDirectory()) walk(p, found);
    else found.push(p);
  }
  return found;
}

// 'repo:tag' (a registry host with a port aside) → [repo, tag]; a digest stays with the tag.
function splitImage(ref) {
  const at = ref.lastIndexOf(':');
  return at > ref.lastIndexOf('/') ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, ''];
}

function imagePins(rel, text) {
  const pins = [];
  if (/(^|\/)Dockerfile[^/]*$/.test(rel)) {
    const stages = new Set([...text.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1].toLowerCase()));
    for (const m of text.matchAll(/^FROM\s+(?:--\S+\s+)*(\S+)/gim)) {
      if (!stages.has(m[1].toLowerCase()) && !m[1].startsWith('$')) pins.push(m[1]);
    }
  } else if (/\.ya?ml$/.test(rel)) {
    for (const m of text.matchAll(/^\s*(?:-\s*)?image:\s*["']?([^\s"'#]+)/gm)) pins.push(m[1]);
  }
  return pins.filter((ref) => !OWN.test(ref) && !ref.includes('${')).map((ref) => {
    const [name, version] = splitImage(ref);
    return { file: rel, kind: 'images', name, version };
  });
}

function nugetPins(rel, text) {
  const props = Object.fromEntries([...text.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].map((m) => [m[1], m[2]]));
  const resolve = (v) => v.replace(/\$\((\w+)\)/g, (whole, name) => props[name] ?? whole);
  return [...text.matchAll(/<PackageReference\s+Include="([^"]+)"\s+Version="([^"]+)"/g)].map((m) => ({
    file: rel, kind: 'nuget', name: m[1], version: resolve(m[2]),
  }));
}

function toolPins(rel, text) {
  return Object.entries(JSON.parse(text).tools ?? {})
    .map(([name, t]) => ({ file: rel, kind: 'nuget', name, version: t.version }));
}

function npmPins(rel, text) {
  const pkg = JSON.parse(text);
  return Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })
    .map(([name, version]) => ({ file: rel, kind: 'npm', name, version }));
}

/**
 * Every pin under `root` (the harness's own package.json aside: harness/package.json pins its tools).
 * @param {string} root @returns {{ file: string, kind: string, name: string, version: string }[]}
 */
export function pinsIn(root) {
  return walk(root).flatMap((file) => {
    const rel = path.relative(root, file);
    const text = () => fs.readFileSync(file, 'utf8');
    if (/(^|\/)Dockerfile[^/]*$/.test(rel) || /\.ya?ml$/.test(rel)) return imagePins(rel, text());
    if (/\.(csproj|props)$/.test(rel)) return nugetPins(rel, text());
    if (rel.endsWith('dotnet-tools.json')) return toolPins(rel, text());
    if (path.basename(rel) === 'package.json' && !rel.startsWith('harness')) return npmPins(rel, text());
    return [];
  });
}

/** versions.yaml of `root`: { images, nuget, npm } maps of name → version. */
export const versionsOf = (root) => YAML.parse(fs.readFileSync(path.join(root, 'versions.yaml'), 'utf8'));

/**
 * What disagrees between the pins and versions.yaml, one line each: a pin of another version, a
 * name versions.yaml lacks, a versions.yaml line no file uses.
 */
export function pinProblems(pins, versions) {
  const problems = [];
  for (const p of pins) {
    const wanted = versions[p.kind]?.[p.name];
    const pinned = `${p.file}: ${p.name} ${p.version || '(no version)'}`;
    if (wanted === undefined) problems.push(`${pinned} is not in versions.yaml ${p.kind}`);
    else if (String(wanted) !== p.version) problems.push(`${pinned}, versions.yaml says ${wanted}`);
  }
  for (const [kind, map] of Object.entries(versions)) {
    const unused = Object.keys(map ?? {}).filter((name) => !pins.some((p) => p.kind === kind && p.name === name));
    problems.push(...unused.map((name) => `versions.yaml ${kind}.${name}: no file pins it`));
  }
  return problems;
}
