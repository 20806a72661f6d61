// Two teardowns of one run may meet: a `lab down` in one process cancels the `lab up` starting the
// run in another, and each takes down what it sees. Removing the run's groups must then be done by
// whichever gets there first, without an error for the other (it once failed with ENOENT on the
// run's group, in place of the cancel message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createGroup, probe, removeRun, runExists } from '../common/cgroup.js';

test("removing a run's groups that another teardown removes meanwhile: no error, nothing left", (t) => {
  const runId = `teardown-race-${process.pid}`;
  const limits = probe(runId);
  if (!limits.enforced) return t.skip(`cgroups not writable here: ${limits.reason}`);
  const group = createGroup(runId, 'app-1', { cpus: 0.5 });
  t.after(() => removeRun(runId));
  assert.ok(runExists(runId));
  // The other teardown wins the race: the groups go between this one's look and its read.
  const readdir = fs.readdirSync;
  let raced = false;
  // @ts-ignore: a stand-in for the other process, once
  fs.readdirSync = (/** @type {any} */ dir, /** @type {any} */ opts) => {
    if (!raced) {
      raced = true;
      for (const d of group.dirs) fs.rmdirSync(d);
      for (const d of group.dirs.map((x) => x.slice(0, x.lastIndexOf('/')))) fs.rmdirSync(d);
    }
    return readdir(dir, opts);
  };
  try {
    assert.deepEqual(removeRun(runId), []);
  } finally {
    fs.readdirSync = readdir;
  }
  assert.ok(raced, 'the race was run');
  assert.equal(runExists(runId), false);
  assert.deepEqual(removeRun(runId), [], 'and again, with nothing there');
});
