// Bad input to the orchestrator checks: each test breaks one thing in a temporary copy of a sample
// and asserts the check names the file and the field.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';
import { checkSample } from '../orchestrators/check.js';
import { formatProblem } from '../orchestrators/problems.js';

// Made up at run time, so no committed file holds a real-looking password (no-committed-secrets.test.js).
const REAL_LOOKING = ['Tr0ub4dor', '&3-horse'].join('');

const SKIP = new Set(['node_modules', 'bin', 'obj', 'out', '.run', 'TestResults', '.env', 'secrets']);
const roots = [];
after(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }); });

// A copy of the sample plus what its copies are compared with (proxy/, database/).
function copyOf(sample) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrators-bad-'));
  roots.push(root);
  for (const dir of [sample, 'proxy', 'database']) {
    fs.cpSync(path.join(REPO_ROOT, dir), path.join(root, dir), {
      recursive: true,
      filter: (src) => !SKIP.has(path.basename(src)),
    });
  }
  return root;
}

// Replaces the first occurrence of `from`, which must be there (else the test proves nothing).
function edit(root, file, from, to) {
  const at = path.join(root, file);
  const text = fs.readFileSync(at, 'utf8');
  assert.ok(text.includes(from), `${file} contains ${JSON.stringify(from)}`);
  fs.writeFileSync(at, text.replace(from, to));
}

async function problemsAfter(sample, changes, options) {
  const root = copyOf(sample);
  for (const [file, from, to] of changes) edit(root, file, from, to);
  return (await checkSample(sample, { root, swarm: false, copies: false, ...options })).problems;
}

function assertReported(problems, { file, field, message }) {
  const found = problems.find((p) => p.file === file && p.field.includes(field) && message.test(p.message));
  assert.ok(
    found,
    `expected ${file}: …${field}…: ${message} ` +
      `among:\n${problems.map(formatProblem).join('\n') || '(no problem found)'}`,
  );
  return formatProblem(found);
}

test('a probe path the app does not serve: named with its file and field', async () => {
  const problems = await problemsAfter(
    'node-replicas',
    [['node-replicas/k8s/base/deployment.yaml', 'path: /ready', 'path: /readyz']],
    { only: ['k8s/base'] },
  );
  const line = assertReported(problems, {
    file: 'node-replicas/k8s/base/deployment.yaml',
    field: 'Deployment/node-replicas spec.template.spec.containers[app].readinessProbe.httpGet.path',
    message: /'\/readyz' is not a route of the app/,
  });
  assert.match(line, /^node-replicas\/k8s\/base\/deployment\.yaml: /);
});

test('a grace period shorter than the preStop pause + the drain', async () => {
  const problems = await problemsAfter(
    'node-cluster',
    [
      [
        'node-cluster/k8s/base/deployment.yaml',
        'terminationGracePeriodSeconds: 30',
        'terminationGracePeriodSeconds: 12',
      ],
    ],
    { only: ['k8s/overlays/cluster-in-a-pod'] },
  );
  assertReported(problems, {
    file: 'node-cluster/k8s/base/deployment.yaml',
    field: 'Deployment/node-cluster spec.template.spec.terminationGracePeriodSeconds',
    message: /12 s does not cover the preStop pause \(5 s\) \+ the app's drain \(DRAIN_TIMEOUT_MS=18000 \+ 2000 ms margin\)/,
  });
});

test('a drain delay as long as the drain timeout, which bounds the whole drain', async () => {
  const problems = await problemsAfter(
    'node-replicas',
    [['node-replicas/k8s/base/deployment.yaml', 'value: "8000"', 'value: "16000"']],
    { only: ['k8s/base'] },
  );
  assertReported(problems, {
    file: 'node-replicas/k8s/base/deployment.yaml',
    field: 'Deployment/node-replicas spec.template.spec.containers[app].env',
    message: /DRAIN_DELAY_MS=16000 is not below DRAIN_TIMEOUT_MS=16000: the timeout bounds the whole drain/,
  });
});

test('a drain raised in an overlay outgrows the grace period set in the base', async () => {
  const problems = await problemsAfter(
    'node-cluster',
    [
      [
        'node-cluster/k8s/overlays/one-process-per-pod/app.yaml',
        'value: "false"',
        'value: "false"\n            - name: DRAIN_TIMEOUT_MS\n              value: "40000"',
      ],
    ],
    { only: ['k8s/overlays/one-process-per-pod'] },
  );
  assertReported(problems, {
    file: 'node-cluster/k8s/base/deployment.yaml',
    field: 'spec.template.spec.terminationGracePeriodSeconds',
    message: /30 s does not cover .*DRAIN_TIMEOUT_MS=40000/,
  });
});

