// The benchmark end to end: a tiny matrix with very short runs, against a tiny server and through
// the local runner; and the ways it must fail (unreachable topology, broken load generator):
// a clear error, a non-zero exit, no hang, no process left behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';

const HARNESS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CLI = path.join(HARNESS, 'bench', 'cli.js');
const NODE = process.execPath;

// Every process the CLI starts inherits a marker in its environment; nginx overwrites its own
// environment (process title), so it is found by its run folder on the command line instead.
function leftovers({ marker, runDir }) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)
        || fs.readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(`${runDir}/`)) found.push(Number(name));
    } catch { /* gone or not ours */ }
  }
  return found;
}

function runCli(args, { env = {}, timeoutMs = 120_000, onStderr } = {}) {
  const marker = `BENCH_TEST_MARK=${crypto.randomUUID()}`;
  const [k, v] = marker.split('=');
  const runDir = tmp('runs');
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, '--run-dir', runDir, ...args], { env: { ...process.env, ...env, [k]: v }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; onStderr?.(stderr, child); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, marker: v, runDir });
    });
  });
}

function assertNoLeftovers(run) {
  const pids = leftovers(run);
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  assert.deepEqual(pids, [], 'no process started by the benchmark is still running');
}

function assertSvg(file) {
  const svg = fs.readFileSync(file, 'utf8');
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\s*$/);
  assert.match(svg, /<text/);
}

const made = [];
const tmp = (label) => { const d = fs.mkdtempSync(path.join(os.tmpdir(), `bench-test-${label}-`)); made.push(d); return d; };
const writeMatrix = (dir, spec) => { const f = path.join(dir, 'matrix.json'); fs.writeFileSync(f, JSON.stringify(spec)); return f; };
const SHORT = ['--duration', '1', '--repeats', '1', '--warmup', '0'];

