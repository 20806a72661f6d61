// The samples' one drain contract, read from the files a team copies (README.md, "One drain
// contract"): in every sample, on every platform, the drain delay is below the drain timeout, and
// the platform's grace outlasts the timeout (plus node-cluster's 2 s kill margin): compose's
// stop_grace_period as `docker compose` and `docker stack deploy` load the files, and Kubernetes'
// terminationGracePeriodSeconds after the preStop pause, in every kustomization meant to be applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { SAMPLES } from '../orchestrators/samples.js';
import { drainOf, drainOrder } from '../orchestrators/drain.js';
import { render } from '../orchestrators/kustomize.js';
import { preStopSeconds } from '../orchestrators/k8s-checks.js';
import { durationMs } from '../runner/index.js';

// The merged file as a platform loads it: `docker compose config` (compose.yaml, and
// compose.override.yaml as `docker compose up` reads it) or `docker stack config` (Swarm's own loader).
function loaded(dir, argv) {
  const res = spawnSync('docker', argv, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(res.error, undefined, `docker could not run: ${res.error?.message}`);
  assert.equal(res.status, 0, res.stderr);
  return YAML.parse(res.stdout);
}

const composeViews = (dir) => {
  const envFile = fs.existsSync(path.join(dir, '.env.example')) ? ['--env-file', '.env.example'] : [];
  const own = ['compose.yaml', 'compose.override.yaml'].filter((f) => fs.existsSync(path.join(dir, f)));
  return [
    {
      name: `docker compose (${own.join(' + ')})`,
      argv: ['compose', ...own.flatMap((f) => ['-f', f]), ...envFile, 'config'],
    },
    {
      name: 'docker stack deploy (compose.yaml + compose.swarm.yaml)',
      argv: ['stack', 'config', '-c', 'compose.yaml', '-c', 'compose.swarm.yaml'],
    },
  ];
};

// Every problem of one sample's files, one line each; `seen` collects what was read.
function contractProblems(sample, root = REPO_ROOT, seen = []) {
  const desc = SAMPLES[sample];
  const dir = path.join(root, sample);
  const problems = [];
  for (const view of composeViews(dir)) {
    const svc = loaded(dir, view.argv).services[desc.app.composeService];
    const env = svc.environment ?? {};
    const drain = drainOf(desc.app.drain, (name) => (env[name] === undefined ? undefined : String(env[name])));
    assert.equal(drain.error, undefined, `${sample}, ${view.name}: ${drain.error}`);
    const graceMs = durationMs(svc.stop_grace_period, 10_000);
    seen.push(`${view.name}: ${drain.delayText} < ${drain.parts.join(' + ')} < stop_grace_period ${graceMs / 1000} s`);
    for (const p of drainOrder(drain, graceMs)) problems.push(`${sample}, ${view.name}: ${p.message}`);
  }
  for (const k of desc.deployable) {
    const { objects, error } = render(path.join(dir, k));
    assert.equal(error, undefined, `${sample}/${k}: ${error}`);
    const [kind, name] = desc.app.workload.split('/');
    const workload = objects.map((e) => e.obj).find((o) => o.kind === kind && o.metadata.name === name);
    assert.ok(workload, `${sample}/${k} renders ${desc.app.workload}`);
    const pod = workload.spec.template.spec;
    const c = pod.containers.find((x) => x.name === desc.app.container);
    const drain = drainOf(desc.app.drain, (n) => c.env?.find((e) => e.name === n)?.value);
    assert.equal(drain.error, undefined, `${sample}/${k}: ${drain.error} in the container`);
    const pause = preStopSeconds(c);
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    seen.push(`${k}: ${drain.delayText} < ${drain.parts[0]}; `
      + `preStop ${pause} s + ${drain.parts.join(' + ')} < terminationGracePeriodSeconds ${grace} s`);
    for (const p of drainOrder(drain, grace * 1000, pause * 1000)) problems.push(`${sample}/${k}: ${p.message}`);
  }
  return problems;
}

for (const sample of Object.keys(SAMPLES)) {
  test(`${sample}: drain delay < drain timeout < grace, in compose, Swarm and every deployable kustomization`, (t) => {
    const seen = [];
    assert.deepEqual(contractProblems(sample, REPO_ROOT, seen), []);
    for (const line of seen) t.diagnostic(line);
  });
}

// The check can fail: the same files with a stop_grace_period below node-cluster's drain, and a
// Kubernetes delay as long as node-replicas' timeout.
test('a grace period below the drain, or a delay as long as the timeout, is reported with its figures', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'drain-contract-'));
  try {
    for (const sample of ['node-cluster', 'node-replicas']) {
      fs.cpSync(path.join(REPO_ROOT, sample), path.join(root, sample), {
        recursive: true,
        filter: (src) => !['node_modules', '.run'].includes(path.basename(src)),
      });
    }
    const edit = (file, from, to) => {
      const at = path.join(root, file);
      const text = fs.readFileSync(at, 'utf8');
      assert.ok(text.includes(from), `${file} contains ${from}`);
      fs.writeFileSync(at, text.replace(from, to));
    };
    edit('node-cluster/compose.yaml', 'stop_grace_period: 30s', 'stop_grace_period: 23s');
    edit('node-replicas/k8s/base/deployment.yaml', 'value: "8000"', 'value: "16000"');
    const cluster = contractProblems('node-cluster', root);
    const short = /docker compose .*: 23 s does not cover the app's drain \(DRAIN_TIMEOUT_MS=\d+ \+ 2000 ms margin\)/;
    assert.ok(cluster.some((l) => short.test(l)), cluster.join('\n'));
    const replicas = contractProblems('node-replicas', root);
    assert.deepEqual(replicas.filter((l) => l.includes('k8s/base')), [
      'node-replicas/k8s/base: DRAIN_DELAY_MS=16000 is not below DRAIN_TIMEOUT_MS=16000: '
        + 'the timeout bounds the whole drain, the delay included',
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
