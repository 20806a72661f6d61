// Isolation for the benchmark, on a real tiny topology: a whole run pinned to a cpuset, its CPU time
// accounted per instance, its memory summed over every process, and a process pinned on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { runnerFor } from '../index.js';
import { availableCpus, pinProcess, runPids } from '../common/cgroup.js';
import { FIXTURE, tempRunDir, alivePids, pidsOf } from '../../test/helpers.js';

const { up, down, usage, readState } = runnerFor('processes');

const allowedCpus = (pid) => /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
const lastCpu = String(availableCpus().at(-1));

test('a pinned run: every process on the cpuset, CPU time per instance, memory of the whole topology', async (t) => {
  const runDir = tempRunDir('pinned');
  const state = await up({
    sample: FIXTURE,
    runDir,
    env: { HTTP_PORT: '0', REPLICAS: '2', CPUS: '1' },
    cpuset: lastCpu,
    budget: 1,
  });
  const pids = pidsOf(state);
  try {
    if (!state.cpuLimits.pinning.enforced) {
      t.skip(`cpusets not writable here: ${state.cpuLimits.pinning.reason}`);
      return;
    }
    assert.deepEqual(state.isolation, { cpuset: lastCpu, cpus: 1, budget: 1, priority: false });
    const members = runPids(state.runId);
    // 2 app instances, the nginx master and at least one nginx worker.
    assert.ok(members.length >= 4, `run members: ${members}`);
    for (const pid of members) assert.equal(allowedCpus(pid), lastCpu, `pid ${pid} is pinned`);

    const before = await usage({ runDir });
    // One second of CPU time, however busy the machine is (a 2 s wall-clock loop gets less under load).
    const spin = await fetch(`${state.services.app.instances[0].url}/spin?cpuMs=1000`, {
      signal: AbortSignal.timeout(40_000),
    });
    assert.equal(spin.status, 200);
    const after = await usage({ runDir });
    const delta = (i) => after.instances[i].cpuNs - before.instances[i].cpuNs;
    const [busy, idle] = [delta(0), delta(1)];
    t.diagnostic(
      `busy instance ${(busy / 1e6).toFixed(0)} ms, idle instance ${(idle / 1e6).toFixed(0)} ms, run ` +
        `${((after.cpuNs - before.cpuNs) / 1e6).toFixed(0)} ms`,
    );
    assert.equal(after.instances[0].name, 'echo-app-1');
    assert.ok(busy > 900e6, 'the busy loop\'s second of CPU time is the instance\'s that ran it');
    assert.ok(busy > 10 * idle, 'and not of the idle one');
    // Within 5%: a snapshot reads the instances' counters, then the run's, so what an instance ran in
    // between (a busy CI machine deschedules the reader) counts in one delta and not in the other
    // (1001 ms for the run, 1002 ms for the busy instance, make test 2026-12-05). A total without
    // the busy instance would be about 0.
    assert.ok(after.cpuNs - before.cpuNs >= 0.95 * (busy + idle), 'the run total includes every instance');
    assert.ok(after.instances.find((i) => i.service === 'nginx'), 'nginx is accounted too');
    assert.equal(after.memory.processes, members.length);
    assert.ok(after.memory.pssMiB > 10 && after.memory.pssMiB <= after.memory.rssMiB, JSON.stringify(after.memory));
    // The topology's own pages (heaps, stacks): part of its PSS, without the binaries' file pages.
    assert.ok(after.memory.anonMiB > 1 && after.memory.anonMiB < after.memory.pssMiB, JSON.stringify(after.memory));
  } finally {
    await down({ runDir });
  }
  assert.deepEqual(alivePids(pids), []);
});

test('a cpuset or budget that does not fit: one clear error, nothing started', async () => {
  const runDir = tempRunDir('badiso');
  await assert.rejects(
    up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0' }, cpuset: '999' }),
    /^Error: cpuset 999 names CPU 999, which this machine doesn't let us use \(available: /,
  );
  await assert.rejects(
    up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0' }, cpuset: lastCpu, budget: 2 }),
    new RegExp(`a CPU budget of 2 doesn't fit on the 1 CPU\\(s\\) of cpuset ${lastCpu}`),
  );
  await assert.rejects(up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0' }, cpuset: '1-x' }), /is not a CPU list/);
  assert.equal(await readState(runDir), undefined);
});

test('pinProcess puts a process and its threads on CPUs of its own, release gives them back', async (t) => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  try {
    const before = allowedCpus(child.pid);
    let pin;
    try {
      pin = pinProcess(`test-pin-${child.pid}`, child.pid, lastCpu);
    } catch (e) {
      t.skip(`cpusets not writable here: ${e.message}`);
      return;
    }
    assert.equal(allowedCpus(child.pid), lastCpu);
    pin.release();
    assert.equal(allowedCpus(child.pid), before);
  } finally {
    child.kill('SIGKILL');
  }
});
