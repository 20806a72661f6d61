#!/usr/bin/env node
// `make test`: runs every suite (ESLint, tsc --checkJs and the import graph; runner and config
// checks; each sample's tests; the .NET tests; the samples on a real Docker engine) and closes with
// one line summing them all: "N passed, N failed". Names of suites as arguments run only those.
//
// Suites run in two lanes side by side: the Docker suite (mostly waiting on containers) beside the
// lint and the harness suite (mostly waiting on processes) — on two cores that overlap is what
// shortens a run; the samples' own suites go to whichever lane is free first. The first lane streams
// its output; the Docker lane's goes to a log file, printed whole as each suite ends. TEST_LANES=1
// runs everything in one lane, streamed.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

// A folder of this run's own, so two `make test` runs never read each other's reports.
fs.mkdirSync(path.join(REPO_ROOT, '.run'), { recursive: true });
const results = fs.mkdtempSync(path.join(REPO_ROOT, '.run', 'test-results-'));

const tapCount = (name) => () => {
  const tap = fs.readFileSync(path.join(results, `${name}.tap`), 'utf8');
  const get = (key) => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN);
  return { passed: get('pass'), failed: get('fail') + get('cancelled'), skipped: get('skipped') };
};

/**
 * A suite: how to run it, and how to count its results once it has run. `lane`: 'main' (the first
 * lane's), 'docker' (the second's), 'any' (whichever is free first).
 * @typedef {{ name: string, cwd: string, command: string, args: string[], lane?: string,
 *   count: () => { passed: number, failed: number, skipped: number } }} Suite
 */

// The files that take longest, each suite's, start first (harness/bin/test-files.js keeps this
// order; `node --test` would sort them by name), so that none starts last and ends its suite alone:
// by the durations in a clean-clone run's TAP (.run/test-results-*/<suite>.tap), longest first. The
// others follow by name.
const SLOWEST_FIRST = {
  harness: ['test/bench-cli.test.js', 'test/drills-dotnet.test.js', 'test/drills.test.js',
    'test/bench-extra-records.test.js', 'test/lint.test.js', 'test/bench-app-frameworks.test.js',
    'test/cli.test.js', 'test/orchestrators-bad-input.test.js', 'test/orchestrators-live.test.js',
    'test/bench-app-interrupt.test.js'],
  // The three-node Swarm first: the other Swarm file (taking turns with it) then starts late.
  docker: ['test/docker/swarm-nodes.test.js', 'test/docker/drills.test.js', 'test/docker/dotnet-api.test.js',
    'test/docker/engine-backend.test.js', 'test/docker/metrics.test.js', 'test/docker/drills-node.test.js',
    'test/docker/drain.test.js', 'test/docker/bench-app.test.js', 'test/docker/swarm.test.js',
    'test/docker/node-replicas.test.js'],
};

/** A suite's files: its globs expanded, the slowest first, then by name. */
function orderedFiles(name, dir, globs) {
  const all = globs.flatMap((g) => fs.globSync(g, { cwd: path.join(REPO_ROOT, dir) })).sort();
  const first = (SLOWEST_FIRST[name] ?? []).filter((f) => all.includes(f));
  return [...first, ...all.filter((f) => !first.includes(f))];
}

/** @returns {Suite} */
const nodeSuite = (name, dir, {
  files = ['test/**/*.test.js'], setup = '', timeoutMs = 300_000, concurrency = 1,
} = {}) => ({
  name,
  cwd: path.join(REPO_ROOT, dir),
  command: process.execPath,
  args: [path.join(REPO_ROOT, 'harness', 'bin', 'test-files.js'), `--concurrency=${concurrency}`,
    `--timeout=${timeoutMs}`, ...(setup ? [`--setup=${setup}`] : []), `--tap=${path.join(results, `${name}.tap`)}`,
    ...orderedFiles(name, dir, files)],
  count: tapCount(name),
});

const dotnetSolution = () => fs.readdirSync(path.join(REPO_ROOT, 'dotnet-api')).find((f) => /\.slnx?$/.test(f));
// `make setup` restored the packages already (dotnet-api/obj/.restored): no restore here.
const dotnetSuite = () => ({
  name: 'dotnet-api',
  cwd: path.join(REPO_ROOT, 'dotnet-api'),
  command: 'dotnet',
  args: ['test', dotnetSolution(), '--no-restore', '--logger', 'trx;LogFileName=dotnet.trx',
    '--results-directory', results, '--nologo'],
  count: () => {
    const trx = fs.readFileSync(path.join(results, 'dotnet.trx'), 'utf8');
    const attr = (key) => Number(new RegExp(`<Counters[^>]*\\s${key}="(\\d+)"`).exec(trx)?.[1] ?? NaN);
    const failed = attr('failed') + attr('error') + attr('timeout') + attr('aborted');
    return { passed: attr('passed'), failed, skipped: attr('notExecuted') };
  },
});

// ESLint, TypeScript's checker and the import graph (harness/bin/lint.js): each check counts as one test.
const staticSuite = () => ({
  name: 'static',
  cwd: REPO_ROOT,
  command: process.execPath,
  args: [path.join(REPO_ROOT, 'harness', 'bin', 'lint.js'), '--summary', path.join(results, 'static.json')],
  count: () => ({ ...JSON.parse(fs.readFileSync(path.join(results, 'static.json'), 'utf8')), skipped: 0 }),
});

