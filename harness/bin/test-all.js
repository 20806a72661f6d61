#!/usr/bin/env node
// `make test`: runs every suite (ESLint and tsc --checkJs, runner and config checks, each sample's
// tests, the .NET tests), streams their output, and closes with one line summing them all:
// "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

// A folder of this run's own, so two `make test` runs never read each other's reports.
fs.mkdirSync(path.join(REPO_ROOT, '.run'), { recursive: true });
const results = fs.mkdtempSync(path.join(REPO_ROOT, '.run', 'test-results-'));

const nodeSuite = (name, dir, { files = ['test/**/*.test.js'], extra = [] } = {}) => ({
  name,
  cwd: path.join(REPO_ROOT, dir),
  command: process.execPath,
  args: ['--test', '--test-concurrency=1', '--test-timeout=300000', ...extra,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${path.join(results, `${name}.tap`)}`, ...files],
  count: () => {
    const tap = fs.readFileSync(path.join(results, `${name}.tap`), 'utf8');
    const get = (key) => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN);
    return { passed: get('pass'), failed: get('fail') + get('cancelled'), skipped: get('skipped') };
  },
});

const dotnetSolution = () => fs.readdirSync(path.join(REPO_ROOT, 'dotnet-api')).find((f) => /\.slnx?$/.test(f));
const dotnetSuite = () => ({
  name: 'dotnet-api',
  cwd: path.join(REPO_ROOT, 'dotnet-api'),
  command: 'dotnet',
  args: [
    'test',
    dotnetSolution(),
    '--logger',
    'trx;LogFileName=dotnet.trx',
    '--results-directory',
    results,
    '--nologo',
  ],
  count: () => {
    const trx = fs.readFileSync(path.join(results, 'dotnet.trx'), 'utf8');
    const attr = (key) => Number(new RegExp(`<Counters[^>]*\\s${key}="(\\d+)"`).exec(trx)?.[1] ?? NaN);
    return {
      passed: attr('passed'),
      failed: attr('failed') + attr('error') + attr('timeout') + attr('aborted'),
      skipped: attr('notExecuted'),
    };
  },
});

// ESLint and TypeScript's checker (harness/bin/lint.js): each check counts as one test.
const staticSuite = () => ({
  name: 'static',
  cwd: REPO_ROOT,
  command: process.execPath,
  args: [path.join(REPO_ROOT, 'harness', 'bin', 'lint.js'), '--summary', path.join(results, 'static.json')],
  count: () => ({ ...JSON.parse(fs.readFileSync(path.join(results, 'static.json'), 'utf8')), skipped: 0 }),
});

// The harness suite includes the runner's own unit tests (harness/runner/test/).
const suites = [staticSuite(), nodeSuite('harness', 'harness', { files: ['test/*.test.js', 'runner/test/*.test.js'] })];
for (const sample of ['node-replicas', 'node-cluster']) {
  if (fs.existsSync(path.join(REPO_ROOT, sample, 'test'))) suites.push(nodeSuite(sample, sample));
}
if (fs.existsSync(path.join(REPO_ROOT, 'dotnet-api')) && dotnetSolution()) suites.push(dotnetSuite());
// The samples on a real Docker engine (harness/test/docker/): one private daemon and one build of
// the stand-in images for the whole suite (harness/test-engine/global-setup.js).
suites.push(
  nodeSuite('docker', 'harness', {
    files: ['test/docker/*.test.js'],
    extra: ['--test-global-setup=test-engine/global-setup.js', '--test-timeout=900000'],
  }),
);

const only = process.argv.slice(2);
const chosen = only.length ? suites.filter((s) => only.includes(s.name)) : suites;

function runSuite(suite) {
  return new Promise((resolve) => {
    console.log(`\n=== ${suite.name} ===`);
    const child = spawn(suite.command, suite.args, {
      cwd: suite.cwd,
      stdio: 'inherit',
      env: { ...process.env, CI: process.env.CI ?? '' },
    });
    child.on('exit', (code) => resolve(code));
    child.on('error', () => resolve(127));
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
for (const suite of chosen) {
  const code = await runSuite(suite);
  let counts;
  try { counts = suite.count(); } catch { counts = { passed: NaN, failed: NaN, skipped: NaN }; }
  if ([counts.passed, counts.failed].some(Number.isNaN)) {
    // The runner died before reporting: count the suite as one failure, never as a pass.
    counts = { passed: 0, failed: 1, skipped: 0 };
  } else if (code !== 0 && counts.failed === 0) {
    counts.failed = 1;
  }
  counts.skipped ||= 0;
  for (const k of Object.keys(totals)) totals[k] += counts[k];
  lines.push(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}
console.log(`\n${lines.join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || chosen.length === 0 ? 1 : 0);
