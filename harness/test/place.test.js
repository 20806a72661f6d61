// `place` on the processes backend, on a real topology (the echo fixture behind the real nginx): a
// running run moved to another cpuset, budget and quota per instance without a restart — the cgroup
// files read back, the same processes serving, the quota enforced, usage() still cumulative, and
// what starts later (a restart, a scale) placed alike; every bad input one line, nothing changed,
// from the API and from the command line (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor, availableCpus, formatCpuList, PlacementError } from '../runner/index.js';
import { FIXTURE, tempRunDir, getJson, runProcesses } from './helpers.js';

const { up, down, place, restart, scale, usage, readState } = runnerFor('processes');
const LAB = path.join(import.meta.dirname, '..', 'bin', 'lab.js');
const ALL = availableCpus();
const LAST = String(ALL.at(-1));

// "0-1,3" -> [0, 1, 3]
const cpuList = (text) => text.trim().split(',').flatMap((part) => {
  const [a, b = a] = part.split('-').map(Number);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
});
const read = (file) => fs.readFileSync(file, 'utf8').trim();
const allowedCpus = (pid) => cpuList(/Cpus_allowed_list:\s*(\S+)/.exec(read(`/proc/${pid}/status`))[1]);

// A group's CPU quota in CPUs (null: none), from cgroup v2 cpu.max or v1 cpu.cfs_quota_us.
function quotaOf(dir) {
  if (fs.existsSync(path.join(dir, 'cpu.max'))) {
    const [quota, period] = read(path.join(dir, 'cpu.max')).split(' ');
    return quota === 'max' ? null : Number(quota) / Number(period);
  }
  const quota = Number(read(path.join(dir, 'cpu.cfs_quota_us')));
  return quota < 0 ? null : quota / Number(read(path.join(dir, 'cpu.cfs_period_us')));
}

// The cgroup files of an instance and of its run, as the state names them: { instance, run, cpuset }
// (cpuset: the run's cpuset.cpus, undefined where the run has no cpuset group of its own).
function groupsOf(state, inst) {
  const instance = inst.cgroup.find((d) => ['cpu.max', 'cpu.cfs_quota_us'].some((f) => fs.existsSync(path.join(d, f))));
  const run = path.dirname(instance);
  const v1Set = inst.cgroupProcs.find((f) => f.includes('/cpuset/'));
  const setDir = fs.existsSync(path.join(run, 'cpuset.cpus')) ? run : v1Set && path.dirname(v1Set);
  return { instance, run, cpuset: setDir ? path.join(setDir, 'cpuset.cpus') : undefined };
}

// What the kernel has for the run now: its budget and cpuset, each app instance's quota.
function placedNow(state) {
  const app = state.services.app.instances;
  const { run, cpuset } = groupsOf(state, app[0]);
  return {
    budget: quotaOf(run),
    cpuset: cpuset && fs.existsSync(cpuset) && read(cpuset) ? cpuList(read(cpuset)) : null,
    app: app.map((inst) => quotaOf(groupsOf(state, inst).instance)),
  };
}

// Every process of the run (nginx's workers too), the supervisor aside: it is in none of its groups.
const runPids = (runDir, state) => runProcesses(runDir).filter((pid) => pid !== state.supervisor.pid);

/** @param {any} t @param {string} label @param {{ cpuset?: string, budget?: number, env: object }} where */
async function start(t, label, { cpuset, budget, env }) {
  const runDir = tempRunDir(label);
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
    fs.rmSync(runDir, { recursive: true, force: true });
  });
  const state = await up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', ...env }, cpuset, budget });
  return { runDir, state };
}

