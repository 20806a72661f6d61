// The load generators run in threads of their own, where nothing blocks them: the drills' load
// (bench/lib/drills/load-thread.js), the paced generator's threads (bench/lib/tools/paced-worker.js)
// and the Docker tests' loads (test/docker/load-thread.js). A blocking child-process call in such a
// thread would stop its sends and charge the stall to the server, as the Docker runner's spawnSync
// once did to the drills. So: no module a generator thread loads may reach node:child_process (a
// static walk of its imports, for every thread entry of the harness, new ones included), and a
// generator keeps its schedule while the thread that started it is blocked in spawnSync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cruise } from 'dependency-cruiser';
import { REPO_ROOT } from '../lib/repo-root.js';
import { run as pacedRun, keepAliveAgent } from '../bench/lib/tools/paced.js';
import { startLoad } from '../bench/lib/drills/load.js';

const HARNESS = path.join(REPO_ROOT, 'harness');

// Every file of the harness that is a thread's entry: it takes its data or messages from the
// thread that started it.
const ENTRY = /^import \{[^}]*\b(parentPort|workerData)\b[^}]*\} from 'node:worker_threads';$/m;
function threadEntries() {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.run', '.tools', 'fixtures'].includes(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js') && ENTRY.test(fs.readFileSync(p, 'utf8'))) out.push(p);
    }
  };
  walk(HARNESS);
  return out.sort();
}

// The modules `entry` loads, directly or through others, that are node:child_process.
async function childProcessReached(entry) {
  const cwd = process.cwd();
  process.chdir(path.dirname(entry)); // dependency-cruiser resolves from the working folder
  try {
    const { output } = await cruise([path.basename(entry)], { doNotFollow: { path: 'node_modules' } });
    const modules = /** @type {any} */ (output).modules;
    return modules
      .filter((m) => m.coreModule && /(^|:)child_process$/.test(m.source))
      .map((m) => m.source);
  } finally {
    process.chdir(cwd);
  }
}

test('no generator thread reaches node:child_process, directly or through a module it imports', async () => {
  const entries = threadEntries();
  const rel = entries.map((e) => path.relative(HARNESS, e));
  const known = ['bench/lib/drills/load-thread.js', 'bench/lib/tools/paced-worker.js', 'test/docker/load-thread.js'];
  for (const k of known) assert.ok(rel.includes(k), `${k} is found as a thread entry (found: ${rel.join(', ')})`);
  for (const entry of entries)
    assert.deepEqual(await childProcessReached(entry), [], `${path.relative(HARNESS, entry)} reaches child_process`);
});

test('the walk finds a child_process import two modules away from a thread entry', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generator-thread-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const entry = "import { parentPort } from 'node:worker_threads';\nimport './a.js';\nparentPort?.postMessage(1);\n";
  fs.writeFileSync(path.join(dir, 'thread.js'), entry);
  assert.ok(ENTRY.test(entry), 'a file like it counts as a thread entry');
  fs.writeFileSync(path.join(dir, 'a.js'), "export { b } from './b.js';\n");
  const b = "import { spawnSync } from 'node:child_process';\nexport const b = spawnSync;\n";
  fs.writeFileSync(path.join(dir, 'b.js'), b);
  const found = await childProcessReached(path.join(dir, 'thread.js'));
  assert.equal(found.length, 1, `found: ${found.join(', ')}`);
  assert.match(found[0], /child_process$/);
});

// A server in a process of its own (this thread is about to be blocked) that answers at once.
async function serverElsewhere(t) {
  const code = `
    import http from 'node:http';
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('{}')); });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    setTimeout(() => process.exit(0), 60000).unref();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill());
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  return `http://127.0.0.1:${port}/`;
}

