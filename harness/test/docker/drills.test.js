// The bench's fault drill on the real engine, through the docker backend's runner as `make bench
// ENGINE=docker` runs it: node-replicas with 2 replicas behind its nginx, each replica killed under
// a steady load of GETs (a crash: its restart policy brings it back, nginx's passive check and
// re-resolution put it back in rotation), and a kill with the load sent straight to one container,
// which must come back on the loopback port the load goes to.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runnerFor } from '../../runner/index.js';
import { faultDrill } from '../../bench/lib/drills/fault.js';
import { engine, STAND_INS } from './helpers.js';

const { skip, failed } = await engine();
const runner = runnerFor('docker');
const GETS = { get: '/', postShare: 0 };

describe(`the fault drill on Docker: node-replicas ${STAND_INS}`, { skip }, () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-docker-drills-'));
  let state;

  before(async () => {
    if (failed) throw new Error(failed);
    state = await runner.up({ sample: 'node-replicas', runDir, env: { REPLICAS: '2', HTTP_PORT: '0' } });
  });

  after(async () => {
    const { left, cgroupsLeft } = await runner.down({ runDir });
    assert.deepEqual(left, [], 'no container, network or volume of the project left');
    assert.deepEqual(cgroupsLeft, [], 'no cgroup of the run left');
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  test(`through nginx: each replica killed once, no GET fails, each back in rotation ${STAND_INS}`, async () => {
    const r = await faultDrill({ runner, runDir, url: state.url, how: 'instance', kills: 2, rate: 50, mix: GETS, settleMs: 500, gapMs: 200 });
    assert.deepEqual(r.kills.map((k) => k.target), state.services.app.instances.map((i) => i.name));
    for (const k of r.kills) assert.ok(k.backAfterMs > 0 && k.inRotationAfterMs >= k.backAfterMs, JSON.stringify(k));
    assert.ok(r.get.requests > 50, `load ran (${r.get.requests} GETs)`);
    assert.equal(r.get.failed, 0, `no GET failed: ${JSON.stringify(r.get.errors)}`);
  });

  test(`straight at one container: it comes back on the port the load goes to ${STAND_INS}`, async () => {
    const [first] = (await runner.ps({ runDir })).filter((row) => row.service === 'app');
    const r = await faultDrill({ runner, runDir, url: first.url, how: 'instance', kills: 1, rate: 50, mix: GETS, settleMs: 500 });
    assert.equal(r.kills[0].target, first.name);
    const after = (await runner.ps({ runDir })).find((row) => row.service === 'app' && row.index === first.index);
    assert.notEqual(after.pid, first.pid, 'a new first process');
    assert.equal(after.url, first.url, 'the same loopback port');
    // Nothing fails over here: GETs fail while it is down, and are answered again once it is back.
    assert.ok(r.get.requests > r.get.failed, JSON.stringify(r.get));
    assert.equal((await fetch(`${first.url}/`)).status, 200);
  });
});
