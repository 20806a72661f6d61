// The deploy events' hand-run command (harness/bench/deploy-events.js): misuse is one line and exit
// 2, before anything starts (no engine, no container, nothing on stdout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const CLI = path.join(REPO_ROOT, 'harness', 'bench', 'deploy-events.js');

test('bad input to deploy-events: one line naming it, exit 2, nothing started', () => {
  const ok = ['--sample', 'node-replicas', '--orchestrator', 'compose'];
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--orchestrator', 'compose'], /^error: required option '--sample <folder>' not specified/],
    [['--sample', 'node-replicas'], /^error: required option '--orchestrator <name>' not specified/],
    [['--sample', 'node-replicas', '--orchestrator', 'k8s'], /--orchestrator is compose or swarm/],
    [['--sample', 'nope', '--orchestrator', 'compose'], /^deploy-events: unknown sample 'nope'/],
    [[...ok, '--events', '0'], /--events must be a positive whole number, got '0'/],
    [[...ok, '--events', '2.5'], /--events must be a positive whole number, got '2.5'/],
    [[...ok, '--rate', 'fast'], /--rate must be a positive number, got 'fast'/],
    [[...ok, '--post-share', '1.5'], /--post-share must be a positive number of at most 1, got '1.5'/],
    [[...ok, '--env', 'REPLICAS'], /--env takes NAME=value,…; got "REPLICAS"/],
    [[...ok, '--env', 'REPLICAS=1'], /^deploy-events: REPLICAS must be 2 or more/],
    // A stack placing 1 app task per node can't run a start-first rollout on one node: said, not tried.
    [['--sample', 'dotnet-api', '--orchestrator', 'swarm'], /max_replicas_per_node.*--lift-per-node lifts it/],
    [[...ok, '--frobnicate'], /^error: unknown option '--frobnicate'/],
  ];
  for (const [args, re] of cases) {
    const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(res.status, 2, `${args.join(' ')}: exit ${res.status} ${res.stderr}`);
    assert.match(res.stderr, re, args.join(' '));
    assert.equal(res.stderr.trim().split('\n').length, 1, `one line: ${res.stderr}`);
    assert.equal(res.stdout, '', 'nothing started');
  }
});
