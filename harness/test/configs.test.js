// Config checks for every sample: compose files validate with Docker Compose v2 (the Swarm files
// with docker stack config), and the samples' nginx files don't drift from proxy/. (Their nginx
// configs rendered for loopback pass `nginx -t`: runner/test/nginx-render.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples, loadTopology, readCompose, LAB_FILE } from '../runner/index.js';
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

// Every combination of compose files a sample's README or compose files name, as `docker stack
// deploy|config -c …` or `docker compose -f …`, loads: Swarm's own loader for the first (client-side,
// no daemon), Compose's for the second.
function documentedCombinations(dir) {
  const texts = fs.readdirSync(dir).filter((f) => f === 'README.md' || /^compose.*\.ya?ml$/.test(f))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
  const stack = new Set();
  const compose = new Set();
  for (const line of texts.join('\n').split('\n')) {
    const files = (flag) =>
      [...line.matchAll(new RegExp(`${flag}\\s+(compose[\\w.-]*\\.ya?ml)`, 'g'))].map((m) => m[1]);
    if (/docker stack (deploy|config)\b/.test(line) && files('-c').length) stack.add(files('-c').join(' '));
    if (/docker compose\b/.test(line) && files('-f').length) compose.add(files('-f').join(' '));
  }
  return { stack: [...stack], compose: [...compose] };
}

/** `docker <args>` run in a sample's folder. @param {string} dir @param {string[]} args */
const dockerIn = (dir, args) => spawnSync('docker', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });

for (const sample of listSamples()) {
  const dir = path.join(REPO_ROOT, sample);
  const title =
    `${sample}: every documented combination of compose files loads ` +
    '(docker stack config, docker compose config)';
  test(title, () => {
    const { stack, compose } = documentedCombinations(dir);
    assert.ok(stack.length > 0, 'the sample documents how to deploy it on Swarm');
    for (const combo of stack) {
      const res = dockerIn(dir, ['stack', 'config', ...combo.split(' ').flatMap((f) => ['-c', f])]);
      assert.equal(res.status, 0, `docker stack config -c ${combo.split(' ').join(' -c ')}: ${res.stderr}`);
    }
    for (const combo of compose) {
      const res = dockerIn(dir, ['compose', ...combo.split(' ').flatMap((f) => ['-f', f]), 'config', '-q']);
      assert.equal(res.status, 0, `docker compose -f ${combo.split(' ').join(' -f ')} config: ${res.stderr}`);
    }
  });
}

// Hardened containers: in each combination a sample runs with Compose, every service has a read-only
// root filesystem (SQL Server aside, which says why), drops every capability and adds none back,
// gains no privilege (no-new-privileges), runs as a user other than root (its `user:`, or the USER
// of the Dockerfile it builds from), and only the proxy publishes a port.
const WRITABLE_ROOT = { 'dotnet-api': ['sqlserver'] };

function dockerfileUser(dir, build) {
  const context = path.resolve(dir, typeof build === 'string' ? build : build.context);
  const file = path.resolve(context, (typeof build === 'object' && build.dockerfile) || 'Dockerfile');
  const users = [...fs.readFileSync(file, 'utf8').matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
  return users.at(-1);
}

/** One service of a sample's merged Compose config, held to the hardening above. */
function assertHardened({ sample, dir, name, svc, proxy }) {
  const where = `${sample}: service ${name}`;
  if (!(WRITABLE_ROOT[sample] ?? []).includes(name)) assert.equal(svc.read_only, true, `${where}: read_only: true`);
  assert.deepEqual(svc.cap_drop, ['ALL'], `${where}: cap_drop: [ALL]`);
  assert.equal(svc.cap_add, undefined, `${where}: adds no capability back`);
  assert.ok(
    (svc.security_opt ?? []).includes('no-new-privileges:true'),
    `${where}: security_opt no-new-privileges:true`,
  );
  const user = svc.user ?? (svc.build ? dockerfileUser(dir, svc.build) : undefined);
  assert.ok(
    user && !/^(root|0)(:|$)/.test(user),
    `${where}: runs as a user other than root (got ${user ?? 'the image default'})`,
  );
  if (name !== proxy) assert.deepEqual(svc.ports ?? [], [], `${where}: publishes no port (only ${proxy} does)`);
}

for (const sample of listSamples()) {
  const dir = path.join(REPO_ROOT, sample);
  const combos = [[]];
  if (fs.existsSync(path.join(dir, 'compose.postgres.yaml'))) combos.push(['compose.yaml', 'compose.postgres.yaml']);
  for (const files of combos) {
    const label = `${sample}${files.length ? ` (${files.join(' + ')})` : ''}`;
    test(`${label}: every service hardened, only the proxy publishes a port`, () => {
      const res = dockerIn(dir, ['compose', ...files.flatMap((f) => ['-f', f]), 'config', '--format', 'json']);
      assert.equal(res.status, 0, res.stderr);
      const doc = JSON.parse(res.stdout);
      const proxy = readCompose(dir)['x-bench']?.proxy;
      for (const [name, svc] of Object.entries(doc.services)) assertHardened({ sample, dir, name, svc, proxy });
    });
  }
}

// What a team copies holds what a deployment uses: the lab's fields (x-local, x-bench) and the
// experiments' knobs live in the sample's compose.lab.yaml, which only the harness merges; no
// deployment file (compose*.yaml but that one) carries them or names them.
for (const sample of listSamples()) {
  const dir = path.join(REPO_ROOT, sample);
  test(`${sample}: the deployment files carry no lab field; ${LAB_FILE} holds them and loads as an override`, () => {
    const lab = fs.readFileSync(path.join(dir, LAB_FILE), 'utf8');
    const labDoc = YAML.parse(lab);
    assert.ok(labDoc['x-bench'], `${LAB_FILE} describes the app to the bench (x-bench)`);
    const labEnv = Object.values(labDoc.services ?? {}).flatMap((svc) => Object.keys(svc.environment ?? {}));
    const deployment = fs.readdirSync(dir).filter((f) => /^compose.*\.ya?ml$/.test(f) && f !== LAB_FILE);
    for (const file of deployment) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      assert.doesNotMatch(text, /^\s*x-(local|bench)\s*:/m, `${sample}/${file} has a lab field`);
      for (const name of labEnv) assert.ok(!new RegExp(`\\b${name}\\b`).test(text), `${sample}/${file} names ${name}`);
    }
    const own = ['compose.yaml', 'compose.override.yaml', LAB_FILE].filter((f) => fs.existsSync(path.join(dir, f)));
    const res = dockerIn(dir, ['compose', ...own.flatMap((f) => ['-f', f]), 'config', '-q']);
    assert.equal(res.status, 0, `docker compose -f ${own.join(' -f ')} config: ${res.stderr}`);
  });
}