// This thread blocked in a real child-process call for 2 s, as the Docker runner blocks it (a sleep:
// no CPU taken from the generator's thread).
const BLOCK_S = 2;
const block = () => {
  const from = performance.now();
  spawnSync('sleep', [String(BLOCK_S)]);
  return [from, performance.now()];
};
// The median send lag of the requests meant to leave while this thread was blocked, [from, to) on
// this thread's clock. A generator in this thread would send them all after the block: ~BLOCK_S / 2
// late at the median. In a thread of its own, however busy the machine, the median is far below.
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('both generators keep their schedule while the thread that started them is blocked in spawnSync', async (t) => {
  const url = await serverElsewhere(t);
  const load = await startLoad({ url, rate: 100, mix: { get: '/' } });
  await new Promise((r) => setTimeout(r, 300));
  const [from, to] = block().map((x) => x - (performance.now() - load.now()));
  await new Promise((r) => setTimeout(r, 300));
  const records = await load.stop();
  const during = records.filter((r) => r.at >= from && r.at < to);
  assert.ok(during.length >= 150, `${during.length} requests meant to leave during the block`);
  const half = (BLOCK_S * 1000) / 2;
  const lag = p50(during.map((r) => r.lagMs));
  assert.ok(lag < half / 2, `the drills' load: median send lag ${lag} ms`);
  assert.ok(records.every((r) => r.status === 200));

  // The paced generator, on an agent whose thread is up and connected already (a warm run): its
  // window then starts START_MARGIN_MS after the call, not when a new thread happens to be ready,
  // which on a busy machine could be after the block, leaving nothing to check.
  const agent = keepAliveAgent(2);
  t.after(() => agent.destroy());
  await pacedRun({ url, rate: 100, durationS: 0.1, agent });
  const called = performance.now();
  const window = pacedRun({ url, rate: 100, durationS: BLOCK_S + 1, agent, raw: true });
  await new Promise((r) => setTimeout(r, 300));
  const [bFrom, bTo] = block();
  const r = await window;
  assert.equal(r.requests, (BLOCK_S + 1) * 100);
  // r.lags are in the order the requests were meant to leave (one thread), request i at
  // start + 10 i ms, start within a few ms after `called`: those meant to leave during the block,
  // one taken off each end for that uncertainty.
  const first = Math.ceil((bFrom - called) / 10) + 1;
  const blocked = r.lags.slice(first, Math.floor((bTo - called) / 10) - 1);
  assert.ok(blocked.length >= 150, `${blocked.length} requests meant to leave during the block`);
  assert.ok(p50(blocked) < half / 2, `the paced generator: median send lag ${p50(blocked)} ms`);
});

test('a drill load against a server that is not there: every request fails, none is late', async () => {
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`;
  await new Promise((r) => server.close(r));
  const load = await startLoad({ url, rate: 50, mix: { get: '/' } });
  await new Promise((r) => setTimeout(r, 400));
  const records = await load.stop();
  assert.ok(records.length >= 15);
  assert.ok(records.every((x) => x.error === 'ECONNREFUSED' && Number.isFinite(x.lagMs)));
});

test('a generator thread starts with a larger young generation: far fewer scavenges for the same garbage', () => {
  // In a process of its own, so that no generator thread started before sets the flag for the plain
  // thread: the same short-lived arrays in a plain Worker, then in a generator thread.
  const heap = new URL('../bench/lib/tools/generator-heap.js', import.meta.url).href;
  const code = `
    import { Worker } from 'node:worker_threads';
    import { generatorThread } from ${JSON.stringify(heap)};
    const garbage = \`
      const v8 = process.getBuiltinModule('node:v8');
      const profiler = new v8.GCProfiler();
      profiler.start();
      const kept = new Array(64);
      for (let i = 0; i < 2e5; i += 1) kept[i & 63] = new Array(16).fill(i);
      const scavenges = profiler.stop().statistics.filter((s) => s.gcType === 'Scavenge').length;
      process.getBuiltinModule('node:worker_threads').parentPort.postMessage(scavenges);\`;
    const scavenges = (w) => new Promise((resolve) => w.once('message', resolve));
    const plain = await scavenges(new Worker(garbage, { eval: true }));
    const generator = await scavenges(generatorThread(garbage, { eval: true }));
    console.log(JSON.stringify({ plain, generator }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const { plain, generator } = JSON.parse(r.stdout);
  // 34 and 2 here (1 MB against 16 MB to fill between scavenges).
  assert.ok(plain >= 10, `the plain thread scavenged ${plain} times`);
  assert.ok(generator * 4 <= plain, `the generator thread scavenged ${generator} times, the plain one ${plain}`);
});