// A tiny server with the node-replicas routes.
let server;
let base;
before(async () => {
  let hits = 0;
  server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const send = (body) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (u.pathname === '/') return send({ instance: 'tiny', pid: process.pid, hits: ++hits });
    if (u.pathname === '/pi') return send({ pi: 3.14159, samples: Number(u.searchParams.get('samples')) });
    if (u.pathname === '/delay') return setTimeout(() => send({ ms: 5 }), 5);
    res.writeHead(404); res.end('{"error":"not found"}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

test('a tiny matrix runs end to end: well-formed JSON, markdown, SVG charts and guide', { timeout: 90_000 }, async () => {
  const out = tmp('tiny');
  const t = { url: base, label: 'tiny server' };
  const matrix = writeMatrix(out, {
    params: { stepS: 1, maxSteps: 2, ceilingS: 1 },
    cells: [
      { kind: 'closed', topology: t, workload: 'light', connections: 4 },
      { kind: 'closed', topology: t, workload: 'pi', connections: 4 },
      { kind: 'count', topology: t, workload: 'delay', connections: 2, amount: 10, scenario: 'exp-pi-loadbalancing', tags: { variant: '1 instance' } },
      { kind: 'openloop', topology: t, workload: 'light', connections: 4, scenario: 'openloop' },
    ],
  });
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'autocannon', ...SHORT]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  assert.equal(doc.schema, 1);
  assert.equal(doc.tool, 'autocannon');
  assert.ok(doc.ceilings.autocannon.rps > 0, 'ceiling measured');
  assert.equal(doc.pacedTool, 'autocannon', 'fixed-rate runs use autocannon when it was asked for');
  assert.ok(doc.meta.machine.cores >= 1 && doc.meta.versions.node && doc.meta.git.commit);
  assert.equal(doc.results.length, 4);
  for (const res of doc.results) assert.equal(res.status, 'ok', res.error);
  const [light, , count, open] = doc.results;
  assert.ok(light.rps > 0 && light.requests > 0 && light.latencyMs.p99 >= light.latencyMs.p50);
  assert.equal(light.non2xx + light.socketErrors, 0);
  assert.equal(count.requests, 10);
  assert.ok(open.steps.length >= 1 && open.steps.length <= 2, 'the rate search is bounded by maxSteps');
  assert.ok(open.maxRate > 0, 'the tiny server sustains some rate under 500 ms');
  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(report, /^# Benchmark results/);
  assert.match(report, /\| tiny server \| light \| 4 \|/);
  assert.doesNotMatch(report, /NaN|undefined/);
  for (const f of ['matrix-throughput.svg', 'matrix-p99.svg', 'openloop.svg']) {
    assertSvg(path.join(out, f));
    assert.ok(report.includes(`](${f})`), `report links ${f}`);
  }
  const guide = fs.readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
  assert.match(guide, /^# When clustering, replicas or thread pools win/);
  assert.doesNotMatch(guide, /NaN|undefined/);
  assert.match(r.stdout, /tiny server/, 'summary table printed');
  assertNoLeftovers(r);
});

test('through the runner: node-replicas directly and via nginx, fault drills on replicas and cluster workers', { timeout: 150_000 }, async () => {
  const out = tmp('runner');
  const direct = { sample: 'node-replicas', direct: true, env: { REPLICAS: '1', CPUS: '1' }, label: '1 Node process', family: 'node-process' };
  const replicas = { sample: 'node-replicas', env: { REPLICAS: '2', CPUS: '1' }, label: '2 Node replicas + nginx', family: 'node-replicas' };
  const cluster = { sample: 'node-cluster', direct: true, env: { WORKERS: '2', CPUS: '1' }, label: 'Node cluster of 2', family: 'node-cluster' };
  const matrix = writeMatrix(out, {
    params: { faultS: 5, everyS: 1.5, faultRate: 100, ceilingS: 1 },
    cells: [
      { kind: 'closed', topology: direct, workload: 'light', connections: 8 },
      { kind: 'closed', topology: replicas, workload: 'delay', connections: 16 },
      { kind: 'fault', topology: replicas, workload: 'delay', how: 'instance', scenario: 'fault-drill' },
      { kind: 'fault', topology: cluster, workload: 'delay', how: 'worker', scenario: 'fault-drill' },
    ],
  });
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', ...SHORT]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  for (const res of doc.results) assert.equal(res.status, 'ok', res.error);
  const [light, delay, fault, workerFault] = doc.results;
  assert.equal(light.tool, 'wrk');
  assert.ok(light.rps > 0 && delay.rps > 0);
  assert.ok(delay.latencyMs.p50 >= 50, 'the 50 ms delay shows in the latency');
  assert.equal(typeof doc.meta.cpuLimits.enforced, 'boolean');
  assert.ok(fault.kills.length >= 2, `at least two kills in 5 s (got ${JSON.stringify(fault.kills)})`);
  assert.ok(fault.kills.every((k) => !k.error), JSON.stringify(fault.kills));
  assert.ok(fault.requests > 0 && fault.failed >= 0 && fault.failed <= fault.requests);
  assert.equal(workerFault.how, 'worker');
  assert.ok(workerFault.kills.length >= 2 && workerFault.kills.every((k) => Number.isInteger(k.pid) && !k.error), JSON.stringify(workerFault.kills));
  assert.equal(new Set(workerFault.kills.map((k) => k.pid)).size, workerFault.kills.length, 'each kill hit a different (respawned) worker');
  assertSvg(path.join(out, 'fault-drill.svg'));
  assertNoLeftovers(r);
});

test('an unreachable topology ends with a clear error and exit 1, not a hang', { timeout: 60_000 }, async () => {
  const out = tmp('unreachable');
  const closed = await new Promise((resolve) => { const s = http.createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
  const matrix = writeMatrix(out, {
    params: { ceilingS: 1 },
    cells: [
      { kind: 'closed', topology: { url: `http://127.0.0.1:${closed}`, label: 'nobody home' }, workload: 'light', connections: 2 },
      { kind: 'closed', topology: { sample: 'no-such-sample', env: {}, label: 'missing sample' }, workload: 'light', connections: 2 },
    ],
  });
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'autocannon', ...SHORT]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /2 of 2 measurements failed/);
  assert.match(r.stderr, /nobody home .*ECONNREFUSED/);
  assert.match(r.stderr, /missing sample .*cannot start/);
  const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  assert.deepEqual(doc.results.map((x) => x.status), ['failed', 'failed']);
  assertNoLeftovers(r);
});

test('a missing load generator stops the run at once with exit 2', { timeout: 30_000 }, async () => {
  const out = tmp('nowrk');
  const r = await runCli(['--out', out, '--tool', 'wrk', '--scenario', 'matrix', ...SHORT], { env: { WRK_BIN: path.join(out, 'no-such-wrk') } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /load generator failed: wrk failed: ".*no-such-wrk" not found/);
  assert.equal(fs.existsSync(path.join(out, 'results.json')), false, 'no results from a run that measured nothing');
  assertNoLeftovers(r);
});

test('a load generator that breaks mid-run stops the topology it was measuring and exits 2', { timeout: 60_000 }, async () => {
  const out = tmp('badwrk');
  // Works once (the ceiling), then fails like a crashed generator.
  const fake = path.join(out, 'wrk');
  fs.writeFileSync(fake, `#!/bin/sh\nif [ -e "${out}/used" ]; then echo "wrk: simulated crash" >&2; exit 3; fi\ntouch "${out}/used"\nexec wrk "$@"\n`, { mode: 0o755 });
  const matrix = writeMatrix(out, {
    params: { ceilingS: 1 },
    cells: [{ kind: 'closed', topology: { sample: 'node-replicas', direct: true, env: { REPLICAS: '1', CPUS: '1' }, label: '1 Node process' }, workload: 'light', connections: 2 }],
  });
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', ...SHORT], { env: { WRK_BIN: fake } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /load generator failed: wrk failed: wrk: simulated crash/);
  assertNoLeftovers(r);
});

test('Ctrl-C while measuring stops every process it started and exits 130', { timeout: 60_000 }, async () => {
  const out = tmp('sigint');
  const replicas = { sample: 'node-replicas', env: { REPLICAS: '2', CPUS: '1' }, label: '2 Node replicas + nginx' };
  const matrix = writeMatrix(out, { params: { ceilingS: 1 }, cells: [{ kind: 'closed', topology: replicas, workload: 'delay', connections: 8 }] });
  let sent = false;
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'autocannon', '--duration', '20', '--repeats', '1', '--warmup', '0'], {
    onStderr: (text, child) => {
      if (!sent && /nginx: waiting/.test(text)) { sent = true; setTimeout(() => child.kill('SIGINT'), 1500); }
    },
  });
  assert.ok(sent, r.stderr);
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /SIGINT: stopping what was started/);
  assertNoLeftovers(r);
});

test('bad arguments are refused with a usage message', { timeout: 30_000 }, async () => {
  const r1 = await runCli(['--scenario', 'nope']);
  assert.notEqual(r1.code, 0);
  assert.match(r1.stderr, /Allowed choices are/);
  const r2 = await runCli(['--duration', '-3']);
  assert.notEqual(r2.code, 0);
  assert.match(r2.stderr, /--duration must be a positive number/);
});