test('a Secret holding a real-looking value, which the message does not repeat', async () => {
  const problems = await problemsAfter(
    'dotnet-api',
    [
      [
        'dotnet-api/k8s/secret-placeholders/secret.yaml',
        'mssql-sa-password: Change-me-2026!',
        `mssql-sa-password: ${REAL_LOOKING}`,
      ],
    ],
    { only: ['k8s/secret-placeholders'] },
  );
  const line = assertReported(problems, {
    file: 'dotnet-api/k8s/secret-placeholders/secret.yaml',
    field: 'Secret/dotnet-api-db stringData.mssql-sa-password',
    message: /not a placeholder/,
  });
  assert.ok(!line.includes(REAL_LOOKING), 'the message does not repeat the value');
});

test('a Secret key the workloads read that no Secret of the sample has', async () => {
  const problems = await problemsAfter(
    'node-cluster',
    [['node-cluster/k8s/base/deployment.yaml', 'key: mongo-app-password', 'key: mongo-app-pasword']],
    { only: ['k8s/overlays/cluster-in-a-pod', 'k8s/secret-placeholders'] },
  );
  assertReported(problems, {
    file: 'node-cluster/k8s/base/deployment.yaml',
    field: 'Deployment/node-cluster spec.template.spec.volumes[db-secrets].secret',
    message: /no Secret node-cluster-db with key mongo-app-pasword/,
  });
});

test('schema: a field of the wrong type', async () => {
  const problems = await problemsAfter(
    'node-replicas',
    [['node-replicas/k8s/base/deployment.yaml', 'containerPort: 3000', 'containerPort: "3000"']],
    { only: ['k8s/base'] },
  );
  assertReported(problems, {
    file: 'node-replicas/k8s/base/deployment.yaml',
    field: 'Deployment/node-replicas spec.template.spec.containers[app].ports[http].containerPort',
    message: /must be integer/,
  });
});

test('schema: an unknown field, set by an overlay patch, is traced to the patch', async () => {
  const problems = await problemsAfter(
    'node-cluster',
    [['node-cluster/k8s/overlays/one-process-per-pod/app.yaml', '            limits:', '            limit:']],
    { only: ['k8s/overlays/one-process-per-pod'] },
  );
  assertReported(problems, {
    file: 'node-cluster/k8s/overlays/one-process-per-pod/app.yaml',
    field: 'Deployment/node-cluster spec.template.spec.containers[app].resources.limit',
    message: /unknown field/,
  });
});

test('schema: a value outside the enum and a kind the API does not have', async () => {
  const problems = await problemsAfter('dotnet-api', [
    ['dotnet-api/k8s/base/service.yaml', '    - name: http\n', '    - name: http\n      protocol: HTTP\n'],
    ['dotnet-api/k8s/base/pdb.yaml', 'kind: PodDisruptionBudget', 'kind: PodDisruptionBudgets'],
  ]);
  assertReported(problems, {
    file: 'dotnet-api/k8s/base/service.yaml',
    field: 'Service/dotnet-api spec.ports[http].protocol',
    message: /must be one of SCTP, TCP, UDP/,
  });
  assertReported(problems, {
    file: 'dotnet-api/k8s/base/pdb.yaml',
    field: 'PodDisruptionBudgets/dotnet-api kind',
    message: /no policy\/v1 PodDisruptionBudgets in the Kubernetes 1\.\d+ API/,
  });
});

test('the worker count not wired to the CPU limit', async () => {
  const problems = await problemsAfter('node-cluster', [['node-cluster/k8s/base/deployment.yaml', `valueFrom:
                resourceFieldRef:
                  containerName: app
                  resource: limits.cpu
                  divisor: "1"`, 'value: "4"']], { only: ['k8s/overlays/cluster-in-a-pod'] });
  assertReported(problems, {
    file: 'node-cluster/k8s/base/deployment.yaml',
    field: 'Deployment/node-cluster spec.template.spec.containers[app].env',
    message: /WORKERS must come from the downward API: resourceFieldRef limits\.cpu/,
  });
});

test('a kustomization that does not render', async () => {
  const problems = await problemsAfter(
    'node-replicas',
    [['node-replicas/k8s/base/kustomization.yaml', '  - pdb.yaml', '  - pdb.yaml\n  - missing.yaml']],
    { only: ['k8s/base'] },
  );
  assertReported(problems, {
    file: 'node-replicas/k8s/base/kustomization.yaml',
    field: '(kustomize build)',
    message: /missing\.yaml/,
  });
});

