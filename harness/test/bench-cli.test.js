// The benchmark end to end through the local runner on a tiny fixture sample (very short windows),
// and the ways it must fail (a topology that cannot start, a missing or broken load generator,
// Ctrl-C, bad arguments): a clear error, a non-zero exit, no hang, no process left behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { sliceOrder, sliceSeed } from '../bench/lib/run/measure-window.js';
import { runProcesses } from '../runner/index.js';

const HARNESS = path.resolve(import.meta.dirname, '..');
const CLI = path.join(HARNESS, 'bench', 'cli.js');
const NODE = process.execPath;

/**
 * @param {string[]} args
 * @param {{
 *   env?: object, timeoutMs?: number,
 *   onStderr?: (text: string, child: import('node:child_process').ChildProcess) => void,
 * }} [options]
 */
function runCli(args, { env = {}, timeoutMs = 280_000, onStderr } = {}) {
  const marker = `BENCH_TEST_MARK=${crypto.randomUUID()}`;
  const [k, v] = marker.split('=');
  const runDir = tmp('runs');
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, '--run-dir', runDir, ...args], {
      env: { ...process.env, ...env, [k]: v },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, marker: v, runDir });
    });
  });
}

function assertNoLeftovers(run) {
  // Every process the CLI starts inherits the marker in its environment.
  const pids = runProcesses(run.runDir, { marker: run.marker });
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  assert.deepEqual(pids, [], 'no process started by the benchmark is still running');
}

function assertSvg(file) {
  const svg = fs.readFileSync(file, 'utf8');
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\s*$/);
  assert.match(svg, /<text/);
}

const made = [];
const tmp = (label) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `bench-test-${label}-`));
  made.push(d);
  return d;
};
const writeMatrix = (dir, spec) => {
  const f = path.join(dir, 'matrix.json');
  fs.writeFileSync(f, JSON.stringify(spec));
  return f;
};
const TINY = path.join(HARNESS, 'test', 'fixtures', 'tiny');
const SHORT = ['--window', '1', '--warmup', '0', '--rewarm', '0'];
const one = { sample: TINY, strategy: 'one process', viaNginx: true };
const two = { sample: TINY, strategy: 'replicas', n: 2, viaNginx: true };
const oneLightCell = { scenarios: [{ name: 'm', cells: [{ workload: 'light', topology: one }] }] };
// What a test of how a run fails or stops needs: no latency window, so no paced generator to start.
const NO_LATENCY = '--no-latency';

after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

// The tiny plan: one process against two replicas behind nginx, on light JSON and on pi.
function tinyMatrix(out) {
  return writeMatrix(out, {
    scenarios: [
      {
        name: 'tiny',
        title: 'one process vs two replicas',
        cells: [
          { workload: 'light', topology: one },
          { workload: 'light', topology: two },
          { workload: 'pi', topology: one },
          { workload: 'pi', topology: two },
        ],
        compare: [
          { a: 1, b: 0, column: 'replicas', limit: 1 },
          { a: 3, b: 2, column: 'replicas', limit: 1 },
        ],
      },
    ],
  });
}

// The run's protocol: the generator's flags, the schema, the rule, the tool and its ceilings.
function assertProtocol(doc) {
  assert.ok(
    doc.protocol.generatorNodeFlags.includes('--min-semi-space-size=16'),
    `the generator threads started with a larger young generation: ${doc.protocol.generatorNodeFlags}`,
  );
  assert.equal(doc.schema, 4);
  assert.deepEqual(doc.protocol.rule, { confidence: 0.95, margin: 0.1, labels: ['wins', 'equal', 'cant-tell'] });
  assert.equal(doc.tool, 'wrk');
  assert.ok(doc.ceilings.wrk.rps > 0, 'the ceiling of the generator the cells use');
  assert.deepEqual(
    Object.keys(doc.ceilings),
    ['wrk', 'paced'],
    'and of the paced generator its latency windows use, and of no other',
  );
}