// Safe by default: the proxy's published port binds 127.0.0.1, so a sample started on a laptop is
// not reachable from its network; HTTP_BIND is the one documented way to publish it further.
for (const sample of listSamples()) {
  const dir = path.join(REPO_ROOT, sample);
  test(`${sample}: nginx is published on 127.0.0.1 unless HTTP_BIND says otherwise`, () => {
    const published = (env) => {
      const res = spawnSync('docker', ['compose', 'config', '--format', 'json'], {
        cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, HTTP_BIND: '', ...env },
      });
      assert.equal(res.status, 0, res.stderr);
      const doc = JSON.parse(res.stdout);
      return Object.values(doc.services).flatMap((svc) => svc.ports ?? []).map((p) => `${p.host_ip}:${p.published}`);
    };
    assert.deepEqual(published({ HTTP_PORT: '8080' }), ['127.0.0.1:8080']);
    assert.deepEqual(published({ HTTP_PORT: '8080', HTTP_BIND: '0.0.0.0' }), ['0.0.0.0:8080']);
  });
}

// A stopping replica's drain against the reference nginx (proxy/templates, copied into each sample):
// its delay outlasts nginx's upstream keepalive_timeout, so nginx has closed every connection it
// kept idle there before the replica closes any (a POST on one would be lost: nginx never resends
// it); and a replica nginx marked failed at its first refusals stays marked (fail_timeout) until
// nginx has re-resolved the name without it: the apps' 1 s of refusing before they exit, then at
// most valid= + 1 s, with a second to spare.
test('every sample: its drain delay outlasts nginx keep-alive; fail_timeout, its linger and the re-resolution', () => {
  const conf = fs.readFileSync(path.join(PROXY, 'templates', 'default.conf.template'), 'utf8');
  const seconds = (re) => Number(re.exec(conf)?.[1]);
  const keepalive = seconds(/^\s*keepalive_timeout\s+(\d+)s;/m);
  const valid = seconds(/resolver\s[^;]*valid=(\d+)s/);
  const failTimeout = seconds(/server\s[^;]*fail_timeout=(\d+)s/);
  assert.ok([keepalive, valid, failTimeout].every(Number.isFinite), 'the template sets all three');
  const LINGER_S = 1;
  assert.ok(failTimeout >= LINGER_S + valid + 1 + 1, `fail_timeout ${failTimeout} s, valid ${valid} s`);
  for (const sample of listSamples()) {
    // The deployment's own value (compose.yaml, ${VAR:-default} read as its default), not the lab's.
    const doc = YAML.parse(fs.readFileSync(path.join(REPO_ROOT, sample, 'compose.yaml'), 'utf8'));
    const env = Object.fromEntries(Object.entries(doc.services.app?.environment ?? {})
      .map(([k, v]) => [k, String(v).replace(/^\$\{\w+:-([^}]*)\}$/, '$1')]));
    const delayS = ['DRAIN_DELAY_MS'].map((k) => Number(env[k]) / 1000)
      .concat(Number(env.Shutdown__DrainDelaySeconds)).find((x) => Number.isFinite(x));
    assert.ok(delayS > keepalive, `${sample}: drain delay ${delayS} s, nginx keepalive_timeout ${keepalive} s`);
  }
});
