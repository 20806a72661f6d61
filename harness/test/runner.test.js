// The runner against a real topology: Node instances behind Debian's nginx with the reference config;
// up() and down() leave nothing behind, whenever down() comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runnerFor } from '../runner/index.js';
import { procCpuNs } from '../lib/processes.js';
import { FIXTURE, tempRunDir, pidsOf, alivePids, getJson, runProcesses, waitFor } from './helpers.js';

const { up, down, ps, signal, restart, readState } = runnerFor('processes');

const nginxStarted = (runDir) => fs.existsSync(path.join(runDir, 'logs', 'echo-nginx-1.log'));

test('up starts the compose topology healthy, down leaves nothing running', async () => {
  const runDir = tempRunDir('updown');
  const state = await up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', REPLICAS: '2', GREETING: 'from-env' } });
  const pids = pidsOf(state);
  try {
    assert.equal(state.services.app.instances.length, 2);
    assert.deepEqual(Object.keys((await readState(runDir)).services), ['app', 'nginx']);
    assert.equal((await ps({ runDir })).filter((r) => r.status === 'running').length, 3);
    const direct = await getJson(state.services.app.instances[0].url);
    assert.equal(direct.body.greeting, 'from-env', 'compose environment reaches the process');
    assert.equal(direct.body.instance, 'echo-app-1');
    // nginx buffers bodies over 16 kB in its temp folder, which its workers must be able to write.
    const posted = await fetch(state.url, {
      method: 'POST',
      body: 'x'.repeat(100_000),
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(posted.status, 200);
    assert.equal(/** @type {{ received: number }} */ (await posted.json()).received, 100_000);
    const cgroups = state.services.app.instances[0].cgroup;
    if (state.cpuLimits.enforced) {
      assert.ok(fs.readFileSync(path.join(cgroups[0], 'cgroup.procs'), 'utf8').includes(String(direct.body.pid)));
    }
  } finally {
    await down({ runDir });
  }
  assert.deepEqual(alivePids(pids), [], 'instances and the supervisor are gone');
  assert.deepEqual(runProcesses(runDir), []);
  assert.equal(await readState(runDir), undefined);
  assert.deepEqual(await ps({ runDir }), []);
  if (state.cpuLimits.enforced) {
    for (const dir of state.services.app.instances.flatMap((i) => i.cgroup))
      assert.equal(fs.existsSync(dir), false, `${dir} removed`);
  }
});

test('nginx spreads requests over every instance and routes around one killed with -9 (restart: no keeps it ' +
  'dead)', async () => {
  const runDir = tempRunDir('spread');
  const state = await up({
    sample: FIXTURE,
    runDir,
    env: { HTTP_PORT: '0', REPLICAS: '3', LB: 'round_robin', APP_RESTART: 'no' },
  });
  try {
    const seen = new Set();
    for (let i = 0; i < 30; i += 1) seen.add((await getJson(state.url)).body.instance);
    assert.deepEqual([...seen].sort(), ['echo-app-1', 'echo-app-2', 'echo-app-3']);

    // Steady load from 4 concurrent clients while instance 2 is killed with -9 mid-run.
    let failed = 0;
    let ok = 0;
    const servedBy = new Set();
    const until = Date.now() + 3000;
    const client = async () => {
      while (Date.now() < until && ok + failed < 20_000) {
        try {
          const { status, body } = await getJson(state.url);
          if (status === 200) {
            ok += 1;
            servedBy.add(body.instance);
          } else failed += 1;
        } catch {
          failed += 1;
        }
      }
    };
    const load = Promise.all([client(), client(), client(), client()]);
    await new Promise((r) => setTimeout(r, 800));
    const victim = await signal({ runDir, service: 'app', index: 2, signal: 'SIGKILL' });
    await load;
    assert.equal(failed, 0, 'no GET failed while an instance died');
    assert.ok(ok > 50, `load ran (${ok} requests)`);
    assert.equal((await ps({ runDir })).find((r) => r.service === 'app' && r.index === 2).status, 'exited');
    assert.ok(!alivePids([victim.pid]).length);

    const back = await restart({ runDir, service: 'app', index: 2 });
    assert.notEqual(back.pid, victim.pid);
    // nginx keeps a failed server out for fail_timeout (2 s in the proxy config), then tries it again.
    let back2 = false;
    for (let i = 0; i < 100 && !back2; i += 1) {
      back2 = (await getJson(state.url)).body.instance === 'echo-app-2';
      if (!back2) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(back2, 'restarted instance serves again on its port');
  } finally {
    await down({ runDir });
  }
});

test('a CPUS=0.25 quota holds a busy loop near a quarter of a core', async (t) => {
  const runDir = tempRunDir('quota');
  const state = await up({
    sample: FIXTURE,
    runDir,
    env: { HTTP_PORT: '0', REPLICAS: '1', CPUS: '0.25' },
    services: ['app'],
  });
  try {
    if (!state.cpuLimits.enforced) { t.skip(`CPU limits not enforceable here: ${state.cpuLimits.reason}`); return; }
    const { pid, url } = state.services.app.instances[0];
    const before = procCpuNs(pid);
    const started = Date.now();
    await fetch(`${url}/spin`, { signal: AbortSignal.timeout(20_000) }); // 2 s of wall-clock busy loop
    const share = ((procCpuNs(pid) - before) / 1e9) / ((Date.now() - started) / 1000);
    t.diagnostic(`busy loop got ${(share * 100).toFixed(0)}% of a core under a 25% quota`);
    assert.ok(share > 0.1 && share < 0.4, `CPU share ${share.toFixed(2)} should be near 0.25`);
  } finally {
    await down({ runDir });
  }
});

test('down() during an up() in progress: the up stops where it is, down waits for it, nothing is left', async () => {
  const runDir = tempRunDir('cancel');
  const starting = up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', REPLICAS: '2', START_DELAY_MS: '3000' } });
  const rejected = assert.rejects(starting, /^Error: starting echo was cancelled: down\(\) was called meanwhile$/);
  await waitFor(async () => (await readState(runDir))?.services?.app?.instances?.filter((i) => i.pid).length === 2, {
    what: 'both app processes started',
  });
  const groups = (await readState(runDir)).services.app.instances.flatMap((i) => i.cgroup ?? []);
  const { stopped } = await down({ runDir });
  await rejected;
  assert.equal(stopped, 2, 'the two app processes it had started');
  // The bench used to sweep /proc for leftovers after down(); down() itself guarantees it now.
  assert.deepEqual(runProcesses(runDir), []);
  assert.equal(await readState(runDir), undefined);
  for (const dir of groups) assert.equal(fs.existsSync(dir), false, `${dir} removed`);
  assert.equal(nginxStarted(runDir), false, 'nginx, next in line, never started');
});
