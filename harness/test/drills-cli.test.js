// The drills' hand-run command (harness/bench/drills.js): misuse is one line and exit 2, before
// anything starts (no engine, no run folder, no output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const CLI = path.join(REPO_ROOT, 'harness', 'bench', 'drills.js');

test('bad input to the drills command: one line naming it, exit 2, nothing started', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'drills-cli-'));
  fs.rmdirSync(out);
  /** @type {[string[], RegExp][]} */
  const cases = [
    [
      ['--budget', '0'],
      /^error: option '--budget <cpus>' argument '0' is invalid\. --budget must be a positive number/,
    ],
    [['--budget', 'two'], /--budget must be a positive number/],
    [['--processes', '1.5'], /--processes must be a positive whole number/],
    [['--kills', '-1'], /--kills must be a positive whole number/],
    [['--rate', 'fast'], /--rate must be a positive number/],
    [['--apps', 'proxy'], /--apps: unknown proxy; use some of dotnet-api, node-cluster, node-replicas/],
    [
      ['--strategies', 'blue-green'],
      /--strategies: unknown blue-green; use some of one-process, cluster, reuseport, pm2, replicas/,
    ],
    [['--engine', 'podman'], /^drills: ENGINE=podman is not an engine: use one of docker, processes\n$/],
    [['--frobnicate'], /^error: unknown option '--frobnicate'/],
  ];
  for (const [args, re] of cases) {
    const res = spawnSync(process.execPath, [CLI, ...args, '--out', out], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(res.status, 2, `${args.join(' ')}: exit ${res.status} ${res.stderr}`);
    assert.match(res.stderr, re, args.join(' '));
    assert.equal(res.stderr.trim().split('\n').length, 1, `one line: ${res.stderr}`);
    assert.equal(res.stdout, '', 'nothing started');
    assert.equal(fs.existsSync(out), false, 'no output written');
  }
});
