// Shared by the Docker tests: the engine (the suite's daemon, or one of this file's own when run
// alone), a Compose v2 project that names the service, step and last log line when a step fails,
// and polling. Every test name says "(stand-in images)": the base images are built here, not pulled;
// the samples' own images are built once with them (test-engine/stand-ins.js), so a test `up`s them
// without --build.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../lib/processes.js';
import { prepareEngine, stopEngine, secretsReady } from '../../test-engine/stand-ins.js';
import { docker, DOCKER_HOST } from '../../docker-engine/daemon.js';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { freePort } from '../../lib/ports.js';
import { waitFor as poll } from '../../lib/poll.js';
import { LEFTOVER_QUERIES } from '../../runner/index.js';

export const STAND_INS = '(stand-in images)';
export { docker, secretsReady };

/**
 * The engine for this file: { skip } when none can run here, else {} (throws, for the tests to
 * fail, when it or a stand-in image failed).
 */
export async function engine() {
  let state = process.env.SCALING_LAB_DOCKER;
  if (!state) {
    try {
      const reason = await prepareEngine();
      state = reason ? `skip:${reason}` : 'ready';
    } catch (err) {
      await stopEngine();
      state = `fail:${err.message}`;
    }
    process.env.SCALING_LAB_DOCKER = state;
    after(stopEngine);
  }
  process.env.DOCKER_HOST = DOCKER_HOST;
  if (state.startsWith('skip:')) return { skip: `no Docker engine here: ${state.slice(5)}` };
  return { failed: state.startsWith('fail:') ? state.slice(5) : null };
}

export function dockerOk(args, opts) {
  const res = docker(args, opts);
  if (res.status !== 0) throw new Error(`docker ${args.join(' ')}: ${(res.error?.message ?? res.stderr).trim()}`);
  return res.stdout;
}

export { freePort };

/**
 * The Docker files run side by side (harness/bin/test-all.js); the two Swarm files take turns: each
 * turns an engine into a Swarm (the suite's own, or three inside it) and runs a stack under load.
 * test-all.js starts them apart, so neither waits on the other for long. A lock directory beside
 * the engine's, held by this process, taken over from a holder that died; returns its release.
 * @param {string} name @param {{ waitMs?: number }} [options]
 */
export async function takeTurns(name, { waitMs = 20 * 60_000 } = {}) {
  const dir = path.join(os.tmpdir(), `scaling-lab-turn-${name}`);
  const holderOf = () => Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8')) || 0;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = -1; // not written yet: its holder is between mkdir and write
    try { holder = holderOf(); } catch { /* not written yet */ }
    if (holder === 0 || (holder > 0 && !isAlive(holder))) fs.rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`waited ${waitMs / 60_000} min for ${dir} (held by pid ${holder})`);
    else await sleep(1000);
  }
}

/**
 * A run folder of its own for the runner's docker backend, `down()` after: nothing of the project
 * (container, network, volume) and no cgroup of the run left, then the folder goes.
 * @param {import('../../runner/index.js').Runner} runner @param {string} label
 */
export function runFolder(runner, label) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `lab-docker-${label}-`));
  return {
    runDir,
    async down() {
      const { left, cgroupsLeft } = await runner.down({ runDir });
      assert.deepEqual(left, [], 'no container, network or volume of the project left');
      assert.deepEqual(cgroupsLeft, [], 'no cgroup of the run left');
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}

/**
 * The shared poll (harness/lib/poll.js) at the Docker tests' pace: up to 30 s, every 250 ms, and a
 * check that throws (a refused connection while a container starts) is tried again.
 * @type {typeof poll}
 */
export const waitFor = (check, options = {}) =>
  poll(check, { timeoutMs: 30_000, everyMs: 250, retryErrors: true, ...options });

/**
 * Until a GET of `path` through the sample's nginx answers 2xx (bounded). nginx resolves the app's
 * name itself once it has started (its upstream's `resolve`), and `up --wait` waits for nginx's own
 * health check, not for that: the first request after it (or after nginx restarted) can find no
 * server yet, a 502 (node-cluster's and node-replicas' tests, make test 2026-12-04). The runner's
 * up() on Docker returns at the same point.
 * @param {string} base @param {string} path
 */
export const nginxRoutes = (base, path) =>
  waitFor(async () => (await fetch(`${base}${path}`)).ok, { what: `GET ${path} through nginx answering 2xx` });

/**
 * A Compose v2 project of one sample, on its own name and loopback port. No files: Compose's own
 * choice, as `docker compose up` in the sample's folder (compose.yaml + compose.override.yaml).
 */
export class Project {
  constructor({ sample, name, files = [], env = {} }) {
    this.sample = sample;
    this.dir = path.join(REPO_ROOT, sample);
    this.name = name;
    this.files = files;
    this.env = env;
  }

  run(args, { timeout = 120_000, check = true } = {}) {
    const full = ['compose', '-p', this.name, ...this.files.flatMap((f) => ['-f', f]), ...args];
    const res = docker(full, { cwd: this.dir, timeout, env: this.env });
    if (check && res.status !== 0) {
      const why = res.error ? res.error.message : (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ');
      throw new Error(`docker compose ${args.join(' ')}: ${why}`);
    }
    return res;
  }

  /** Runs fn; on failure throws naming the service, the step and the container's last log line. */
  async step(service, step, fn) {
    try {
      return await fn();
    } catch (err) {
      throw new Error(
        `${this.sample}: service ${service}: ${step} failed: ${err.message}\n  last log line of ${service}: ` +
          `${this.lastLogLine(service)}`,
        { cause: err },
      );
    }
  }

  lastLogLine(service) {
    const res = this.run(['logs', '--no-log-prefix', '--tail', '1', service], { check: false, timeout: 30_000 });
    return (res.stdout + res.stderr).trim().split('\n').at(-1) || '(no output)';
  }

  containers(service, { all = false } = {}) {
    return this.run(['ps', ...(all ? ['-a'] : []), '-q', service]).stdout.trim().split('\n').filter(Boolean);
  }

  inspect(id) {
    return JSON.parse(docker(['inspect', id]).stdout)[0];
  }

  /** Removes the project's containers, networks and volumes; returns what is still there. */
  down() {
    this.run(['down', '-v', '--remove-orphans', '--timeout', '5'], { check: false, timeout: 180_000 });
    const left = LEFTOVER_QUERIES(this.name)
      .map((cmd) => docker(cmd).stdout.trim())
      .filter(Boolean);
    return left;
  }
}