// Pinned: the generator and the topologies on CPUs of their own, the core-speed probe timed within the
// run; not pinned: it says why and flags every cell.
function assertIsolation(doc) {
  assert.equal(typeof doc.isolation.pinned, 'boolean');
  if (doc.isolation.pinned) {
    assert.notEqual(doc.isolation.generatorCpus, doc.isolation.sutCpus, 'the generator has CPUs of its own');
    assert.equal(
      doc.isolation.cpuLimits.pinning.cpus,
      doc.isolation.sutCpus,
      'the topologies were pinned to the others',
    );
    // The topologies' CPU was timed through the run, by a probe pinned there, which is gone now.
    const speed = doc.box.coreSpeed;
    assert.equal(speed.cpus, doc.isolation.sutCpus);
    assert.ok(
      speed.probes >= 10 && speed.readings.length === speed.probes,
      JSON.stringify({ ...speed, readings: undefined }),
    );
    assert.ok(speed.slowShare >= 0 && speed.slowShare <= 1 && speed.fastUs > 0 && speed.fastUs <= speed.medianUs);
    const runMs = Date.parse(doc.finishedAt) - Date.parse(speed.startedAt);
    assert.ok(
      speed.readings.every(([t, us]) => t >= 0 && t <= runMs && us > 0),
      'readings within the run',
    );
  } else {
    assert.ok(doc.isolation.reason, 'an unpinned run says why');
    assert.ok(
      doc.cells.every((c) => c.unpinned),
      'and flags every cell',
    );
  }
}

// Every cell measured in each round; its latency windows at the same fixed rate as its pair's.
function assertCells(doc) {
  assert.deepEqual(
    doc.cells.map((c) => c.id),
    ['light:node-1-nginx', 'light:node-replicas-2-nginx', 'pi:node-1-nginx', 'pi:node-replicas-2-nginx'],
  );
  for (const c of doc.cells) {
    assert.equal(c.status, 'ok', c.error);
    assert.equal(c.rounds.length, 3);
    assert.equal(c.topology.budgetCpus, doc.isolation.budgetCpus, 'every topology gets the same budget');
    // The generator's own CPU in each window, as a share of the machine (process accounting).
    assert.ok(c.generatorShare > 0 && c.generatorShare < 1, `${c.id}: generator share ${c.generatorShare}`);
    for (const w of c.rounds) {
      assert.ok(w.rps > 0 && w.requests > 0 && w.errors === 0, JSON.stringify(w));
      assert.ok(w.generatorCpuMs > 0 && w.wallMs > 0, "the generator's CPU and the wall time of the window");
      assert.ok(
        w.latencyMs.p50 <= w.latencyMs.p90 && w.latencyMs.p90 <= w.latencyMs.p99 && w.latencyMs.p99 <= w.latencyMs.max,
      );
      assert.ok(w.cpuPerRequestUs > 0, 'CPU time per request accounted');
      assert.ok(w.memoryMiB > 0 && w.processes >= 3, 'memory of app(s) and nginx');
    }
    assert.ok(c.rps.min <= c.rps.median && c.rps.median <= c.rps.max);
    // Latency at one fixed rate per workload, below the slowest cell's capacity (in the last 2 of 3 rounds).
    assert.equal(c.paced?.rounds, 2, `${c.id}: latency windows at a fixed rate`);
    assert.ok(c.paced.rate >= 1 && c.paced.rate < c.rps.median, `${c.id}: ${c.paced.rate} req/s is below capacity`);
    assert.equal(
      c.paced.rate,
      doc.cells.find((x) => x.workload === c.workload && x.id !== c.id).paced.rate,
      'the same rate for both sides',
    );
    for (const w of c.rounds.filter((x) => x.round > 1)) {
      assert.ok(w.paced.requests > 0 && w.paced.latencyMs.p99 > 0, JSON.stringify(w.paced));
      // Each latency slice's start, in order, within the run: to set beside the probe's readings.
      assert.equal(w.paced.sliceAt.length, w.paced.slices);
      assert.ok(
        w.paced.sliceAt.every(
          (t, i) =>
            t >= Date.parse(doc.startedAt) &&
            t <= Date.parse(doc.finishedAt) &&
            (i === 0 || t > w.paced.sliceAt[i - 1]),
        ),
        JSON.stringify(w.paced.sliceAt),
      );
    }
  }
}

function assertBlockOrder(doc) {
  // In blocks, one a workload (the cells its questions pair), in the plan's order: a block's rounds
  // all end before the next block's begin. Interleaved within a block: each round's cells start
  // their windows in the order of that round's first slice (a fresh shuffle every slice), and a
  // round ends before the next begins.
  const at = (id, round) => Date.parse(doc.cells.find((c) => c.id === id).rounds.find((w) => w.round === round).at);
  const blocks = [...new Set(doc.cells.map((c) => c.workload))].map((w) =>
    doc.cells.filter((c) => c.workload === w).map((c) => c.id),
  );
  assert.equal(blocks.length, 2);
  assert.ok(
    Math.max(...blocks[0].map((id) => at(id, 3))) < Math.min(...blocks[1].map((id) => at(id, 1))),
    'the first block is measured before the second',
  );
  for (const ids of blocks) {
    for (const r of [1, 2, 3])
      assert.deepEqual(
        [...ids].sort((x, y) => at(x, r) - at(y, r)),
        sliceOrder(ids, sliceSeed(r, 0)),
        `round ${r}`,
      );
    assert.ok(
      Math.max(...ids.map((id) => at(id, 1))) < Math.min(...ids.map((id) => at(id, 2))),
      'a round ends before the next begins',
    );
  }
}

