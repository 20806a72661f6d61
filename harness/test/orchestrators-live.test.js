// The Kubernetes files against the running apps: every HTTP probe path of the deployable
// kustomizations answers 2xx on the app started by the local runner, and the worker count the
// downward API would give the node-cluster container is what its primary forks.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { groupAlive, sendSignal, waitGone } from '../lib/processes.js';
import { waitFor } from '../lib/poll.js';
import { SAMPLES } from '../orchestrators/samples.js';
import { render } from '../orchestrators/kustomize.js';
import { appProbes, cpus } from '../orchestrators/k8s-checks.js';
import { podEnv, withMountedSecrets } from '../orchestrators/pod-env.js';
import { tempRunDir } from './helpers.js';
import { findMongod } from '../../node-cluster/scripts/find-mongod.js';

const { up, down } = runnerFor('processes');

function rendered(sample, dirs) {
  return dirs.map((dir) => {
    const { objects, error } = render(path.join(REPO_ROOT, sample, dir));
    assert.equal(error, undefined, `${sample}/${dir} renders`);
    return { dir, objects };
  });
}

function probesOf(sample, kinds) {
  const all = rendered(sample, SAMPLES[sample].deployable).flatMap(({ dir, objects }) =>
    appProbes(SAMPLES[sample], objects).map((p) => ({ ...p, dir })),
  );
  return all.filter((p) => kinds.includes(p.probe));
}

async function assertProbes(t, sample, probes, upOptions) {
  assert.ok(probes.length > 0, `${sample} has HTTP probes`);
  const runDir = tempRunDir(`probes-${sample}`);
  t.after(() => down({ runDir }).then(() => fs.rmSync(runDir, { recursive: true, force: true })));
  const state = await up({
    sample,
    runDir,
    services: ['app'],
    ...upOptions,
    env: { REPLICAS: '1', HTTP_PORT: '0', ...upOptions.env },
  });
  const { url } = state.services.app.instances[0];
  for (const { probe, path: probePath, dir } of probes) {
    const res = await fetch(`${url}${probePath}`, { signal: AbortSignal.timeout(5000) });
    assert.ok(res.status >= 200 && res.status < 300, `${sample}/${dir} ${probe} ${probePath}: HTTP ${res.status}`);
  }
}

test('node-replicas: the readiness and liveness probe paths answer 2xx', async (t) => {
  await assertProbes(t, 'node-replicas', probesOf('node-replicas', ['readinessProbe', 'livenessProbe']), { env: {} });
});

test('dotnet-api: the readiness and liveness probe paths answer 2xx (SQLite locally)', async (t) => {
  await assertProbes(t, 'dotnet-api', probesOf('dotnet-api', ['readinessProbe', 'livenessProbe']), { env: {} });
});

test('node-cluster: the liveness probe path answers 2xx (the app alone, no database)', async (t) => {
  await assertProbes(t, 'node-cluster', probesOf('node-cluster', ['livenessProbe']), {
    noDeps: true, env: { MONGODB_URI_LOCAL: 'mongodb://127.0.0.1:9/items' },
  });
});

// /ready answers 503 until MongoDB is reachable: checked where the runner can start a mongod (the
// one the mongo service's own command finds), else skipped with its one-line reason.
const noMongod = await findMongod().then(() => false, (err) => err.message);
test('node-cluster: the readiness probe path answers 2xx with MongoDB', { skip: noMongod }, async (t) => {
  await assertProbes(t, 'node-cluster', probesOf('node-cluster', ['readinessProbe']), { env: {} });
});

// Runs src/primary.js with the container's environment as the kubelet would set it, and returns
// the log lines up to the point `until` says it has seen enough.
async function runPrimary(env, until) {
  const child = spawn(process.execPath, [SAMPLES['node-cluster'].app.workers.entry], {
    cwd: path.join(REPO_ROOT, 'node-cluster'),
    env: { PATH: process.env.PATH, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  const stderr = [];
  child.stderr.on('data', (d) => stderr.push(d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    for await (const line of readline.createInterface({ input: child.stdout })) {
      try { lines.push(JSON.parse(line)); } catch { lines.push({ msg: line }); }
      if (until(lines)) break;
    }
  } finally {
    child.stdout.resume(); // keep draining: the primary logs while it stops
    clearTimeout(timer);
    sendSignal(child.pid, 'SIGTERM');
    if (!(await waitGone(child.pid, 20_000))) sendSignal(child.pid, 'SIGKILL', { group: true });
    await waitGone(child.pid, 5_000);
    // Workers finish exiting a moment after their primary: give the group as long.
    await waitFor(() => !groupAlive(child.pid), { timeoutMs: 5_000 }).catch(() => {});
  }
  assert.equal(groupAlive(child.pid), false, 'primary and workers are gone');
  return { lines, stderr: Buffer.concat(stderr).toString() };
}

for (const dir of SAMPLES['node-cluster'].deployable) {
  test(`node-cluster ${dir}: the worker count from limits.cpu reaches the cluster primary`, async () => {
    const desc = SAMPLES['node-cluster'];
    // The overlay and the Secret it reads (kept in a kustomization of its own).
    const manifests = rendered('node-cluster', [dir, 'k8s/secret-placeholders']).flatMap((d) =>
      d.objects.map((e) => e.obj),
    );
    const deployment = manifests.find((o) => `${o.kind}/${o.metadata.name}` === desc.app.workload);
    const container = deployment.spec.template.spec.containers.find((c) => c.name === desc.app.container);
    const expected = Math.ceil(cpus(container.resources.limits.cpu));
    // The Secret's files, where the pod's volume mounts put them (the app reads its password there).
    const secrets = tempRunDir('pod-secrets');
    after(() => fs.rmSync(secrets, { recursive: true, force: true }));
    // Loopback, a free port, and a database address nothing listens on: only the start-up matters.
    /** @type {Record<string, string>} */
    const env = {
      ...withMountedSecrets(podEnv(container, manifests), container, deployment.spec.template.spec, manifests, secrets),
      PORT: '0',
      HOST: '127.0.0.1',
      MONGODB_URI: 'mongodb://127.0.0.1:9/items',
    };
    assert.equal(env[desc.app.workers.env], String(expected), `${desc.app.workers.env} from the downward API`);
    const clustering = env.CLUSTERING_ENABLED !== 'false';
    const listening = (lines) => lines.filter((l) => l.msg === 'worker listening').length;
    const { lines, stderr } = await runPrimary(env, (seen) => listening(seen) >= (clustering ? expected : 1));
    if (clustering) {
      const start = lines.find((l) => l.msg === 'primary starting');
      assert.ok(start, `the primary logged its start (stderr: ${stderr})`);
      assert.deepEqual({ workers: start.workers, source: start.source }, { workers: expected, source: 'WORKERS' });
      assert.equal(lines.filter((l) => l.msg === 'worker forked').length, expected);
      assert.equal(listening(lines), expected);
    } else {
      assert.ok(lines.some((l) => l.msg === 'clustering disabled: one process'), `one process (stderr: ${stderr})`);
      assert.equal(lines.some((l) => l.msg === 'primary starting'), false);
      assert.equal(listening(lines), 1);
    }
  });
}
