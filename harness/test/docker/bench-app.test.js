// make bench APP=… for a service in a container image, in another language than the samples': a
// folder with its own compose.yaml (build:) and Dockerfile running busybox's httpd — static files and
// a shell CGI — on the Debian stand-in root filesystem. Generated into an app folder (the repository's
// nginx in front), checked on the Docker engine, then run as one container with 2 CPUs and as 2
// replicas × 1 CPU through nginx; a path answering 404 is bad input. Nothing is left behind.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runnerFor } from '../../runner/index.js';
import { prepareApp } from '../../bench/lib/apps/prepare.js';
import { AppInputError } from '../../bench/lib/apps/errors.js';
import { engine, dockerOk, STAND_INS } from './helpers.js';
import { userFolder, removeFolders } from '../bench-app-helpers.js';

const { skip, failed } = await engine();
const runner = runnerFor('docker');
after(removeFolders);

// The images the generated apps tagged for this test's folders (a user's folder keeps one tag; each
// run of this test has a folder of its own), while the engine still runs.
function removeImages() {
  const tags = dockerOk(['images', '--format', '{{.Repository}}:{{.Tag}}']).split('\n')
    .filter((t) => t.startsWith('scaling-lab-app/bench-app-httpd-'));
  if (tags.length) dockerOk(['rmi', '-f', ...tags]);
}

// The user's service: busybox httpd serving www/ on port 8000, /health a file, /cgi-bin/* shell.
// The root filesystem has busybox but none of its applets linked: each is called through it.
const FILES = {
  'compose.yaml': `services:
  web:
    build:
      context: .
      args:
        BASE: \${BASE}
    ports: ["8000:8000"]
    healthcheck:
      test: ["CMD", "busybox", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8000/health"]
      interval: 1s
      retries: 30
`,
  Dockerfile: `ARG BASE
FROM \${BASE}
COPY www /www
RUN chmod +x /www/cgi-bin/*
EXPOSE 8000
CMD ["busybox", "httpd", "-f", "-v", "-p", "8000", "-h", "/www"]
`,
  'www/index.html': '<h1>hello from busybox httpd</h1>\n',
  'www/health': 'ok\n',
  'www/cgi-bin/search': [
    '#!/bin/sh',
    'printf "Content-Type: application/json\\r\\n\\r\\n"',
    'printf \'{"query":"%s","host":"%s"}\\n\' "$QUERY_STRING" "$(busybox hostname)"', ''].join('\n'),
  'www/cgi-bin/items': [
    '#!/bin/sh',
    'body=$(head -c "${CONTENT_LENGTH:-0}")',
    'printf "Status: 201 Created\\r\\nContent-Type: application/json\\r\\n\\r\\n"',
    'printf \'{"method":"%s","stored":%s}\\n\' "$REQUEST_METHOD" "$body"', ''].join('\n'),
};

describe(`make bench APP=: busybox httpd in a container ${STAND_INS}`, { skip }, () => {
  let app;
  let dir;
  after(() => { if (!failed) removeImages(); });

  before(async () => {
    if (failed) throw new Error(failed);
    // The Debian root filesystem every stand-in is built on (harness/docker-engine/build-stand-ins.sh).
    const base = dockerOk(['images', '--format', '{{.Repository}}:{{.Tag}}', 'scaling-lab/stand-in-rootfs']).split('\n')
      .find((t) => t.includes(':base-'));
    assert.ok(base, 'the stand-in root filesystem image');
    dir = userFolder('httpd', FILES);
    fs.writeFileSync(path.join(dir, '.env'), `BASE=${base}\n`);
    const paths = '/,/cgi-bin/search?q=a,POST /cgi-bin/items {"name":"x"}';
    app = await prepareApp({ app: dir, paths, out: path.join(userFolder('httpd-out', {}), 'run') });
  });

  test(`generated for Docker: the user's service behind nginx, one container against replicas ${STAND_INS}`, () => {
    assert.equal(app.engine, 'docker');
    const x = app.description;
    assert.deepEqual([x.app, x.proxy, x.health, x.runtime], ['web', 'nginx', '/health', 'container']);
    assert.deepEqual(x.strategies, ['one-process', 'replicas']);
    assert.deepEqual(x.engines, ['docker']);
    const compose = fs.readFileSync(path.join(app.dir, 'compose.yaml'), 'utf8');
    assert.doesNotMatch(compose, /8000:8000/, 'the app publishes no port of its own: B replicas share nothing');
    assert.match(compose, /NGINX_UPSTREAM: web:8000/);
  });

  // label, knobs, containers, each one's CPU limit in nano-CPUs
  /** @type {[string, Record<string, string>, number, number][]} */
  const shapes = [
    ['one container with 2 CPUs', { REPLICAS: '1', CPUS: '2' }, 1, 2e9],
    ['2 replicas × 1 CPU', { REPLICAS: '2', CPUS: '1' }, 2, 1e9],
  ];
  for (const [label, env, containers, nanoCpus] of shapes) {
    test(`${label}: the same requests through nginx, nothing left after down ${STAND_INS}`, async () => {
      const runDir = path.join(app.out, `run-${containers}`);
      try {
        const knobs = { ...app.description.defaults, HTTP_PORT: '0', ...env };
        const state = await runner.up({ sample: app.dir, runDir, env: knobs });
        const web = state.services.web.instances;
        assert.equal(web.length, containers);
        for (const c of web) assert.equal(JSON.parse(dockerOk(['inspect', c.id]))[0].HostConfig.NanoCpus, nanoCpus);
        const hosts = new Set();
        for (let i = 0; i < 20; i += 1) {
          const res = await fetch(`${state.url}/cgi-bin/search?q=${i}`, { signal: AbortSignal.timeout(5000) });
          assert.equal(res.status, 200);
          const body = /** @type {any} */ (await res.json());
          assert.equal(body.query, `q=${i}`);
          hosts.add(body.host);
        }
        assert.equal(hosts.size, containers, 'nginx sent to every container');
        const json = { 'content-type': 'application/json' };
        const body = '{"name":"x"}';
        const posted = await fetch(`${state.url}/cgi-bin/items`, { method: 'POST', body, headers: json });
        assert.equal(posted.status, 201);
      } finally {
        const { left, cgroupsLeft } = await runner.down({ runDir });
        assert.deepEqual(left, [], 'no container, network or volume left');
        assert.deepEqual(cgroupsLeft, [], 'no cgroup left');
      }
    });
  }

  test(`a path answering 404 on Docker: one line, nothing left ${STAND_INS}`, async () => {
    const out = path.join(userFolder('httpd-bad', {}), 'run');
    const err = await prepareApp({ app: dir, paths: '/,/missing.html', out }).then(() => null, (e) => e);
    assert.ok(err instanceof AppInputError, String(err));
    assert.match(err.message, /^GET \/missing\.html answered 404 through nginx/);
    assert.equal(fs.existsSync(out), false);
    const left = dockerOk(['ps', '-a', '-q', '--filter', 'label=com.docker.compose.service=web']).trim();
    assert.equal(left, '', 'no container of the check left');
  });
});