// Each verdict: a label of the rule, a winner of the pair or none, its ratio within its interval.
function assertVerdicts(doc) {
  assert.equal(doc.verdicts.length, 8);
  for (const v of doc.verdicts) {
    assert.ok(['wins', 'equal', 'cant-tell', 'bounded'].includes(v.label), v.label);
    // Bounded: something other than the strategies limited the cells, and the verdict says what.
    if (v.label === 'bounded')
      assert.ok(v.bound?.by && v.bound.why && ['throughput', 'capacity'].includes(v.metric), JSON.stringify(v.bound));
    assert.ok(
      v.label === 'wins' ? ['node-replicas-2-nginx', 'node-1-nginx'].includes(v.winner) : v.winner === null,
      v.winner,
    );
    assert.ok(v.ratio > 0 && v.ci95[0] <= v.ratio && v.ratio <= v.ci95[1], JSON.stringify(v));
    assert.equal(typeof v.suspect, 'boolean');
    assert.equal(v.rounds, v.slices ? 2 : 3);
    if (v.metric === 'p99') assert.equal(v.latencyAt, 'fixed rate');
  }
}

// The report (the probe's host speed, every chart linked) and the decision guide.
function assertReportAndGuide(out, doc) {
  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(report, /^# Benchmark results/);
  assert.match(report, /`light:node-1-nginx`/);
  assert.doesNotMatch(report, /NaN|undefined/);
  // The host's speed as the probe read it, to set beside another run's.
  if (doc.box.coreSpeed)
    assert.ok(
      report.includes(
        `${doc.box.coreSpeed.fastUs.toLocaleString('en-US', { maximumFractionDigits: 0 })} µs at full speed`,
      ),
      "the Box line gives the probe's fast time",
    );
  const verdictChart = `verdicts-b${doc.protocol.budgets[0]}.svg`;
  for (const f of [
    verdictChart,
    'tiny-throughput.svg',
    'tiny-p99.svg',
    'tiny-cpu-per-request.svg',
    'tiny-memory.svg',
  ]) {
    assertSvg(path.join(out, f));
    assert.ok(report.includes(`](${f})`), `report links ${f}`);
  }
  // Every verdict at a glance is the report's; the guide opens with the run's findings.
  assert.match(
    report,
    /\| workload \| metric \| one process \(the baseline\) \| replicas: node:http 2 replicas ÷ node:http 1 process \|/,
  );
  const guide = fs.readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
  assert.match(guide, /^# When clustering, replicas or thread pools win/);
  assert.match(guide, /## What this run found\n\n- \*\*/);
  assert.doesNotMatch(guide, /NaN|undefined/);
}

test(
  'a tiny plan through the runner: pinned, interleaved rounds, cost per cell, verdicts, charts, report and guide',
  { timeout: 300_000 },
  async () => {
    const out = tmp('tiny');
    const matrix = tinyMatrix(out);
    const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', '--rounds', '3', ...SHORT]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    assertProtocol(doc);
    assertIsolation(doc);
    assertCells(doc);
    assertBlockOrder(doc);
    // The pi cells cost more CPU per request than light ones (about 100k samples each).
    assert.ok(doc.cells[2].cpuPerRequestUs.median > 3 * doc.cells[0].cpuPerRequestUs.median);
    assertVerdicts(doc);
    assertReportAndGuide(out, doc);
    assert.match(r.stdout, /light\.node-replicas-2-nginx-vs-node-1-nginx\.throughput/, 'verdicts printed');
    assertNoLeftovers(r);

    // --from renders again from results.json alone, whatever the labels say now.
    doc.cells[0].topology.label = 'RELABELLED one process';
    doc.label = 'relabelled run';
    fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify(doc));
    const again = await runCli(['--from', path.join(out, 'results.json')]);
    assert.equal(again.code, 0, again.stderr);
    const report2 = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    assert.match(report2, /relabelled run/);
    assert.match(report2, /RELABELLED one process/);
  },
);

test(
  'a process manager the platform lacks is skipped with one line; the rest runs and the run succeeds',
  { timeout: 180_000 },
  async () => {
    const out = tmp('skip');
    const matrix = writeMatrix(out, {
      scenarios: [
        {
          name: 'skip',
          cells: [
            { workload: 'light', topology: one },
            { workload: 'light', topology: { sample: TINY, strategy: 'reuseport', n: 2, viaNginx: true } },
            { workload: 'light', topology: two },
          ],
          compare: [
            { a: 1, b: 0, metrics: ['throughput'] },
            { a: 2, b: 0, metrics: ['throughput'] },
          ],
        },
      ],
    });
    const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', '--rounds', '2', ...SHORT, NO_LATENCY]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => /reuseport skipped/.test(l));
    assert.equal(lines.length, 1, r.stderr);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    assert.equal(doc.cells.find((c) => c.topology.strategy === 'reuseport').status, 'skipped');
    assert.equal(doc.cells.find((c) => c.topology.strategy === 'one process').status, 'ok', 'the rest is measured');
    assert.equal(doc.skipped.length, 1);
    assert.equal(doc.skipped[0].strategy, 'reuseport');
    assert.match(doc.skipped[0].why, /reuseport skipped: .*reusePort is not available on this platform/);
    assert.equal(doc.skipped[0].why.split('\n').length, 1);
    assert.equal(doc.verdicts[0].label, null, 'a question with a skipped side is not answered');
    // --no-latency: no latency window, so no paced generator and no ceiling of it.
    assert.deepEqual(Object.keys(doc.ceilings), ['wrk']);
    assert.ok(doc.cells.every((c) => !c.latencyRounds), 'no cell measured at a fixed rate');
  },
);

test(
  'a topology that cannot start is recorded as failed, the run ends with exit 1 and nothing left running',
  { timeout: 180_000 },
  async () => {
    const out = tmp('crash');
    const matrix = writeMatrix(out, {
      scenarios: [
        {
          name: 'crash',
          cells: [
            { workload: 'light', topology: { ...one, env: { CRASH_AT_START: '1' } } },
            { workload: 'light', topology: two },
          ],
        },
      ],
    });
    const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', '--rounds', '1', ...SHORT, NO_LATENCY]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /1 of 2 measurements failed/);
    assert.match(r.stderr, /light:node-1-nginx: cannot start .*exited before it was healthy/);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    assert.deepEqual(
      doc.cells.map((x) => x.status),
      ['failed', 'ok'],
    );
    assertNoLeftovers(r);
  },
);

test('a missing load generator stops the run at once with exit 2', { timeout: 60_000 }, async () => {
  const out = tmp('nowrk');
  const matrix = writeMatrix(out, oneLightCell);
  const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', ...SHORT, NO_LATENCY], {
    env: { WRK_BIN: path.join(out, 'no-such-wrk') },
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /load generator failed: wrk failed: ".*no-such-wrk" not found/);
  assert.equal(fs.existsSync(path.join(out, 'results.json')), false, 'no results from a run that measured nothing');
  assertNoLeftovers(r);
});

test(
  'a load generator that breaks mid-run stops the topology it was measuring and exits 2',
  { timeout: 180_000 },
  async () => {
    const out = tmp('badwrk');
    // Works once (the ceiling), then fails like a crashed generator.
    const fake = path.join(out, 'wrk');
    fs.writeFileSync(
      fake,
      `#!/bin/sh\nif [ -e "${out}/used" ]; then echo "wrk: simulated crash" >&2; exit 3; fi\n` +
        `touch "${out}/used"\nexec wrk "$@"\n`,
      { mode: 0o755 },
    );
    const matrix = writeMatrix(out, oneLightCell);
    const r = await runCli(['--matrix', matrix, '--out', out, '--tool', 'wrk', ...SHORT, NO_LATENCY], {
      env: { WRK_BIN: fake },
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /load generator failed: wrk failed: wrk: simulated crash/);
    assertNoLeftovers(r);
  },
);

// 20 s alone on this 2-core machine (2026-12-05; CI runs other suites beside it): the
// limit only bounds a hang.
test('Ctrl-C while measuring stops every process it started and exits 130', { timeout: 240_000 }, async () => {
  const out = tmp('sigint');
  const matrix = writeMatrix(out, {
    scenarios: [{ name: 'm', cells: [{ workload: 'delay', topology: two }] }],
  });
  let sent = false;
  const r = await runCli(
    [
      '--matrix',
      matrix,
      '--out',
      out,
      '--tool',
      'autocannon',
      '--window',
      '20',
      '--rounds',
      '1',
      '--warmup',
      '0',
      '--rewarm',
      '0',
      NO_LATENCY,
    ],
    {
      onStderr: (text, child) => {
        if (!sent && /round 1\/1/.test(text)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 1500);
        }
      },
    },
  );
  assert.ok(sent, r.stderr);
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /SIGINT: stopping what was started/);
  assertNoLeftovers(r);
});

