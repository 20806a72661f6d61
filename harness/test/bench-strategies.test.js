// The strategy records (harness/bench/lib/strategies/): every file of that folder is one, found by
// itself (adding a strategy is one file and its test here), and each keeps the contract the plan,
// the runner's knobs and the guide rely on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STRATEGIES, strategyOf, strategiesFor, processesAt } from '../bench/lib/strategies/index.js';
import { describeSample, listApps } from '../bench/lib/topologies/app-descriptions.js';
import { topology } from '../bench/lib/topologies/topology.js';

// An app as x-bench describes one, with every knob (the samples' spelling).
const nodeApp = {
  name: 'Express',
  key: 'express',
  runtime: 'node',
  proxy: 'nginx',
  processManagers: ['cluster', 'pm2', 'reuseport'],
  knobs: {
    workers: 'WORKERS',
    instances: 'REPLICAS',
    cpus: 'CPUS',
    clustering: 'CLUSTERING_ENABLED',
    process_manager: 'PROCESS_MANAGER',
    lb: 'LB',
  },
};
const dotnetApp = {
  name: '.NET',
  key: 'dotnet',
  runtime: 'dotnet',
  proxy: 'nginx',
  processManagers: [],
  knobs: { instances: 'REPLICAS', cpus: 'CPUS', lb: 'LB' },
};

test('every record keeps the contract: names, support, configuration for n processes, drills, prose', () => {
  assert.ok(STRATEGIES.length >= 5);
  assert.equal(new Set(STRATEGIES.map((s) => s.key)).size, STRATEGIES.length, 'keys are unique');
  assert.equal(new Set(STRATEGIES.map((s) => s.slug)).size, STRATEGIES.length, 'slugs are unique');
  for (const s of STRATEGIES) {
    assert.match(s.slug, /^[a-z0-9-]+$/, s.key);
    assert.ok(
      s.title && s.why.split(' ').length >= 12 && s.why.split(' ').length <= 80,
      `${s.key}: a title and one paragraph`,
    );
    assert.ok(['worker', 'instance'].includes(s.drill.crash) && s.drill.rollout, `${s.key}: how it is drilled`);
    assert.equal(typeof s.multiProcess, 'boolean');
    assert.equal(strategyOf(s.slug), s);
    for (const app of [nodeApp, dotnetApp]) {
      const why = s.unsupported(app);
      if (why !== null) {
        assert.match(why, new RegExp(app.name.replace('.', '\\.')), `${s.key}: says which app`);
        continue;
      }
      const n = processesAt(s, 3);
      const { knobs, instances, workers } = s.configure(app, n);
      assert.equal(instances * workers, n, `${s.key} on ${app.name}: ${n} processes`);
      assert.ok(
        Object.keys(knobs).every((k) => Object.values(app.knobs).includes(k)),
        `${s.key}: only the app's own knobs`,
      );
      assert.match(s.label(n), new RegExp(s.multiProcess ? String(n) : '1'));
    }
  }
  assert.throws(
    () => strategyOf('bun-cluster'),
    /^Error: unknown strategy 'bun-cluster' \(one of: one-process, cluster, reuseport, pm2, replicas\)$/,
  );
});

test('what each record starts: one process, a cluster, PM2, reusePort, replicas', () => {
  assert.deepEqual(strategyOf('one-process').configure(nodeApp, 1), {
    knobs: { CLUSTERING_ENABLED: 'false', REPLICAS: '1', WORKERS: '1' },
    instances: 1,
    workers: 1,
  });
  assert.deepEqual(strategyOf('cluster').configure(nodeApp, 2).knobs, {
    WORKERS: '2',
    CLUSTERING_ENABLED: 'true',
    PROCESS_MANAGER: 'cluster',
    REPLICAS: '1',
  });
  assert.deepEqual(strategyOf('pm2').configure(nodeApp, 2).knobs, {
    WORKERS: '2',
    PROCESS_MANAGER: 'pm2',
    REPLICAS: '1',
  });
  assert.deepEqual(strategyOf('reuseport').configure(nodeApp, 4).knobs, {
    WORKERS: '4',
    PROCESS_MANAGER: 'reuseport',
    REPLICAS: '1',
  });
  assert.deepEqual(strategyOf('replicas').configure(dotnetApp, 2), {
    knobs: { REPLICAS: '2' },
    instances: 2,
    workers: 1,
  });
  // What an app lacks is said, never guessed.
  assert.match(strategyOf('cluster').unsupported(dotnetApp), /\.NET is not a Node app/);
  assert.match(
    strategyOf('reuseport').unsupported({ ...nodeApp, processManagers: ['cluster'] }),
    /does not opt in to reusePort.*reusePort: true/,
  );
  assert.match(strategyOf('replicas').unsupported({ ...nodeApp, knobs: { workers: 'W' } }), /no replica knob/);
  assert.equal(processesAt(strategyOf('cluster'), 1), 2, 'on one CPU a multi-process strategy still runs two');
  assert.equal(processesAt(strategyOf('cluster'), 6), 6);
  assert.equal(processesAt(strategyOf('one-process'), 6), 1);
});

test('the samples: which strategies each supports comes from its x-bench alone', () => {
  const apps = Object.fromEntries(listApps().map((a) => [describeSample(a).key, describeSample(a)]));
  assert.deepEqual(
    strategiesFor(apps.express).map((s) => s.slug),
    ['one-process', 'cluster', 'reuseport', 'pm2', 'replicas'],
  );
  assert.deepEqual(
    strategiesFor(apps.dotnet).map((s) => s.slug),
    ['one-process', 'replicas'],
  );
  assert.deepEqual(
    strategiesFor(apps.node).map((s) => s.slug),
    ['one-process', 'replicas'],
  );
  const t = topology({ sample: apps.express.sample, strategy: 'replicas', n: 2, budget: 2, viaNginx: true });
  assert.equal(t.id, 'express-replicas-2-nginx');
  assert.equal(t.cpusPerInstance, 1);
  assert.equal(t.env.CPUS, '1');
  assert.throws(
    () => topology({ sample: apps.dotnet.sample, strategy: 'cluster', n: 2 }),
    /cluster can't run dotnet-api: \.NET is not a Node app/,
  );
});

test("no app of this repository is named in the bench's code: it knows them by their x-bench alone", async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const root = path.join(import.meta.dirname, '..', 'bench');
  const files = fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.js') || f.endsWith('.cjs'));
  assert.ok(files.length > 40, "the bench's files were read");
  const apps = listApps();
  assert.ok(apps.length >= 3);
  // An import of a sample's module is code the bench reuses, not knowledge of an app: the wrapper
  // keeps any app's processes with the cluster sample's supervisor (wrap/supervise.js).
  const code = (f) => fs.readFileSync(path.join(root, f), 'utf8').replace(/\bfrom '[^']*'/g, '');
  const named = files.filter((f) => apps.some((a) => code(f).includes(a)));
  assert.deepEqual(named, [], 'files naming an app folder');
});