function allSuites() {
  // The harness suite includes the runner's own unit tests (harness/runner/test/). Its files run
  // LANE_WIDTH at a time: most of their time is spent waiting on the processes they start, each under
  // a marker and a run folder of its own.
  const harness = nodeSuite('harness', 'harness', {
    files: ['test/*.test.js', 'runner/test/*.test.js'], concurrency: LANE_WIDTH,
  });
  /** @type {Suite[]} */
  const suites = [{ ...staticSuite(), lane: 'main' }, { ...harness, lane: 'main' }];
  // The samples' own suites: whichever lane is free first, the longest first. node-cluster's files two
  // at a time: one at a time, its 2 min 21 s (mostly waiting on drains) were the run's last, the
  // machine half idle (make test 2026-12-05).
  for (const sample of ['node-cluster', 'node-replicas']) {
    if (!fs.existsSync(path.join(REPO_ROOT, sample, 'test'))) continue;
    suites.push({ ...nodeSuite(sample, sample, { concurrency: sample === 'node-cluster' ? 2 : 1 }), lane: 'any' });
  }
  if (fs.existsSync(path.join(REPO_ROOT, 'dotnet-api')) && dotnetSolution()) {
    suites.splice(3, 0, { ...dotnetSuite(), lane: 'any' });
  }
  // The samples on a real Docker engine (harness/test/docker/): one private daemon, one build of the
  // stand-in images and of the samples' images for the whole suite (harness/test-engine/global-setup.js);
  // its files DOCKER_WIDTH at a time, each on Compose projects and ports of its own (the two Swarm
  // files take turns).
  const docker = nodeSuite('docker', 'harness', {
    files: ['test/docker/*.test.js'], setup: 'test-engine/global-setup.js', timeoutMs: 900_000,
    concurrency: DOCKER_WIDTH,
  });
  suites.push({ ...docker, lane: 'docker' });
  return suites;
}

// Files side by side within a suite (TEST_LANES=1: one at a time, as in a debugging run).
// The harness suite three at a time: at two it was the longest lane (11 min 26 s of a clean-clone
// run, 2026-12-04), its files mostly waiting on what they measure.
const LANE_WIDTH = process.env.TEST_LANES === '1' ? 1 : 3;
// The Docker files four at a time: the longest lane at three (10 min 44 s of a clean-clone run, the
// harness lane 8 min 40 s), its files mostly waiting on containers' health checks and drains.
const DOCKER_WIDTH = process.env.TEST_LANES === '1' ? 1 : 4;

const seconds = (ms) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

// Runs one suite; its output streams (`log` undefined) or goes to the file `log`. Resolves with its
// counts and how long it took; a runner that died before reporting counts as one failure.
async function runSuite(suite, log) {
  const began = Date.now();
  const out = log ? fs.openSync(log, 'w') : 'inherit';
  const code = await new Promise((resolve) => {
    const env = { ...process.env, CI: process.env.CI ?? '' };
    const child = spawn(suite.command, suite.args, { cwd: suite.cwd, stdio: ['ignore', out, out], env });
    child.on('exit', (c) => resolve(c));
    child.on('error', () => resolve(127));
  });
  if (log) fs.closeSync(/** @type {number} */ (out));
  let counts;
  try { counts = suite.count(); } catch { counts = { passed: NaN, failed: NaN, skipped: NaN }; }
  if ([counts.passed, counts.failed].some(Number.isNaN)) counts = { passed: 0, failed: 1, skipped: 0 };
  else if (code !== 0 && counts.failed === 0) counts.failed = 1;
  counts.skipped ||= 0;
  return { name: suite.name, ...counts, tookMs: Date.now() - began };
}

// One lane: its own suites one after the other, then those of `shared` while some are left (the
// lanes take from it in turn, each when it is free).
async function runLane(own, shared, { buffered }) {
  const done = [];
  for (let suite = own.shift() ?? shared.shift(); suite; suite = own.shift() ?? shared.shift()) {
    const log = buffered ? path.join(results, `${suite.name}.log`) : undefined;
    const where = log ? ` (beside the others; its output, printed when it ends: ${log})` : '';
    console.log(`\n=== ${suite.name} ===${where}`);
    const r = await runSuite(suite, log);
    if (log) console.log(`\n=== ${suite.name} (its output) ===\n${fs.readFileSync(log, 'utf8')}`);
    done.push(r);
  }
  return done;
}

const only = process.argv.slice(2);
const chosen = allSuites().filter((s) => !only.length || only.includes(s.name));
const oneLane = process.env.TEST_LANES === '1';
// Two lanes (TEST_LANES=1: one, streamed): the first streams its output, the Docker lane's goes to a
// log printed when each suite ends.
const lanes = oneLane
  ? [{ own: chosen, buffered: false }]
  : [
    { own: chosen.filter((s) => s.lane === 'main'), buffered: false },
    { own: chosen.filter((s) => s.lane === 'docker'), buffered: chosen.some((s) => s.lane === 'main') },
  ];
const shared = oneLane ? [] : chosen.filter((s) => s.lane === 'any');
const began = Date.now();
const ran = (await Promise.all(lanes.map((l) => runLane([...l.own], shared, l)))).flat();
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = ran.map((r) => {
  for (const k of Object.keys(totals)) totals[k] += r[k];
  return `${r.name}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (${seconds(r.tookMs)})`;
});
console.log(`\n${lines.join('\n')}\nall suites: ${seconds(Date.now() - began)}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || chosen.length === 0 ? 1 : 0);