test('a secret file the app needs is missing: one line, exit 2, nothing started', { timeout: 60_000 }, async () => {
  const out = tmp('nosecret');
  const app = path.join(out, 'app');
  fs.cpSync(TINY, app, { recursive: true });
  const compose = path.join(app, 'compose.yaml');
  fs.appendFileSync(compose, '\nsecrets:\n  pw:\n    file: ./secrets/pw.txt\n');
  const matrix = writeMatrix(out, {
    scenarios: [{ name: 'm', cells: [{ workload: 'light', topology: { ...one, sample: app } }] }],
  });
  const r = await runCli(['--matrix', matrix, '--out', out, ...SHORT]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr.trim(), /^bench: error: \S*secrets\/pw\.txt missing: run `make secrets`/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(fs.existsSync(path.join(out, 'results.json')), false, 'nothing measured');
  assertNoLeftovers(r);
});

// Bad input: one clear line, exit 2, nothing listed or started. One test per invocation, each with a
// bound of its own (the CLI checks its command line before it loads what measures and renders).
/** @type {[string[], RegExp][]} */
const BAD_INPUT = [
  [['--scenario', 'nope'], /Allowed choices are/],
  [['--window', '-3'], /--window must be a positive number/],
  [['--bogus'], /^error: unknown option '--bogus' \(bench --help lists the options\)$/],
  [['--sample', 'no-such-sample', '--list'], /^bench: error: unknown sample 'no-such-sample': expected one of /],
  [['--budgets', '0', '--list'], /^bench: error: BUDGETS: '0' is not a whole number of CPUs/],
  [['--budgets', 'two', '--list'], /^bench: error: BUDGETS: 'two' is not a whole number/],
  [['--budgets', '1,64', '--list'], /^bench: error: BUDGETS: 64 CPUs is more than this machine has/],
  [['--budget', '64', '--list'], /^bench: error: a CPU budget of 64 doesn't fit: /],
  // A latency target or a price that is not a positive number.
  [['--slo-p99', '0'], /--slo-p99 must be a positive number, got '0'/],
  [['--slo-p99', 'fast'], /--slo-p99 must be a positive number, got 'fast'/],
  [['--price-vcpu-hour', '-1'], /--price-vcpu-hour must be a positive number, got '-1'/],
  [['--price-gib-hour', 'x'], /--price-gib-hour must be a positive number, got 'x'/],
  // A results file of an older schema given to the re-render: the schema it needs.
  [
    ['--from', path.join(HARNESS, 'test', 'fixtures', 'results-schema2.json'), '--out', tmp('old')],
    /^bench: --from .*results-schema2\.json: results schema 2; the re-render needs schema 4 \(measure again with make bench\)$/,
  ],
];
for (const [args, why] of BAD_INPUT) {
  const shown = args.map((a) => (a.startsWith(os.tmpdir()) ? '<dir>' : path.basename(a))).join(' ');
  test(`bad input \`${shown}\`: one clear line, exit 2, nothing started`, { timeout: 60_000 }, async () => {
    const r = await runCli(args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.trim(), why);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(r.stdout, '', 'nothing listed, nothing started');
  });
}

test('--budgets 1 --list: the plan of the budget asked for, and of no other', { timeout: 60_000 }, async () => {
  const listed = await runCli(['--budgets', '1', '--list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^budgets 1 CPU \(CPU \d+\): asked for/m);
  assert.doesNotMatch(listed.stdout, /-b2 /, 'only the budget asked for');
});

test(
  'make bench BUDGETS=…: ' +
    'a non-number, zero or more CPUs than the machine has stops before anything is installed or started',
  () => {
    const repo = path.resolve(import.meta.dirname, '../..');
    for (const bad of ['0', 'x', '1,999']) {
      const r = spawnSync('make', ['-s', 'bench', `BUDGETS=${bad}`], { cwd: repo, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 2, `BUDGETS=${bad}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '', 'nothing ran');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /BUDGETS: '(0|x|999)' must be a whole number of CPUs from 1 to \d+/);
    }
  },
);