test('a copy that drifted from its original', async () => {
  const root = copyOf('node-cluster');
  fs.appendFileSync(path.join(root, 'node-cluster/k8s/base/mongo-init/01-init.js'), '\n// edited here only\n');
  const { problems } = await checkSample('node-cluster', { root, only: [], swarm: false });
  assertReported(problems, {
    file: 'node-cluster/k8s/base/mongo-init/01-init.js',
    field: '(contents)',
    message: /differs from database\/mongo\/01-init\.js/,
  });
});

test('Swarm: the app behind nginx left on a virtual IP, and a value the compose schema rejects', async () => {
  const root = copyOf('node-replicas');
  edit(root, 'node-replicas/compose.swarm.yaml', '      endpoint_mode: dnsrr\n', '');
  let { problems } = await checkSample('node-replicas', { root, only: [], copies: false });
  assertReported(problems, {
    file: 'node-replicas/compose.swarm.yaml',
    field: 'services.app.deploy.endpoint_mode',
    message: /must be dnsrr/,
  });

  edit(root, 'node-replicas/compose.swarm.yaml', 'order: start-first', 'order: start-frist');
  ({ problems } = await checkSample('node-replicas', { root, only: [], copies: false }));
  assertReported(problems, {
    file: 'node-replicas/compose.swarm.yaml',
    field: 'services.app.deploy.update_config.order',
    message: /must be one of 'start-first', 'stop-first'/,
  });
});

test('Swarm: a stateful service rolled out start-first, and a secret of another name', async () => {
  const root = copyOf('node-cluster');
  edit(root, 'node-cluster/compose.swarm.yaml', 'order: stop-first', 'order: start-first');
  fs.appendFileSync(
    path.join(root, 'node-cluster/compose.swarm.yaml'),
    '  api_token:\n    file: ./secrets/api_token.txt\n',
  );
  const { problems } = await checkSample('node-cluster', { root, only: [], copies: false });
  assertReported(problems, {
    file: 'node-cluster/compose.swarm.yaml',
    field: 'services.mongo.deploy.update_config.order',
    message: /two tasks on one data volume/,
  });
  assertReported(problems, {
    file: 'node-cluster/compose.swarm.yaml',
    field: 'secrets.api_token',
    message: /not one of this sample's secrets/,
  });
});

test('check.js with an unknown sample: one line, exit 2', () => {
  const res = spawnSync(process.execPath, [path.join(REPO_ROOT, 'harness/orchestrators/check.js'), 'no-such-sample'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(res.status, 2);
  assert.equal(res.stdout, '');
  assert.deepEqual(res.stderr.trim().split('\n'), [
    "unknown sample 'no-such-sample': expected one of node-replicas, node-cluster, dotnet-api",
  ]);
});

test('a database any pod may reach: no NetworkPolicy, or one admitting more than the app', async () => {
  const none = await problemsAfter(
    'node-cluster',
    [['node-cluster/k8s/base/kustomization.yaml', '  - mongo-networkpolicy.yaml\n', '']],
    { only: ['k8s/overlays/cluster-in-a-pod'] },
  );
  assertReported(none, {
    file: 'node-cluster/k8s/overlays/cluster-in-a-pod/kustomization.yaml',
    field: 'StatefulSet/mongo',
    message: /no NetworkPolicy selects its pods: any pod may reach it, not only Deployment\/node-cluster/,
  });
  const wide = await problemsAfter(
    'dotnet-api',
    [['dotnet-api/k8s/base/sqlserver-networkpolicy.yaml', '              app.kubernetes.io/component: migrator\n', '']],
    { only: ['k8s/base'] },
  );
  assertReported(wide, {
    file: 'dotnet-api/k8s/base/sqlserver-networkpolicy.yaml',
    field: 'NetworkPolicy/sqlserver spec.ingress[0].from[1]',
    message: /admits StatefulSet\/sqlserver, not only Deployment\/dotnet-api and Job\/dotnet-api-migrator/,
  });
  const namespaces = await problemsAfter(
    'dotnet-api',
    [[
      'dotnet-api/k8s/base/sqlserver-networkpolicy.yaml',
      '        - podSelector:\n',
      '        - namespaceSelector: {}\n          podSelector:\n',
    ]],
    { only: ['k8s/base'] },
  );
  assertReported(namespaces, {
    file: 'dotnet-api/k8s/base/sqlserver-networkpolicy.yaml',
    field: 'NetworkPolicy/sqlserver spec.ingress[0].from[0]',
    message: /admits a namespace or an IP range/,
  });
});
