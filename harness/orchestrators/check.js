#!/usr/bin/env node
// Checks a sample's Kubernetes and Swarm files offline: every kustomization renders, every object
// validates against the pinned Kubernetes API schema, the deployable ones agree with the app and
// its compose file, the copies match their originals, and the Swarm file merges and validates.
//   node harness/orchestrators/check.js [sample ...]     prints "file: field: message" per problem
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { loadTopology } from '../runner/index.js';
import { SAMPLES } from './samples.js';
import { findKustomizations, render, kustomizeVersion } from './kustomize.js';
import { validateObject, preload, SCHEMA_SOURCE } from './schema.js';
import { checkDeployable, secretValues } from './k8s-checks.js';
import { checkSwarm } from './swarm.js';
import { locate } from './locate.js';
import { problem, fieldName, objectName, formatProblem } from './problems.js';

// What the checks need from compose.yaml: images, the app's image, port, health path and env.
export function composeContext(sampleDir, app) {
  const raw = YAML.parse(fs.readFileSync(path.join(sampleDir, 'compose.yaml'), 'utf8'));
  const svc = raw.services?.[app.composeService] ?? {};
  const test = [svc.healthcheck?.test ?? []].flat().join(' ');
  const url = /https?:\/\/[\w.]+:(\d+)(\/\S*)?/.exec(test);
  const topology = loadTopology(sampleDir, {});
  return {
    images: new Set(Object.values(raw.services ?? {}).map((s) => s.image).filter(Boolean)),
    appImage: svc.image,
    appPort: url ? Number(url[1]) : undefined,
    healthPath: url?.[2],
    appEnv: topology.services[app.composeService]?.environment ?? {},
    oneShot: Object.values(topology.services).filter((s) => s.oneshot).map((s) => s.name),
  };
}

function copies(sample, sampleDir, desc, root) {
  return Object.entries(desc.copies ?? {}).flatMap(([copy, original]) => {
    const a = path.join(sampleDir, copy);
    const b = path.resolve(sampleDir, original);
    const rel = path.relative(root, a);
    if (!fs.existsSync(a)) return [problem(rel, '(file)', `is missing: copy ${path.relative(root, b)} here`)];
    if (!fs.readFileSync(a).equals(fs.readFileSync(b))) {
      return [
        problem(
          rel,
          '(contents)',
          `differs from ${path.relative(root, b)}: change the original and copy it here (kustomize reads only ` +
            `files below a kustomization)`,
        ),
      ];
    }
    return [];
  });
}

// Renders and checks every kustomization of the sample. Returns { problems, rendered } where
// rendered maps each kustomization folder (relative to the sample) to its objects. `only` limits
// the rendering to some kustomization folders; `swarm: false` and `copies: false` skip those parts.
/** @param {string} sample @param {{ root?: string, only?: string[], swarm?: boolean, copies?: boolean }} [options] */
export async function checkSample(sample, { root = REPO_ROOT, only, swarm = true, copies: withCopies = true } = {}) {
  const desc = SAMPLES[sample];
  if (!desc) throw new Error(`no orchestrator description for '${sample}': add it to harness/orchestrators/samples.js`);
  const sampleDir = path.join(root, sample);
  const rel = (abs) => path.relative(root, abs);
  const problems = [];
  const rendered = new Map();
  const compose = composeContext(sampleDir, desc.app);
  const ctx = { sampleDir, compose };

  const found = findKustomizations(path.join(sampleDir, 'k8s')).map((d) => path.relative(sampleDir, d));
  for (const dir of found.filter((d) => ![...desc.deployable, ...desc.library].includes(d))) {
    problems.push(
      problem(
        path.join(sample, dir, 'kustomization.yaml'),
        '(kustomization)',
        'is not listed in harness/orchestrators/samples.js (deployable or library), so nothing checks it',
      ),
    );
  }
  for (const dir of [...desc.deployable, ...desc.library].filter((d) => !found.includes(d))) {
    problems.push(problem(path.join(sample, dir, 'kustomization.yaml'), '(kustomization)', 'is missing'));
  }

  const results = found
    .filter((dir) => !only || only.includes(dir))
    .map((dir) => ({ dir, ...render(path.join(sampleDir, dir)) }));
  preload(results.flatMap((r) => r.objects.map((e) => e.obj)));
  // The Secrets the workloads may read (unknown when `only` left them out).
  const secrets = results.flatMap((r) => r.objects.map((e) => e.obj)).filter((o) => o.kind === 'Secret');
  if (secrets.length || !only) ctx.secrets = secrets;
  for (const { dir, objects, error } of results) {
    const kustomizationFile = path.join(sample, dir, 'kustomization.yaml');
    if (error) { problems.push(problem(kustomizationFile, '(kustomize build)', error)); continue; }
    rendered.set(dir, objects);
    const located = (entry, fieldPath, message) => problem(
      rel(locate(entry, fieldPath) ?? path.join(sampleDir, dir, 'kustomization.yaml')),
      `${objectName(entry.obj)} ${fieldName(entry.obj, fieldPath)}`,
      message,
    );
    for (const entry of objects) {
      for (const err of await validateObject(entry.obj)) problems.push(located(entry, err.path, err.message));
      if (entry.obj.kind === 'Secret')
        for (const issue of secretValues(entry)) problems.push(located(entry, issue.path, issue.message));
    }
    if (!desc.deployable.includes(dir)) continue;
    for (const issue of checkDeployable({ desc, entries: objects, ctx })) {
      if (issue.entry) problems.push(located(issue.entry, issue.path, issue.message));
      else
        problems.push(
          problem(issue.file ? path.join(sample, issue.file) : kustomizationFile, issue.field, issue.message),
        );
    }
  }
  if (withCopies) problems.push(...copies(sample, sampleDir, desc, root));
  if (swarm) problems.push(...checkSwarm({ sample, sampleDir, desc, oneShot: compose.oneShot }));
  return { problems, rendered };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((s) => !SAMPLES[s]);
  if (unknown.length) {
    console.error(`unknown sample '${unknown[0]}': expected one of ${Object.keys(SAMPLES).join(', ')}`);
    process.exit(2);
  }
  console.log(`kustomize ${kustomizeVersion()}, schema of ${SCHEMA_SOURCE}`);
  let count = 0;
  for (const sample of wanted.length ? wanted : Object.keys(SAMPLES)) {
    const { problems } = await checkSample(sample);
    for (const p of problems) console.log(formatProblem(p));
    console.log(`${sample}: ${problems.length ? `${problems.length} problem(s)` : 'ok'}`);
    count += problems.length;
  }
  process.exit(count ? 1 : 0);
}
