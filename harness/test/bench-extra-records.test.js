// A strategy and a workload are one file each: a toy of each, written into a temporary folder named
// by BENCH_EXTRA_DIR (nothing of the repository edited), is planned by `--list`, measured in a short
// real run on the processes engine (a copy of the tiny fixture app, on loopback, behind the real
// nginx) and named in the report and the guide. A folder that isn't one, or a file that is no
// record, is one line and exit 2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { runProcesses } from '../runner/index.js';

const HARNESS = path.resolve(import.meta.dirname, '..');
const REPO = path.dirname(HARNESS);
const CLI = path.join(HARNESS, 'bench', 'cli.js');
const TINY = path.join(HARNESS, 'test', 'fixtures', 'tiny');

const made = [];
const tmp = (label) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `bench-extra-${label}-`));
  made.push(d);
  return d;
};
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const TOY_STRATEGY = `// Two copies of the app behind nginx, each with half the budget: a toy from outside the bench.
export default {
  key: 'toy pair',
  slug: 'toy-pair',
  order: 9,
  core: true,
  title: 'Toy pair',
  why: 'Two copies of the app behind nginx, added from a folder of its own.',
  multiProcess: true,
  unsupported: (app) => (app.knobs.instances ? null : \`\${app.name} has no replica knob\`),
  configure: (app, n) => ({ knobs: { [app.knobs.instances]: String(n) }, instances: n, workers: 1 }),
  shape: (n) => \`toy-pair-\${n}\`,
  label: (n) => \`a toy pair of \${n}\`,
  drill: { crash: 'instance', rollout: 'restart in place' },
};
`;

const TOY_WORKLOAD = `// The app's root, asked under a name of its own: a toy from outside the bench.
export default {
  name: 'toy',
  order: 9,
  title: 'toy JSON',
  params: {},
  connections: 8,
  latencyRatePerCpu: 100,
  defaultRun: 'every budget',
  check: (b) => typeof b?.instance === 'string',
  shape: 'a JSON object naming its instance',
};
`;

/** BENCH_EXTRA_DIR with the toy strategy and workload, and an app folder that spells the toy workload. */
function toyFolders() {
  const extra = tmp('records');
  fs.mkdirSync(path.join(extra, 'strategies'));
  fs.mkdirSync(path.join(extra, 'workloads'));
  fs.writeFileSync(path.join(extra, 'strategies', 'toy-pair.js'), TOY_STRATEGY);
  fs.writeFileSync(path.join(extra, 'workloads', 'toy.js'), TOY_WORKLOAD);
  const app = tmp('app');
  fs.copyFileSync(path.join(TINY, 'server.js'), path.join(app, 'server.js'));
  const compose = fs
    .readFileSync(path.join(TINY, 'compose.yaml'), 'utf8')
    .replaceAll('../../../../proxy/', `${REPO}/proxy/`)
    .replace(/ {2}workloads:\n(?: {4}.*\n)+/, '  strategies: [one-process, toy-pair]\n  workloads:\n    toy: /?toy\n');
  assert.match(compose, /toy: \/\?toy/, 'the copy spells the toy workload, and no other');
  fs.writeFileSync(path.join(app, 'compose.yaml'), compose);
  return { extra, app };
}

function runCli(args, env) {
  const marker = crypto.randomUUID();
  const runDir = tmp('runs');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '--run-dir', runDir, ...args], {
      env: { ...process.env, ...env, BENCH_TEST_MARK: marker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const left = runProcesses(runDir, { marker });
      for (const pid of left) process.kill(pid, 'SIGKILL');
      resolve({ code, stdout, stderr, left });
    });
  });
}

const gitStatus = () => spawnSync('git', ['status', '--porcelain'], { cwd: REPO, encoding: 'utf8' }).stdout;

test('a toy strategy and workload of BENCH_EXTRA_DIR: planned, measured, reported', { timeout: 300_000 }, async () => {
  const { extra, app } = toyFolders();
  const before = gitStatus();
  const common = ['--app-dir', app, '--engine', 'processes', '--budgets', '1'];

  const listed = await runCli([...common, '--list'], { BENCH_EXTRA_DIR: extra });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /toy:node-toy-pair-2-nginx-b1 +closed +node:http, a toy pair of 2/);
  assert.match(listed.stdout, /toy:node-1-nginx-b1 +closed +node:http, 1 process/);

  const out = tmp('out');
  // No latency window: the toy's throughput is the question here, not the paced generator.
  const short = ['--window', '1', '--warmup', '0', '--rewarm', '0', '--rounds', '1', '--tool', 'autocannon',
    '--no-latency'];
  const r = await runCli([...common, '--out', out, ...short], { BENCH_EXTRA_DIR: extra });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.left, [], 'no process of the run is left');
  const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  const toyCells = doc.cells.filter((c) => c.workload === 'toy');
  assert.deepEqual(toyCells.map((c) => c.topology.strategy).sort(), ['one process', 'toy pair']);
  for (const c of toyCells) assert.ok(c.status === 'ok' && c.rps.median > 0, `${c.id}: ${c.status} ${c.error}`);
  assert.equal(doc.workloads.toy.title, 'toy JSON');
  assert.ok(doc.verdicts.some((v) => v.id === 'toy.b1.toy-pair.throughput'), 'the toy pair against one process');

  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(report, /toy JSON/);
  assert.match(report, /a toy pair of 2/);
  const guide = fs.readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
  assert.match(guide, /Toy pair/);
  assert.equal(gitStatus(), before, 'no file of the repository was edited or written');
});

test('BENCH_EXTRA_DIR that is no folder, or holds a file that is no record: one line, exit 2', async () => {
  const missing = await runCli(['--list'], { BENCH_EXTRA_DIR: path.join(tmp('gone'), 'nope') });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^bench: BENCH_EXTRA_DIR: \S+nope is not a folder\n$/);

  const extra = tmp('bad');
  fs.mkdirSync(path.join(extra, 'workloads'));
  fs.writeFileSync(path.join(extra, 'workloads', 'half.js'), 'export default { title: "no name" };\n');
  const bad = await runCli(['--list'], { BENCH_EXTRA_DIR: extra });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^bench: BENCH_EXTRA_DIR: \S+half\.js: its default export is no workloads record/);
  assert.equal(bad.stderr.trim().split('\n').length, 1);

  fs.writeFileSync(path.join(extra, 'workloads', 'half.js'), 'export default { name: "light" };\n');
  const twice = await runCli(['--list'], { BENCH_EXTRA_DIR: extra });
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /^bench: BENCH_EXTRA_DIR: \S+half\.js: workloads "light" is there already\n$/);
});
