import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  affinityCount, cgroupQuota, effectiveCpus, parseCpuList, parseProcCgroup, workerCount,
} from '../src/cpu-count.js';

// A fake file tree: { '/path': 'content' }; anything else is ENOENT.
const tree = (files) => (file) => {
  if (Object.hasOwn(files, file)) return files[file];
  throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
};
const status = (list) => `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${list}\n`;

test('parses /proc/self/cgroup lines for v1 and v2', () => {
  const entries = parseProcCgroup('12:cpu,cpuacct:/docker/abc\n0::/system.slice/x\n');
  assert.deepEqual(entries, [
    { id: 12, controllers: ['cpu', 'cpuacct'], path: '/docker/abc' },
    { id: 0, controllers: [], path: '/system.slice/x' },
  ]);
});

test('cgroup v2: cpu.max of the process group, rounded up', () => {
  const readFile = tree({
    '/proc/self/cgroup': '0::/docker/abc\n',
    '/sys/fs/cgroup/docker/abc/cpu.max': '150000 100000\n',
    '/proc/self/status': status('0-7'),
  });
  assert.equal(cgroupQuota({ readFile }), 1.5);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 8 }), 2);
});

test('cgroup v2 inside a container namespace: the quota sits at the mount root', () => {
  const readFile = tree({
    '/proc/self/cgroup': '0::/\n',
    '/sys/fs/cgroup/cpu.max': '100000 100000\n',
    '/proc/self/status': status('0-3'),
  });
  assert.equal(effectiveCpus({ readFile, availableParallelism: 4 }), 1);
});

test('cgroup v2 "max" means no quota: affinity and availableParallelism decide', () => {
  const readFile = tree({
    '/proc/self/cgroup': '0::/user.slice\n',
    '/sys/fs/cgroup/user.slice/cpu.max': 'max 100000\n',
    '/proc/self/status': status('0-2'),
  });
  assert.equal(cgroupQuota({ readFile }), Infinity);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 8 }), 3);
});

test('cgroup v1: cfs quota/period under the cpu controller path (the local runner\'s layout)', () => {
  const readFile = tree({
    '/proc/self/cgroup': '4:memory:/x\n1:cpu:/scaling-lab/run1/node-cluster-app-1\n0::/\n',
    '/sys/fs/cgroup/cpu/scaling-lab/run1/node-cluster-app-1/cpu.cfs_quota_us': '100000\n',
    '/sys/fs/cgroup/cpu/scaling-lab/run1/node-cluster-app-1/cpu.cfs_period_us': '100000\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    '/proc/self/status': status('0-1'),
  });
  assert.equal(cgroupQuota({ readFile }), 1);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 2 }), 1);
});

test('cgroup v1 mounted as cpu,cpuacct; a parent group\'s smaller quota wins', () => {
  const readFile = tree({
    '/proc/self/cgroup': '3:cpu,cpuacct:/parent/child\n',
    '/sys/fs/cgroup/cpu,cpuacct/parent/child/cpu.cfs_quota_us': '-1',
    '/sys/fs/cgroup/cpu,cpuacct/parent/child/cpu.cfs_period_us': '100000',
    '/sys/fs/cgroup/cpu,cpuacct/parent/cpu.cfs_quota_us': '250000',
    '/sys/fs/cgroup/cpu,cpuacct/parent/cpu.cfs_period_us': '100000',
    '/proc/self/status': status('0-15'),
  });
  assert.equal(cgroupQuota({ readFile }), 2.5);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 16 }), 3);
});

test('cgroup v1 in a container: host path in /proc, quota at the mount root', () => {
  const readFile = tree({
    '/proc/self/cgroup': '2:cpu:/docker/0123abcd\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '50000',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
    '/proc/self/status': status('0-7'),
  });
  assert.equal(cgroupQuota({ readFile }), 0.5);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 8 }), 1, 'a quota below one CPU still gets one worker');
});

test('affinity caps the count (like nproc / sched_getaffinity)', () => {
  assert.equal(parseCpuList('0-3,8,10-11'), 7);
  assert.equal(parseCpuList('garbage'), undefined);
  const readFile = tree({
    '/proc/self/cgroup': '0::/\n',
    '/sys/fs/cgroup/cpu.max': '400000 100000',
    '/proc/self/status': status('0,2'),
  });
  assert.equal(affinityCount({ readFile }), 2);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 8 }), 2);
});

test('hybrid layout with no quota anywhere (this machine outside the runner)', () => {
  const readFile = tree({
    '/proc/self/cgroup': '1:cpu:/\n0::/\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
    '/proc/self/status': status('0-1'),
  });
  assert.equal(effectiveCpus({ readFile, availableParallelism: 2 }), 2);
});

test('nothing readable: falls back to availableParallelism, never below 1', () => {
  const readFile = tree({});
  assert.equal(effectiveCpus({ readFile, availableParallelism: 6 }), 6);
  assert.equal(effectiveCpus({ readFile, availableParallelism: 0 }), 1);
});

test('WORKERS overrides the detected count; bad values are errors', () => {
  const readFile = tree({ '/proc/self/status': status('0-7') });
  assert.deepEqual(workerCount({ WORKERS: '3' }, { readFile, availableParallelism: 8 }), { count: 3, source: 'WORKERS' });
  assert.deepEqual(workerCount({ WORKERS: '' }, { readFile, availableParallelism: 8 }), { count: 8, source: 'cpu quota/affinity' });
  assert.throws(() => workerCount({ WORKERS: '0' }), /positive integer/);
  assert.throws(() => workerCount({ WORKERS: 'two' }), /positive integer/);
  assert.throws(() => workerCount({ WORKERS: '1.5' }), /positive integer/);
});
