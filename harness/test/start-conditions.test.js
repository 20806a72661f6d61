// The start conditions. compose.yaml names depends_on in the short list form (the only one Swarm's
// stack loader takes); compose.override.yaml adds the conditions. Docker Compose v2 must merge them
// into waits for health, the local runner must read the same (so `make up` keeps its start order),
// and a file given with -f (Compose then reads no override) must carry the conditions it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { listSamples, loadTopology, LAB_FILE } from '../runner/index.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { FIXTURE } from './helpers.js';

// `docker compose config` as a user's command reads the files: no -f is Compose's default
// (compose.yaml, then compose.override.yaml when there is one).
function composeConfig(dir, files = []) {
  const envFile = fs.existsSync(path.join(dir, '.env.example')) ? ['--env-file', '.env.example'] : [];
  const args = ['compose', ...files.flatMap((f) => ['-f', f]), ...envFile, 'config', '--format', 'json'];
  const res = spawnSync('docker', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(res.error, undefined, `docker compose could not run: ${res.error?.message}`);
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout);
}

const conditionsOf = (config) => Object.fromEntries(Object.entries(config.services).map(([name, svc]) =>
  [name, Object.fromEntries(Object.entries(svc.depends_on ?? {}).map(([dep, spec]) => [dep, spec.condition]))]));

// A dependant of a service with a healthcheck waits for its health, not just its start.
function startedOnly(config) {
  return Object.entries(conditionsOf(config)).flatMap(([name, deps]) =>
    Object.entries(deps)
      .filter(
        ([dep, condition]) =>
          condition === 'service_started' &&
          config.services[dep]?.healthcheck &&
          !config.services[dep].healthcheck.disable,
      )
      .map(([dep]) => `${name} -> ${dep}`),
  );
}

const samples = [...listSamples(), path.relative(REPO_ROOT, FIXTURE)];

for (const sample of samples) {
  const dir = path.join(REPO_ROOT, sample);

  test(`${sample}: docker compose up waits for health, and the local runner reads the same start conditions`, () => {
    const config = composeConfig(dir);
    assert.deepEqual(startedOnly(config), [], 'dependants that only wait for a start');
    const runner = Object.fromEntries(
      Object.values(loadTopology(sample, {}).services).map((svc) => [svc.name, svc.dependsOn]),
    );
    assert.deepEqual(runner, conditionsOf(config));
  });

  if (fs.existsSync(path.join(dir, 'compose.override.yaml'))) {
    test(`${sample}: compose.yaml names depends_on only as a list (Swarm's loader takes no other form)`, () => {
      const doc = YAML.parse(fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf8'));
      const longForm = Object.entries(doc.services)
        .filter(([, svc]) => svc.depends_on && !Array.isArray(svc.depends_on))
        .map(([name]) => name);
      assert.deepEqual(longForm, []);
    });
  }

  // Variants a README starts with -f, e.g. `-f compose.yaml -f compose.postgres.yaml` (not the
  // lab file, which only the harness merges, on top of the others).
  const variants = fs
    .readdirSync(dir)
    .filter((f) => /^compose\.[\w-]+\.yaml$/.test(f) && !['compose.override.yaml', 'compose.swarm.yaml', LAB_FILE].includes(f));
  for (const variant of variants) {
    test(`${sample}: -f compose.yaml -f ${variant} keeps every start condition without compose.override.yaml`, () => {
      assert.deepEqual(
        startedOnly(composeConfig(dir, ['compose.yaml', variant])),
        [],
        'dependants that only wait for a start',
      );
    });
  }
}