test('place moves a running run: its cgroups rewritten, the same processes serving under the new quota, ' +
  'a restart and a scale placed alike', { timeout: 180_000 }, async (t) => {
  // Each instance's quota as large as the budget: on cgroup v1, writing the budget before the instances'
  // quotas going down (or after them going up) is refused, so both moves below check the order too.
  const env = { REPLICAS: '2', CPUS: String(ALL.length) };
  const { runDir, state } = await start(t, 'place', { budget: ALL.length, env });
  if (!state.cpuLimits.enforced) return t.skip(`cgroups not writable here: ${state.cpuLimits.reason}`);
  assert.deepEqual([placedNow(state).budget, placedNow(state).app], [ALL.length, [ALL.length, ALL.length]]);
  const pids = state.services.app.instances.map((i) => i.pid);
  const before = await usage({ runDir });

  const placed = await place({ runDir, cpuset: LAST, budget: 1, cpus: { app: 0.5 } });
  assert.deepEqual(placed, { cpuset: LAST, budget: 1, cpus: { app: 0.5, nginx: null } });
  const now = await readState(runDir);
  assert.deepEqual(placedNow(now), { budget: 1, cpuset: [Number(LAST)], app: [0.5, 0.5] });
  assert.deepEqual([now.isolation.cpuset, now.isolation.budget, now.services.app.cpus], [LAST, 1, 0.5]);
  assert.deepEqual(now.services.app.instances.map((i) => i.pid), pids, 'the same processes: nothing restarted');
  for (const pid of runPids(runDir, now)) assert.deepEqual(allowedCpus(pid), [Number(LAST)], `pid ${pid} moved`);
  assert.equal((await getJson(`${now.url}/`)).status, 200, 'nginx still serves');
  for (const inst of now.services.app.instances) assert.equal((await getJson(`${inst.url}/`)).body.pid, inst.pid);
  await quotaEnforced(runDir, now.services.app.instances[0].url, before);

  // A restart gets the new quota and cpuset (its group, and the run's), and so does a scale's new instance.
  const back = await restart({ runDir, service: 'app', index: 1 });
  assert.notEqual(back.pid, pids[0]);
  assert.deepEqual(allowedCpus(back.pid), [Number(LAST)], 'the restarted process is pinned');
  await scale({ runDir, service: 'app', replicas: 3 });
  const three = await readState(runDir);
  assert.deepEqual(placedNow(three).app, [0.5, 0.5, 0.5], 'the restarted and the new instance under 0.5 CPU');
  assert.ok(read(path.join(groupsOf(three, three.services.app.instances[0]).instance, 'cgroup.procs'))
    .split('\n').includes(String(back.pid)), 'the restarted process is in its quota group');
  for (const pid of runPids(runDir, three)) assert.deepEqual(allowedCpus(pid), [Number(LAST)], `pid ${pid} pinned`);

  // And back out: a larger cpuset and budget, a larger quota (the other order of writes).
  const wide = await place({ runDir, cpuset: formatCpuList(ALL), budget: ALL.length, cpus: { app: ALL.length } });
  assert.deepEqual([wide.cpuset, wide.budget, wide.cpus.app], [formatCpuList(ALL), ALL.length, ALL.length]);
  const all3 = Array(3).fill(ALL.length);
  assert.deepEqual(placedNow(await readState(runDir)), { budget: ALL.length, cpuset: ALL, app: all3 });
  for (const pid of runPids(runDir, three)) assert.deepEqual(allowedCpus(pid), ALL, `pid ${pid} on every CPU`);
});

// Under 0.5 CPU a busy loop is throttled; usage() still counts from the start (CPU time is cumulative).
async function quotaEnforced(runDir, url, before) {
  const spin = await fetch(`${url}/spin?cpuMs=400`, { signal: AbortSignal.timeout(60_000) });
  assert.equal(spin.status, 200);
  const after = await usage({ runDir });
  assert.ok(after.cpuNs - before.cpuNs > 400e6, `the run's CPU time counts on across the place: ${after.cpuNs}`);
  const [was, is] = [before, after].map((u) => u.instances.find((i) => i.name === 'echo-app-1'));
  assert.ok(is.cpuNs - was.cpuNs > 400e6, 'and the instance\'s');
  assert.ok(is.throttling.throttled > was.throttling.throttled, `throttled under 0.5 CPU: ${JSON.stringify(is)}`);
}

