// Config checks for every sample: compose files validate with Docker Compose v2 (the Swarm files
// with docker stack config), and the samples' nginx files don't drift from proxy/. (Their nginx
// configs rendered for loopback pass `nginx -t`: runner/test/nginx-render.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples, loadTopology } from '../runner/index.js';
import { FIXTURE } from './helpers.js';

const PROXY = path.join(REPO_ROOT, 'proxy');
// The runner's fixture mounts proxy/ itself, so it checks the reference config too.
const samples = [...listSamples(), path.relative(REPO_ROOT, FIXTURE)];

for (const sample of samples) {
  const dir = path.join(REPO_ROOT, sample);

  test(`${sample}: compose.yaml passes docker compose config with .env.example`, () => {
    const envExample = path.join(dir, '.env.example');
    const env = path.join(dir, '.env');
    // `env_file: .env` must exist for docker compose; use the example only if the user has none.
    const borrowed = fs.existsSync(envExample) && !fs.existsSync(env);
    if (borrowed) fs.copyFileSync(envExample, env);
    try {
      const args = [
        '-f',
        'compose.yaml',
        ...(fs.existsSync(envExample) ? ['--env-file', '.env.example'] : []),
        'config',
        '-q',
      ];
      const res = spawnSync('docker', ['compose', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      assert.equal(res.error, undefined, `docker compose could not run: ${res.error?.message}`);
      assert.equal(res.status, 0, res.stderr);
    } finally {
      if (borrowed) fs.rmSync(env);
    }
  });

  // What `docker stack deploy -c compose.yaml -c compose.swarm.yaml` loads: Swarm's own loader, which
  // refuses what Compose accepts (long-form depends_on). Client-side: no daemon needed.
  if (fs.existsSync(path.join(dir, 'compose.swarm.yaml'))) {
    test(`${sample}: compose.yaml + compose.swarm.yaml pass docker stack config`, () => {
      const res = spawnSync('docker', ['stack', 'config', '-c', 'compose.yaml', '-c', 'compose.swarm.yaml'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(res.error, undefined, `docker could not run: ${res.error?.message}`);
      assert.equal(res.status, 0, res.stderr);
    });
  }

  const topology = loadTopology(sample, {});
  for (const svc of Object.values(topology.services).filter((s) => s.local.nginx)) {
    test(`${sample}: nginx files are the reference proxy/ config`, () => {
      assert.ok(svc.volumes.length > 0, `${svc.name} mounts no file of the sample: nothing to compare`);
      for (const { src, dst } of svc.volumes) {
        // /etc/nginx/<x> is proxy/<x>; other mounts (/docker-entrypoint.d/<x>) keep their path under proxy/.
        const rel = dst.startsWith('/etc/nginx') ? path.relative('/etc/nginx', dst) : dst.replace(/^\//, '');
        const reference = path.join(PROXY, rel);
        assert.ok(fs.existsSync(reference), `${dst} has no counterpart in proxy/ (${rel})`);
        const files = fs.statSync(src).isDirectory() ? fs.readdirSync(reference) : [''];
        if (fs.statSync(src).isDirectory()) {
          assert.deepEqual(
            fs.readdirSync(src).sort(),
            [...files].sort(),
            `${path.relative(REPO_ROOT, src)} holds the same files as proxy/${rel}`,
          );
        }
        for (const f of files) {
          assert.equal(
            fs.readFileSync(path.join(src, f), 'utf8'),
            fs.readFileSync(path.join(reference, f), 'utf8'),
            `${path.relative(REPO_ROOT, path.join(src, f))} differs from proxy/${path.join(rel, f)}: change ` +
              `proxy/ and copy it`,
          );
        }
      }
    });
  }
}

test('proxy/haproxy.cfg, the HAProxy equivalent, is valid', (t) => {
  const res = spawnSync('haproxy', ['-c', '-f', path.join(PROXY, 'haproxy.cfg')], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (/** @type {NodeJS.ErrnoException} */ (res.error)?.code === 'ENOENT') {
    t.skip('haproxy is not installed');
    return;
  }
  assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
});