// Each bad place: the error (a PlacementError, one line) it must give.
/** @type {[Record<string, any>, RegExp][]} */
const BAD = [
  [{ cpuset: '999' }, /^cpuset 999 names CPU 999, which this machine doesn't let us use \(available: /],
  [{ cpuset: '1-x' }, /^cpuset '1-x': '1-x' is not a CPU list/],
  [{ cpuset: '' }, /^cpuset '': '' is not a CPU list/],
  [{ budget: 0 }, /^budget 0 is not a positive number of CPUs$/],
  [{ budget: -1 }, /^budget -1 is not a positive number of CPUs$/],
  [{ budget: 'two' }, /^budget 'two' is not a positive number of CPUs$/],
  [{ budget: ALL.length + 1 }, new RegExp(`^a CPU budget of ${ALL.length + 1} doesn't fit on the ${ALL.length} CPU`)],
  [{ budget: 0.25 }, /^app would have 0\.5 CPU\(s\) per instance, more than the run's budget of 0\.25: place cpus/],
  [{ cpus: { app: 0 } }, new RegExp(`^cpus of app: 0 must be a number of CPUs from 0\\.01 to ${ALL.length}$`)],
  [{ cpus: { app: -0.5 } }, /^cpus of app: -0\.5 must be a number of CPUs/],
  [{ cpus: { app: 'half' } }, /^cpus of app: 'half' must be a number of CPUs/],
  [{ cpus: { app: ALL.length + 1 } }, /^cpus of app: \d+ must be a number of CPUs from 0\.01 to/],
  [{ cpus: { nope: 1 } }, /^no service 'nope' in this run \(there are: app, nginx\)$/],
  [{ cpus: 'app=1' }, /^cpus 'app=1': expected \{ <service>: <CPUs per instance> \}$/],
  [{ cpuSet: LAST }, /^place takes cpuset, budget and cpus, not cpuSet$/],
];
// The budget stays when only the cpuset is given: it must fit there too.
if (ALL.length > 1) BAD.push([{ cpuset: LAST }, /doesn't fit on the 1 CPU\(s\) of cpuset \d+: place a budget that fits too$/]);

test('every bad place: one line, a PlacementError, nothing changed; the command line exits 2', { timeout: 120_000 },
  async (t) => {
    const { runDir, state } = await start(t, 'place-bad', { budget: ALL.length, env: { REPLICAS: '1', CPUS: '0.5' } });
    if (!state.cpuLimits.enforced) return t.skip(`cgroups not writable here: ${state.cpuLimits.reason}`);
    const snapshot = async () => {
      const { savedAt: _s, ...now } = await readState(runDir);
      return { state: now, kernel: placedNow(now), pinned: allowedCpus(now.services.app.instances[0].pid) };
    };
    const before = await snapshot();
    for (const [ask, why] of BAD) {
      await assert.rejects(place({ runDir, ...ask }), (/** @type {any} */ err) => {
        assert.ok(err instanceof PlacementError, `${JSON.stringify(ask)}: ${err.stack}`);
        assert.match(err.message, why, JSON.stringify(ask));
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed: the state, the cgroup files, the pinning');

    const lab = (...args) => spawnSync(process.execPath, [LAB, 'place', ...args, '--run-dir', runDir], {
      encoding: 'utf8', timeout: 60_000, env: { ...process.env, ENGINE: 'processes' },
    });
    for (const args of [['--cpuset', '999'], ['--cpus', 'app'], ['--budget', '0']]) {
      const res = lab(...args);
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, /^error: [^\n]+\n$/, 'one line');
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed by the command line either');
    const ok = lab('--budget', '1', '--cpus', 'app=0.25');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^placed \(engine: processes\): cpuset none, budget 1; CPUs per instance: app 0\.25, nginx none$/m);
    assert.deepEqual(placedNow(await readState(runDir)).app, [0.25]);
  });

test('place with nothing running: one line', { timeout: 10_000 }, async () => {
  const runDir = tempRunDir('place-none');
  await assert.rejects(place({ runDir, budget: 1 }), /^Error: nothing running from /);
  fs.rmSync(runDir, { recursive: true, force: true });
});
