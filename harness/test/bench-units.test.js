// Pure logic of the benchmark: the generators' output, the statistics and verdict rule on synthetic
// samples, the plan (like for like, same budget), the isolation split, samples' x-bench, quotes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWrk } from '../bench/lib/tools/wrk.js';
import { normalise as normAuto } from '../bench/lib/tools/autocannon.js';
import { normalise as normLoad } from '../bench/lib/tools/loadtest.js';
import { GeneratorError } from '../bench/lib/tools/errors.js';
import {
  median,
  summary,
  pairedRatio,
  decide,
  labelOf,
  breaksLimit,
  tQuantile,
  blockBootstrapRatio,
} from '../bench/lib/judge/stats.js';
import { histogram, quantileOf } from '../bench/lib/judge/latency-histogram.js';
import { computeVerdicts, runChecks, flagOpenLoop } from '../bench/lib/judge/verdicts.js';
import { spreadOverRuns, describeSpread } from '../bench/lib/judge/run-to-run-spread.js';
import { plan, MODES } from '../bench/lib/plan/scenarios.js';
import { blocksOf, warmUpOrder, startsBefore } from '../bench/lib/run/interleave-blocks.js';
import { processWarmupFloor, lentCpus, warmupFloor } from '../bench/lib/run/warmup.js';
import { familyKey, familyKeysOf } from '../bench/lib/run/families.js';
import { describeSample, workloadPath } from '../bench/lib/topologies/app-descriptions.js';
import { splitCpus, planIsolation, pinGenerator, defaultBudgets, parseBudgets } from '../bench/lib/plan/cpu-budgets.js';
import { resolve, refresh } from '../bench/lib/report/quotes.js';
import { latencyRate, latencyRounds, combineWindows, sliceOrder, sliceSeed } from '../bench/lib/run/measure-window.js';
import { latencySummary } from '../bench/lib/tools/paced.js';
import { heldOf } from '../bench/lib/judge/held-rate.js';
import { capacityOf } from '../bench/lib/run/capacity.js';
import { summariseCoreSpeed, startCoreProbe } from '../bench/lib/run/core-speed.js';
import { slicesBySpeed } from '../bench/lib/report/core-speed.js';
import { boxReport } from '../bench/lib/run/machine-facts.js';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempRunDir } from './helpers.js';
import { waitFor } from '../lib/poll.js';

const WRK_OK = `Running 3s test @ http://127.0.0.1:8080/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.50ms  800.00us   1.20s    90.00%
    Req/Sec    20.00k     2.00k   25.00k    70.00%
  Latency Distribution
     50%  750.00us
     75%    1.10ms
     90%    2.00ms
     99%    12.34ms
  120000 requests in 3.00s, 30.00MB read
  Socket errors: connect 1, read 2, write 3, timeout 4
  Non-2xx or 3xx responses: 5
Requests/sec:  40000.50
Transfer/sec:     10.00MB
`;

test('parseWrk reads throughput, percentiles in any unit, socket errors and non-2xx', () => {
  const r = parseWrk(WRK_OK);
  assert.equal(r.requests, 120000);
  assert.equal(r.rps, 40000.5);
  assert.equal(r.durationS, 3);
  assert.equal(r.latencyMs.p50, 0.75);
  assert.equal(r.latencyMs.p99, 12.34);
  assert.equal(r.latencyMs.max, 1200);
  assert.equal(r.socketErrors, 10);
  assert.deepEqual(r.socketErrorDetail, { connect: 1, read: 2, write: 3, timeout: 4 });
  assert.equal(r.non2xx, 5);
});

test('parseWrk: a Thread Stats line whose columns ran together gives the max where it can be read, else none', () => {
  // wrk pads each column to a fixed width: a wide average runs into the deviation, a wide deviation into the max.
  const merged = (line) => parseWrk(WRK_OK.replace(/^ {4}Latency {5}1\.50ms.*$/m, line)).latencyMs;
  assert.equal(merged('    Latency     1.23s100.00ms   2.00s    71.14%').max, 2000);
  assert.equal(merged('    Latency     1.23s  100.00ms10.00s    71.14%').max, null);
  assert.equal(merged('    Latency     0.00us    0.00us   0.00us    -nan%').max, 0);
  assert.equal(merged('    Latency     -nan     -nan   -nan    -nan%').max, null);
  assert.equal(
    merged('    Latency     1.23s  100.00ms10.00s    71.14%').p99,
    12.34,
    'the distribution is read all the same',
  );
});

test('parseWrk: no error lines means zero errors', () => {
  const clean = WRK_OK.replace(/ {2}Socket errors.*\n/, '').replace(/ {2}Non-2xx.*\n/, '');
  const r = parseWrk(clean);
  assert.equal(r.socketErrors, 0);
  assert.equal(r.non2xx, 0);
});

test('parseWrk rejects output that is not a wrk report with a GeneratorError', () => {
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused'), GeneratorError);
});

test('autocannon results: rps from total/duration, errors and non-2xx kept apart', () => {
  const r = normAuto({
    requests: { total: 300 },
    duration: 3,
    latency: { p50: 1, p99: 9, max: 20 },
    non2xx: 7,
    errors: 2,
    timeouts: 1,
  });
  assert.equal(r.rps, 100);
  assert.equal(r.non2xx, 7);
  assert.equal(r.socketErrors, 2);
  assert.deepEqual(r.latencyMs, { p50: 1, p90: undefined, p99: 9, max: 20 });
});

test('loadtest results: HTTP status codes count as non-2xx, error names as socket errors', () => {
  const r = normLoad({
    totalRequests: 100,
    elapsedSeconds: 2,
    percentiles: { 50: 3, 90: 5, 95: 6, 99: false },
    maxLatencyMs: 40,
    errorCodes: { 502: 3, ECONNREFUSED: 4, '-1': 1 },
  });
  assert.equal(r.rps, 50);
  assert.equal(r.non2xx, 3);
  assert.equal(r.socketErrors, 5);
  assert.equal(r.latencyMs.p99, null);
});

test('median and summary over rounds', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(median([]), null);
  assert.deepEqual(summary([100, 110, 90]), { median: 100, min: 90, max: 110, spread: 0.2, n: 3 });
  assert.equal(summary([null, undefined]).median, null);
});

// Deterministic "noise": a small linear congruential generator and Box-Muller.
function noise(seed) {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return (s + 1) / (2 ** 31 + 1);
  };
  return (sd) => sd * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}
const rounds = (n, mean, sd, seed) => {
  const e = noise(seed);
  return Array.from({ length: n }, () => mean * (1 + e(sd)));
};

test('statistics on synthetic samples: a 3% difference with 5% noise is never a win', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const r = pairedRatio(rounds(5, 103, 0.05, seed), rounds(5, 100, 0.05, seed + 100));
    assert.ok(['equal', 'cant-tell'].includes(decide(r, 'higher')), `seed ${seed}: ${JSON.stringify(r)}`);
  }
});

test('statistics on synthetic samples: a 30% difference with 3% noise is a win, for the right side', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const r = pairedRatio(rounds(5, 130, 0.03, seed), rounds(5, 100, 0.03, seed + 100));
    assert.ok(r.ci95[0] > 1 && r.ratio > 1.2 && r.ratio < 1.4, JSON.stringify(r));
    assert.equal(decide(r, 'higher'), 'a');
    assert.equal(decide(r, 'lower'), 'b', 'for latency, CPU and memory the lower side wins');
  }
});

test('pairing rounds cancels the machine drifting under both sides', () => {
  // Both sides slow down by up to 40% over the run, the ratio stays 1.2.
  const drift = [1, 0.9, 0.8, 0.7, 0.6];
  const r = pairedRatio(
    drift.map((d) => 120 * d),
    drift.map((d) => 100 * d),
  );
  assert.ok(Math.abs(r.ratio - 1.2) < 1e-9 && r.ci95[1] - r.ci95[0] < 1e-9);
  assert.equal(decide(r, 'higher'), 'a');
});

test(
  "the verdict rule: wins beyond 10%, equal within ±10%, can't tell across the line; one round has no interval",
  () => {
    assert.equal(
      decide({ ratio: 1.3, ci95: [0.9, 1.8] }, 'higher'),
      'cant-tell',
      'the interval includes parity and a 10% win',
    );
    assert.equal(
      decide({ ratio: 1.08, ci95: [1.05, 1.11] }, 'higher'),
      'cant-tell',
      'sure of a difference, not of its size: crosses ×1.10',
    );
    assert.equal(decide({ ratio: 1.04, ci95: [0.95, 1.09] }, 'higher'), 'equal', 'the whole interval within ±10%');
    assert.equal(decide({ ratio: 0.95, ci95: [1 / 1.1, 1.0] }, 'lower'), 'equal', 'the edges count as within');
    assert.equal(decide({ ratio: 0.8, ci95: [0.75, 0.85] }, 'higher'), 'b');
    assert.equal(decide({ ratio: 0.8, ci95: [0.75, 0.85] }, 'lower'), 'a');
    assert.equal(labelOf('a'), 'wins');
    assert.equal(labelOf('equal'), 'equal');
    assert.equal(decide(pairedRatio([130], [100]), 'higher'), 'cant-tell');
    assert.equal(pairedRatio([130], [100]).ci95, null);
    assert.equal(tQuantile(4), 2.776);
  },
);

const cell = (id, values, extra = {}) => ({
  id,
  status: 'ok',
  topology: { id: id.split(':')[1] },
  errors: 0,
  generatorBound: false,
  ...extra,
  rounds: values.map((v, i) => ({
    round: i + 1,
    rps: v,
    latencyMs: { p99: 1000 / v },
    cpuPerRequestUs: 1e6 / v,
    memoryMiB: 50,
  })),
});

test('memory: rounds of the same processes agree to 0.1%, the interval still spans the ±5% two runs differ by', () => {
  const mem = (id, values) => ({
    ...cell(id, [100, 100, 100, 100, 100]),
    rounds: values.map((v, i) => ({ round: i + 1, rps: 100, memoryMiB: v })),
  });
  const cells = [mem('light:two', [200, 200.1, 199.9, 200, 200.2]), mem('light:one', [100, 100.1, 100, 99.9, 100])];
  const q = (metric) => ({
    id: `light.x.${metric}`,
    question: 'q',
    workload: 'light',
    comparison: 'x',
    column: 'x',
    metric,
    better: 'lower',
    a: 'light:two',
    b: 'light:one',
    limit: null,
  });
  const [v] = computeVerdicts([q('memory')], cells);
  assert.ok(Math.abs(v.ratio - 2) < 0.01);
  assert.ok(v.ci95[0] <= 2 / 1.05 + 0.001 && v.ci95[1] >= 2 * 1.05 - 0.001, `ci ${v.ci95}`);
  assert.equal(v.winner, 'one');
  // ×1.13 measured to 0.1% is still inside what two runs of it differ by: a tie.
  const close = [mem('light:two', [113, 113.1, 112.9, 113, 113.2]), mem('light:one', [100, 100.1, 100, 99.9, 100])];
  assert.equal(computeVerdicts([q('memory')], close)[0].winner, null);
  assert.equal(computeVerdicts([q('memory')], close)[0].label, 'cant-tell', '×1.13 ±5% crosses the 10% line');
  // Throughput has no such floor: its rounds carry the run-to-run noise themselves.
  const [t] = computeVerdicts([{ ...q('throughput'), better: 'higher' }], cells);
  assert.ok(t.ci95[1] - t.ci95[0] < 1e-9);
});

test(
  'the slices of a round come in a fresh order each time: no cell always follows the same one, ' +
    'and every run takes the same schedule',
  () => {
    const cells = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
    const schedule = [];
    for (let r = 1; r <= 5; r += 1) for (let s = 0; s < 5; s += 1) schedule.push(sliceOrder(cells, sliceSeed(r, s)));
    for (const order of schedule) assert.deepEqual([...order].sort(), cells, 'each slice takes every cell once');
    assert.deepEqual(sliceOrder(cells, sliceSeed(3, 2)), schedule[2 * 5 + 2], 'the same seed, the same order');
    const before = new Map(cells.map((c) => [c, new Set()]));
    const flat = schedule.flat();
    for (let i = 1; i < flat.length; i += 1) if (flat[i] !== flat[i - 1]) before.get(flat[i]).add(flat[i - 1]);
    for (const [c, set] of before) assert.ok(set.size >= 5, `${c} followed only ${[...set]}`);
    assert.notDeepEqual(schedule[0], schedule[1]);
  },
);

test('an open-loop rate above the closed-loop capacity is suspect; one within the noise of it is not', () => {
  const topo = (id) => ({ id });
  const cells = [
    { id: 'pi:cl', kind: 'closed', status: 'ok', workload: 'pi', topology: topo('cl'), rps: { median: 745 } },
    {
      id: 'openloop.pi:cl',
      kind: 'openloop',
      status: 'ok',
      workload: 'pi',
      topology: topo('cl'),
      probeRps: 763,
      maxRate: 940,
    },
    { id: 'pi:one', kind: 'closed', status: 'ok', workload: 'pi', topology: topo('one'), rps: { median: 829 } },
    {
      id: 'openloop.pi:one',
      kind: 'openloop',
      status: 'ok',
      workload: 'pi',
      topology: topo('one'),
      probeRps: 851,
      maxRate: 885,
      suspect: 'an old flag',
    },
    {
      id: 'openloop.pi:net',
      kind: 'openloop',
      status: 'ok',
      workload: 'pi',
      topology: topo('net'),
      probeRps: 741,
      maxRate: 913,
    },
    { id: 'pi:net', kind: 'closed', status: 'ok', workload: 'pi', topology: topo('net'), rps: { median: 926 } },
  ];
  const byId = new Map(flagOpenLoop(cells).map((c) => [c.id, c]));
  assert.match(byId.get('openloop.pi:cl').suspect, /940 req\/s, ×1\.23 of its closed-loop capacity \(763 req\/s\)/);
  assert.equal(byId.get('openloop.pi:one').suspect, undefined, '4% above: within the noise, and a stale flag goes');
  assert.equal(
    byId.get('openloop.pi:net').suspect,
    undefined,
    'the saturated windows of the run count as capacity too',
  );
});

test(
  'between runs: a question that moved ×0.80 → ×0.96 over runs gets an interval as wide as that, ' +
    'and a steady one keeps its own',
  () => {
    const run = (startedAt, ratios) => ({
      mode: 'quick',
      startedAt,
      verdicts: Object.entries(ratios).map(([id, ratio]) => ({
        id,
        ratio,
        ci95: [ratio * 0.97, ratio * 1.03],
        measured: true,
        suspect: false,
      })),
    });
    const spread = spreadOverRuns([
      run('2026-11-20T10:00:00Z', {
        'light.cluster.throughput': 0.8,
        'light.dotnet.throughput': 2.77,
        'pi.x.throughput': 1,
      }),
      run('2026-11-21T10:00:00Z', {
        'light.cluster.throughput': 0.96,
        'light.dotnet.throughput': 2.93,
        'pi.x.throughput': 1,
      }),
      run('2026-11-22T10:00:00Z', { 'light.cluster.throughput': 0.87, 'light.dotnet.throughput': 2.8 }),
    ]);
    assert.deepEqual(
      Object.keys(spread.questions),
      ['light.cluster.throughput', 'light.dotnet.throughput'],
      'measured in 2 of 3 runs: no spread',
    );
    const sd = spread.questions['light.cluster.throughput'].sdLog;
    assert.ok(sd > 0.08 && sd < 0.1, `sd ${sd}`);
    const floors = describeSpread(spread).floors;
    assert.ok(Math.abs(floors['light.cluster.throughput'] - (Math.exp(1.96 * sd) - 1)) < 1e-3);
    // One run measures ×0.80 within ±3%: alone a win for one process; with the spread, a tie.
    const cells = [cell('light:cluster', [800, 810, 790, 800, 805]), cell('light:one', [1000, 1010, 990, 1000, 1005])];
    const q = {
      id: 'light.cluster.throughput',
      question: 'q',
      workload: 'light',
      comparison: 'cluster',
      column: 'cluster',
      metric: 'throughput',
      better: 'higher',
      a: 'light:cluster',
      b: 'light:one',
      limit: null,
    };
    const [alone] = computeVerdicts([q], cells);
    assert.equal(alone.winner, 'one');
    const [v] = computeVerdicts([q], cells, { floors });
    assert.equal(v.winner, null);
    assert.equal(v.floorKnown, true);
    assert.equal(v.betweenRuns, Number(floors['light.cluster.throughput'].toFixed(3)));
    assert.ok(v.ci95[1] > 1 / 1.1, `ci ${v.ci95}`);
    // A question that barely moved between runs keeps the width of its own rounds.
    const [other] = computeVerdicts(
      [{ ...q, id: 'light.dotnet.throughput' }],
      [cell('light:cluster', [2800, 2810, 2790, 2800, 2805]), cell('light:one', [1000, 1010, 990, 1000, 1005])],
      { floors },
    );
    assert.equal(other.winner, 'cluster');
    assert.throws(
      () => spreadOverRuns([{ ...run('x', {}), mode: 'full' }, run('y', {}), run('z', {})]),
      /different modes/,
    );
  },
);

test(
  'between runs: runs of an earlier day, kept only as a spread file, count beside new results; ' +
    'the CLI says what it lacks',
  async () => {
    const run = (startedAt, ratio, mode = 'quick') => ({
      mode,
      startedAt,
      verdicts: [
        { id: 'light.cluster.throughput', ratio, ci95: [ratio * 0.97, ratio * 1.03], measured: true, suspect: false },
      ],
    });
    const earlier = spreadOverRuns([
      run('2026-11-22T10:00:00Z', 0.95),
      run('2026-11-22T11:00:00Z', 0.96),
      run('2026-11-22T12:00:00Z', 0.97),
    ]);
    const spread = spreadOverRuns([run('2026-11-25T10:00:00Z', 0.75), run('2026-11-25T11:00:00Z', 0.8)], earlier);
    assert.equal(spread.runs.length, 5);
    assert.deepEqual(spread.questions['light.cluster.throughput'].ratios, [0.95, 0.96, 0.97, 0.75, 0.8]);
    assert.ok(
      spread.questions['light.cluster.throughput'].sdLog > 5 * earlier.questions['light.cluster.throughput'].sdLog,
      'the second day widens it',
    );
    assert.throws(() => spreadOverRuns([run('x', 0.8, 'full')], earlier), /different modes/);
    const cli = path.join(import.meta.dirname, '..', 'bench', 'repeatability.js');
    const dir = tempRunDir('spread');
    try {
      const file = path.join(dir, 'earlier.json');
      fs.writeFileSync(file, JSON.stringify(earlier));
      const one = path.join(dir, 'one.json');
      fs.writeFileSync(one, JSON.stringify(run('2026-11-25T10:00:00Z', 0.75)));
      const out = path.join(dir, 'out.json');
      const ok = spawnSync(process.execPath, [cli, one, '--with', file, '--out', out], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(JSON.parse(fs.readFileSync(out, 'utf8')).runs.length, 4);
      const kept = spawnSync(process.execPath, [cli, one, '--with', file, '--keep', 'memory', '--out', out], {
        encoding: 'utf8',
      });
      assert.equal(kept.status, 0, kept.stderr);
      assert.deepEqual(
        JSON.parse(fs.readFileSync(out, 'utf8')).questions,
        {},
        'throughput not kept: one run of it is too few for a spread',
      );
      for (const [argv, why] of /** @type {[string[], RegExp][]} */ ([
        [[one, '--with'], /--with needs a file/],
        [[one, '--keep', 'memory'], /--keep applies to --with/],
        [[one, '--frobnicate'], /unknown option --frobnicate/],
        [[one], /at least 3 runs, got 1/],
        [[one, '--with', one], /not a spread file/],
      ])) {
        const r = spawnSync(process.execPath, [cli, ...argv, '--out', out], { encoding: 'utf8' });
        assert.equal(r.status, 2);
        assert.match(r.stderr, why);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'a scaling ratio above the budget ratio is suspect and kept out; a generator-bound cell too, unless it wins',
  () => {
    const q = (a, b, limit) => ({
      id: 'pi.cluster.throughput',
      question: 'q',
      workload: 'pi',
      comparison: 'cluster',
      column: 'cluster',
      metric: 'throughput',
      better: 'higher',
      a,
      b,
      limit: limit ? { ratio: limit, why: 'same budget' } : null,
    });
    const cells = [
      cell('pi:cluster', [160, 158, 162, 161, 159]),
      cell('pi:one', [100, 99, 101, 100, 100]),
      cell('pi:bound', [160, 158, 162, 161, 159], { generatorBound: true, ceilingShare: 0.8 }),
      cell('pi:bound-slow', [100, 99, 101, 100, 100], { generatorBound: true, ceilingShare: 0.8 }),
    ];
    const [over] = computeVerdicts([q('pi:cluster', 'pi:one', 1)], cells);
    assert.equal(over.suspect, true);
    assert.match(over.reasons.join(), /above the physical limit of ×1/);
    const [under] = computeVerdicts([q('pi:cluster', 'pi:one', 2)], cells);
    assert.equal(under.suspect, false);
    assert.equal(under.winner, 'cluster');
    // Generator-bound measures a lower bound of the server: a verdict it wins stands, any other is kept out.
    const [boundWins] = computeVerdicts([q('pi:bound', 'pi:one', 2)], cells);
    assert.equal(boundWins.suspect, false);
    assert.equal(boundWins.winner, 'bound');
    const [boundLoses] = computeVerdicts([q('pi:cluster', 'pi:bound-slow', 2)], cells);
    assert.equal(boundLoses.suspect, true);
    assert.match(boundLoses.reasons.join(), /pi:bound-slow is generator-bound/);
    assert.equal(breaksLimit({ ratio: 1.05, ci95: [0.95, 1.15] }, 1), false, 'inside the noise of the limit');
    assert.equal(
      breaksLimit({ ratio: 1.08, ci95: [1.03, 1.13] }, 1),
      false,
      'a few per cent above it: the same CPU spent better, inside the tie band',
    );
    assert.equal(breaksLimit({ ratio: 1.2, ci95: [1.15, 1.25] }, 1), true, 'surely above it by more than the tie band');
    assert.equal(breaksLimit({ ratio: 1.5, ci95: [0.5, 4] }, 1), true, 'far above it even with a wide interval');
  },
);

test('a proxied path faster than direct fails its check and makes verdicts on it suspect', () => {
  const cells = [
    cell('light:app-nginx', [150, 152, 149]),
    cell('light:app', [100, 101, 99]),
    cell('light:other', [100, 100, 100]),
  ];
  const checks = runChecks(
    [
      {
        id: 'proxy.light:app-nginx',
        what: 'proxied vs direct',
        a: 'light:app-nginx',
        b: 'light:app',
        field: 'rps',
        limit: 1,
      },
    ],
    cells,
  );
  assert.equal(checks[0].ok, false);
  const [v] = computeVerdicts(
    [{ id: 'x', metric: 'throughput', better: 'higher', a: 'light:app-nginx', b: 'light:other' }],
    cells,
    { checks },
  );
  assert.equal(v.suspect, true);
  assert.match(v.reasons.join(), /check failed/);
});

test('blocks: the cells of each question measured together, one workload at one budget; unnamed cells together', () => {
  const budgets = [
    { budget: 2, cpuset: 'all' },
    { budget: 1, cpuset: 'sut' },
  ];
  const v = plan({ budget: 1, budgets, processes: 2 }).scenarios.find((s) => s.name === 'verdicts');
  const blocks = blocksOf(v.cells, v.comparisons);
  const blockOf = new Map(blocks.flatMap((b, i) => b.map((c) => [c.id, i])));
  for (const q of v.comparisons) assert.equal(blockOf.get(q.a), blockOf.get(q.b), q.id);
  const key = (c) => `${c.workload}@${c.topology.budgetCpus}`;
  assert.deepEqual(
    blocks.map((b) => new Set(b.map(key)).size),
    blocks.map(() => 1),
    'one workload at one budget a block',
  );
  assert.equal(blocks.length, new Set(v.cells.map(key)).size, 'and every workload at every budget its own');
  assert.deepEqual(
    blocks
      .flat()
      .map((c) => c.id)
      .sort(),
    v.cells.map((c) => c.id).sort(),
    'every cell once',
  );
  assert.equal(key(blocks[0][0]), key(v.cells[0]), 'in the order of their first cell: the multi-core questions first');
  const cells = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  assert.deepEqual(
    blocksOf(cells, [
      { a: 'd', b: 'b' },
      { a: 'e', b: 'd' },
    ]).map((b) => b.map((c) => c.id)),
    [
      ['a', 'c'],
      ['b', 'd', 'e'],
    ],
  );
  assert.deepEqual(
    blocksOf(cells).map((b) => b.length),
    [5],
    'no questions: one block, interleaved as one',
  );
  // Warmed up longest floor first (a .NET deployment's first minute), ties in the block's order.
  const floors = { a: 10, b: 60, c: 0, d: 60, e: 10 };
  assert.deepEqual(
    warmUpOrder(cells, (c) => floors[c.id]).map((c) => c.id),
    ['b', 'd', 'a', 'e', 'c'],
  );
});

test('an app\'s deployments start right before its first warm-up in a block, not with the block', () => {
  const cell = (id, sample) => ({ id, topology: { sample } });
  // The warm-up order of a verdict block: .NET first (its minute), then Express, then node:http.
  const order = [cell('dn1', 'dotnet-api'), cell('dn2', 'dotnet-api'), cell('ex1', 'node-cluster'),
    cell('node1', 'node-replicas'), cell('ex2', 'node-cluster')];
  assert.deepEqual(
    startsBefore(order).map((cells) => cells.map((c) => c.id)),
    [['dn1', 'dn2'], [], ['ex1', 'ex2'], ['node1'], []],
    'Express starts after the .NET warm-ups, node:http after the first Express one',
  );
  assert.deepEqual(startsBefore([]), []);
});

test('a sub-CPU Node deployment warms up under its whole cpuset, its floor by those CPUs; .NET never', () => {
  const node = (processes, budgetCpus) => ({ sample: 'node-cluster', processes, budgetCpus });
  // The experiment's 0.1-CPU container: 10 s of V8 per process per CPU take 100 s under its quota.
  assert.equal(processWarmupFloor(node(1, 0.1)), 100);
  assert.equal(lentCpus(node(1, 0.1), 0.1, 1), 1);
  assert.equal(lentCpus(node(1, 0.1), 1, 1), 1, 'its quota is below the run budget it shares with nginx');
  assert.equal(processWarmupFloor(node(1, 0.1), 1), 10, 'under the lent CPU');
  assert.equal(processWarmupFloor(node(4, 0.4), lentCpus(node(4, 0.4), 0.4, 1)), 40, 'four processes share it');
  assert.equal(lentCpus(node(2, 1), 1, 1), null, 'already under all of its cpuset');
  assert.equal(lentCpus(node(2, 2), 2, 2), null);
  // .NET's floor is wall time per process (dynamic PGO), not CPU time: nothing to gain by lending.
  assert.equal(lentCpus({ sample: 'dotnet-api', processes: 4, budgetCpus: 1 }, 0.25, 1), null);
  const cell = { workload: 'light', topology: node(4, 0.4) };
  assert.equal(warmupFloor(cell, true, 1), 40);
  assert.equal(warmupFloor(cell, false, 1), 0, 'a deployment already warmed pays no runtime floor');
});

test('one block never shares a moved deployment between two placements; budgets still share one', () => {
  const exp = plan({ full: true, budget: 1, processes: 2, scenario: 'exp-cluster-vs-containers' }).scenarios[0];
  const key = familyKeysOf(exp);
  const byId = (id) => exp.cells.find((c) => c.id === `exp-cluster-vs-containers:${id}`);
  // 1 container × 0.1 CPU and 1 container × 0.4 CPU: one family (the same app, knobs but its CPUs),
  // one block (their questions pair them with the same cell): a deployment each.
  assert.equal(familyKey(byId('cpus-0.1-x1')), familyKey(byId('cpus-0.4-1-worker')));
  assert.notEqual(key(byId('cpus-0.1-x1')), key(byId('cpus-0.4-1-worker')));
  const budgets = [
    { budget: 2, cpuset: 'all' },
    { budget: 1, cpuset: 'sut' },
  ];
  const v = plan({ budget: 1, budgets, processes: 2, scenario: 'verdicts' }).scenarios[0];
  const cluster = v.cells.filter((c) => c.workload === 'pi' && c.topology.strategy === 'cluster');
  assert.equal(cluster.length, 2, 'a cluster at each budget');
  assert.equal(familyKeysOf(v)(cluster[0]), familyKeysOf(v)(cluster[1]), 'moved between budgets, warmed once');
});

test('the full run drills every multi-process strategy on both engines, the lone process on its own', () => {
  const p = plan({ full: true, budget: 1, processes: 2, engines: ['processes', 'docker'], scenario: 'drills' });
  const ids = p.scenarios[0].cells.map((c) => c.id);
  const onDocker = (id) => id.split(':')[1] === 'docker';
  const strategies = (engine) =>
    new Set(p.scenarios[0].cells.filter((c) => onDocker(c.id) === (engine === 'docker')).map((c) => c.strategy));
  assert.ok(ids.some((id) => id.startsWith('fault:express-1-nginx')), 'the counter-example runs');
  assert.ok(!ids.some((id) => /^\w+:docker:(express|dotnet)-1-/.test(id)), 'not on Docker too');
  for (const s of ['cluster', 'pm2', 'reuseport', 'replicas'])
    assert.ok(strategies('docker').has(s) && strategies('processes').has(s), s);
  for (const kind of ['fault', 'rollout'])
    assert.ok(ids.includes(`${kind}:docker:dotnet-replicas-2-nginx@1`), `${kind} of .NET replicas on Docker`);
  // Every app the guide may recommend is drilled on Docker, node:http's replicas beside Express's.
  for (const kind of ['fault', 'rollout', 'stop', 'scale-down'])
    assert.ok(ids.includes(`${kind}:docker:node-replicas-2-nginx@1`), `${kind} of node:http replicas on Docker`);
  // And the replicas rolled out on Swarm, on the Docker engine, with no deployment of the plan's: those
  // whose stack fits one node (dotnet-api and node-cluster place one app task per node).
  const swarm = p.scenarios[0].cells.filter((c) => c.orchestrator === 'swarm');
  assert.deepEqual(swarm.map((c) => c.id), ['rollout:swarm:node-replicas-2-nginx@1']);
  assert.ok(swarm.every((c) => c.engine === 'docker' && c.kind === 'rollout' && c.events >= 1));
  assert.deepEqual(ids.slice(-swarm.length), swarm.map((c) => c.id), 'after every Compose drill');
  const processesOnly = plan({ full: true, budget: 1, processes: 2, engines: ['processes'], scenario: 'drills' });
  assert.ok(!processesOnly.scenarios[0].cells.some((c) => c.orchestrator), 'no Swarm drill without Docker');
});

// Each question of the verdicts pairs two cells like for like: one scenario, one budget, the same CPUs,
// through nginx on both sides or on neither; its throughput limit from the processes each side can use.
function assertLikeForLike(v, cells) {
  for (const q of v.comparisons) {
    const [a, b] = [cells.get(q.a), cells.get(q.b)];
    assert.equal(a.scenario, b.scenario, `${q.id}: both sides in one interleaved scenario`);
    assert.equal(a.topology.budgetCpus, b.topology.budgetCpus, `${q.id}: the same budget`);
    assert.equal(a.topology.budgetCpus, q.budget, `${q.id}: the question's budget`);
    assert.equal(a.topology.cpuset, b.topology.cpuset, `${q.id}: on the same CPUs`);
    assert.equal(a.topology.viaNginx, b.topology.viaNginx, `${q.id}: through nginx on both sides or direct on both`);
    assert.equal(a.workload, b.workload);
    assert.ok(a.searchCapacity && b.searchCapacity, `${q.id}: both sides get a capacity search`);
    // Node: one JS thread per process, so B processes on B CPUs can reach ×B of one; .NET uses them all.
    if (q.metric === 'throughput' && a.topology.sample === b.topology.sample) {
      const usable = (t) => (t.runtime === 'node' ? Math.min(q.budget, t.processes) : q.budget);
      assert.equal(q.limit.ratio, usable(a.topology) / usable(b.topology), q.id);
    }
  }
}

// Which strategies are asked where: every one at budget 2, fewer at budget 1 in the default run.
function assertStrategiesAsked(at, cells, full) {
  const workloadsAt2 = ['light', 'pi', 'delay'];
  // The default run asks slow I/O between the core strategies only (not PM2, not reusePort).
  const asked = (column, workload) => full || workload !== 'delay' || !/reuseport|pm2/.test(column);
  for (const workload of workloadsAt2) {
    for (const column of ['cluster', 'replicas', 'reuseport', 'pm2', 'dotnet', 'dotnet-replicas']) {
      assert.equal(Boolean(at(2, column, workload)), asked(column, workload), `budget 2: ${column} on ${workload}`);
      assert.equal(
        Boolean(at(2, column, workload, 'capacity')),
        asked(column, workload),
        `budget 2: ${column}'s capacity on ${workload}`,
      );
    }
    // The strategies against each other, and .NET against each of them: the chart picks between them.
    for (const column of [
      'cluster-vs-replicas',
      'cluster-vs-reuseport',
      'pm2-vs-replicas',
      'dotnet-vs-cluster',
      'dotnet-vs-replicas',
    ])
      assert.equal(Boolean(at(2, column, workload)), asked(column, workload), `budget 2: ${column} on ${workload}`);
  }
  for (const workload of full ? ['light', 'pi', 'delay'] : ['light', 'pi']) {
    assert.ok(at(1, 'dotnet', workload), `budget 1: .NET on ${workload}`);
    const cluster = at(1, 'cluster', workload);
    assert.equal(cells.get(cluster.a).topology.workers, 2, 'on one CPU a cluster still runs 2 workers');
    assert.equal(cells.get(at(1, 'replicas', workload).a).topology.cpusPerInstance, 0.5, '2 replicas × 0.5 CPU');
  }
  assert.equal(Boolean(at(1, 'dotnet', 'delay')), full, 'slow I/O at one CPU in the full run only');
  for (const workload of ['light', 'pi'])
    assert.ok(at(1, 'node', workload), 'one node:http process beside one Express process');
  assert.equal(Boolean(at(1, 'pm2', 'pi')), full, 'PM2 and reusePort at one CPU in the full run only');
}

// The topologies behind the questions: workers, CPUs per instance, process manager, CPU set.
function assertTopologies(at, cells) {
  const cluster2 = cells.get(at(2, 'cluster', 'pi').a).topology;
  assert.equal(cluster2.workers, 2, 'the cluster at budget 2 has 2 workers');
  assert.equal(cluster2.cpuset, 'all');
  assert.equal(cells.get(at(2, 'replicas', 'pi').a).topology.cpusPerInstance, 1, 'B replicas × 1 CPU');
  assert.equal(cells.get(at(2, 'pm2', 'pi').a).topology.env.PROCESS_MANAGER, 'pm2');
  assert.equal(cells.get(at(2, 'reuseport', 'pi').a).topology.env.PROCESS_MANAGER, 'reuseport');
  assert.equal(
    cells.get(at(1, 'dotnet', 'pi').a).topology.cpuset,
    'sut',
    'budget 1 keeps the generator on a CPU of its own',
  );
}

// CPU per request and p99 only at a fixed rate, where both sides get latency windows.
function assertFixedRateQuestions(v, cells, full) {
  for (const q of v.comparisons.filter((x) => x.metric === 'cpu' || x.metric === 'p99')) {
    assert.equal(q.latencyAt, 'fixed rate', `${q.id}: CPU per request and p99 only at a fixed rate`);
    assert.ok(
      cells.get(q.a).latencyRounds >= 2 && cells.get(q.b).latencyRounds >= 2,
      `${q.id}: both sides get latency windows at a fixed rate`,
    );
  }
  assert.deepEqual(
    [...new Set(v.comparisons.filter((x) => x.metric === 'p99').map((x) => x.workload))],
    full ? ['light', 'pi', 'delay', 'db'] : ['light', 'pi', 'delay'],
  );
}

// Scaling efficiency: every strategy at budget 2 against the same app's one process at budget 1.
function assertScaling(v, cells, at) {
  const eff = v.scaling.find((x) => x.cell === at(2, 'cluster', 'pi').a);
  assert.equal(cells.get(eff.base).topology.budgetCpus, 1);
  assert.equal(cells.get(eff.base).topology.strategy, 'one process');
  assert.ok(
    v.scaling.some(
      (x) => x.cell === at(2, 'dotnet-replicas', 'light').a && cells.get(x.base).topology.runtime === 'dotnet',
    ),
  );
}

test('the plan: every strategy at every budget, like for like; B processes (at least 2) at budget B', () => {
  for (const [mode, m] of Object.entries(MODES)) {
    assert.ok(m.windowS >= 1 && m.rounds >= 5 && m.warmupS > 0 && m.stepS >= 5 && m.capacitySteps >= 4, mode);
  }
  assert.ok(
    MODES.full.windowS > MODES.quick.windowS && MODES.full.rounds >= MODES.quick.rounds,
    'the full run measures longer',
  );
  const budgets = [
    { budget: 2, cpuset: 'all' },
    { budget: 1, cpuset: 'sut' },
  ];
  for (const full of [false, true]) {
    const p = plan({ full, budget: 1, budgets, processes: 2 });
    const cells = new Map(p.scenarios.flatMap((s) => s.cells.map((c) => [c.id, c])));
    assert.equal(
      cells.size,
      p.scenarios.reduce((n, s) => n + s.cells.length, 0),
      'cell ids are unique',
    );
    const v = p.scenarios.find((s) => s.name === 'verdicts');
    assertLikeForLike(v, cells);
    const at = (budget, column, workload, metric = 'throughput') =>
      v.comparisons.find(
        (q) => q.budget === budget && q.column === column && q.workload === workload && q.metric === metric,
      );
    assertStrategiesAsked(at, cells, full);
    assertTopologies(at, cells);
    // Multi-core questions first.
    assert.equal(v.cells[0].topology.budgetCpus, 2);
    for (const c of v.cells) assert.ok(c.path.startsWith('/'), `${c.id} has its app's path`);
    assertFixedRateQuestions(v, cells, full);
    assertScaling(v, cells, at);
  }
  // Capacity is in every verdict cell: the longer open-loop search runs only when asked for.
  assert.ok(!plan({ full: true, budget: 1, budgets, processes: 2 }).scenarios.some((s) => s.name === 'openloop'));
  assert.ok(
    plan({ full: true, scenario: 'openloop', budget: 1, budgets, processes: 2 }).scenarios[0].cells.length >= 5,
  );
});

test("CPU per request at a fixed rate: from the paced windows' CPU, not the saturated windows'", () => {
  const withCpu = (id, cpus) => ({
    ...cell(id, [100, 100, 100]),
    rounds: [0, 1, 2].map((i) => ({
      round: i + 1,
      rps: 100,
      cpuPerRequestUs: 10000,
      latencyMs: { p99: 300 },
      paced: { rate: 50, rps: 50, latencyMs: { p99: 2 }, cpuPerRequestUs: cpus[i], errors: 0, held: true, why: null },
    })),
  });
  const q = {
    id: 'light.x.cpu',
    question: 'q',
    workload: 'light',
    comparison: 'x',
    column: 'x',
    metric: 'cpu',
    latencyAt: 'fixed rate',
    better: 'lower',
    a: 'light:lean',
    b: 'light:heavy',
    limit: null,
  };
  const cells = [withCpu('light:lean', [100, 101, 99]), withCpu('light:heavy', [150, 152, 149])];
  const [v] = computeVerdicts([q], cells);
  assert.ok(Math.abs(v.ratio - 0.66) < 0.02, `ratio ${v.ratio}: the fixed-rate CPU (the saturated CPU is equal here)`);
  assert.equal(v.winner, 'lean');
  const [s] = computeVerdicts([{ ...q, latencyAt: undefined }], cells);
  assert.equal(s.label, 'equal', 'without latencyAt: the saturated windows, equal');
  assert.equal(s.winner, null);
});

test('p99 verdicts at a fixed rate: taken from the paced windows, and kept out where the rate was not held', () => {
  const withPaced = (id, p99s, held = true) => ({
    ...cell(id, [100, 100, 100, 100, 100]),
    rounds: [100, 100, 100, 100, 100].map((v, i) => ({
      round: i + 1,
      rps: v,
      latencyMs: { p99: 300 },
      ...(i >= 2
        ? {
            paced: {
              rate: 50,
              rps: held ? 50 : 40,
              latencyMs: { p99: p99s[i - 2] },
              errors: 0,
              held,
              why: held ? null : 'achieved 40 of 50 req/s',
            },
          }
        : {}),
    })),
  });
  const q = {
    id: 'light.x.p99',
    question: 'q',
    workload: 'light',
    comparison: 'x',
    column: 'x',
    metric: 'p99',
    latencyAt: 'fixed rate',
    better: 'lower',
    a: 'light:fast',
    b: 'light:slow',
    limit: null,
  };
  const [v] = computeVerdicts([q], [withPaced('light:fast', [2, 2.1, 1.9]), withPaced('light:slow', [4, 4.1, 3.9])]);
  assert.equal(v.rounds, 3, 'only the rounds with a paced window');
  assert.ok(Math.abs(v.ratio - 0.5) < 0.02, `ratio ${v.ratio}: the paced p99s, not the saturated ones (equal here)`);
  assert.equal(v.winner, 'fast');
  assert.equal(v.latencyAt, 'fixed rate');
  const [missed] = computeVerdicts(
    [q],
    [withPaced('light:fast', [2, 2.1, 1.9], false), withPaced('light:slow', [4, 4.1, 3.9])],
  );
  assert.equal(missed.suspect, true);
  assert.match(missed.reasons.join(), /fixed rate of 50 req\/s was not held in 3 round/);
  const [saturated] = computeVerdicts(
    [{ ...q, latencyAt: undefined }],
    [withPaced('light:fast', [2, 2.1, 1.9]), withPaced('light:slow', [4, 4.1, 3.9])],
  );
  assert.equal(saturated.label, 'equal', 'an older question without latencyAt reads the closed-loop p99');
});

test(
  'the fixed rate: the nominal one, or half the slowest cell rounded down to a 1-2-5 step; in the last rounds',
  () => {
    assert.equal(latencyRate([2651, 4000], 0.5), 1000);
    assert.equal(latencyRate([2651, 4000], 0.5, 500), 500, "the workload's nominal rate where it is lower");
    assert.equal(latencyRate([4100, 9000], 0.5), 2000);
    assert.equal(latencyRate([560, 900], 0.5), 200);
    assert.equal(latencyRate([12000], 0.5), 5000);
    assert.equal(latencyRate([1], 0.5), null);
    assert.deepEqual([...latencyRounds(5, 3)], [3, 4, 5]);
    assert.deepEqual([...latencyRounds(2, 3)], [1, 2]);
    assert.deepEqual([...latencyRounds(5, 0)], []);
    assert.deepEqual(latencySummary([5, 1, 3, 2, 4]), { p50: 3, p90: 5, p99: 5, max: 5 });
    assert.deepEqual(latencySummary([]), { p50: null, p90: null, p99: null, max: null });
  },
);

test('plan filters by scenario and sample, and names what is unknown', () => {
  const p = plan({
    sample: 'node-cluster',
    budget: 1,
    budgets: [
      { budget: 2, cpuset: 'all' },
      { budget: 1, cpuset: 'sut' },
    ],
    processes: 2,
  });
  assert.ok(p.scenarios.every((s) => s.cells.every((c) => c.topology.sample === 'node-cluster')));
  assert.deepEqual(
    [...new Set(p.scenarios[0].comparisons.map((q) => q.comparison))],
    [
      'b2.cluster',
      'b2.reuseport',
      'b2.pm2',
      'b2.replicas',
      'b2.cluster-vs-reuseport',
      'b2.cluster-vs-pm2',
      'b2.cluster-vs-replicas',
      'b2.reuseport-vs-pm2',
      'b2.reuseport-vs-replicas',
      'b2.pm2-vs-replicas',
      'b1.cluster',
      'b1.replicas',
      'b1.cluster-vs-replicas',
    ],
    'only comparisons with both sides left',
  );
  assert.throws(() => plan({ scenario: 'nope', budget: 1, processes: 2 }), /unknown scenario "nope"/);
});

test('isolation: a quarter of the CPUs for the generator, the rest for the topologies, a budget that must fit', () => {
  assert.deepEqual(splitCpus([0, 1]), { generator: [0], sut: [1], shared: false });
  assert.deepEqual(splitCpus([0, 1, 2, 3, 4, 5, 6, 7]), { generator: [0, 1], sut: [2, 3, 4, 5, 6, 7], shared: false });
  assert.equal(splitCpus([0]).shared, true);
  assert.deepEqual(planIsolation({}, [0, 1]), {
    generatorCpus: '0',
    sutCpus: '1',
    generatorThreads: 1,
    budgetCpus: 1,
    budgets: [
      { budget: 1, cpuset: 'sut' },
      { budget: 2, cpuset: 'all' },
    ],
    processes: 2,
    shared: false,
  });
  // Budgets: 1, 2, 4, … and every CPU left after the generator's; on 2 cores the whole machine, shared.
  assert.deepEqual(defaultBudgets([0, 1]), [1, 2]);
  assert.deepEqual(
    defaultBudgets([0, 1, 2, 3, 4, 5, 6, 7]),
    [1, 2, 4, 6],
    "on 8 cores the 6 left after the generator's two",
  );
  assert.deepEqual(defaultBudgets([0, 1, 2, 3]), [1, 2, 3]);
  assert.deepEqual(
    planIsolation({ budgets: [1, 2, 4] }, [0, 1, 2, 3, 4, 5, 6, 7]).budgets.map((b) => b.cpuset),
    ['sut', 'sut', 'sut'],
  );
  assert.throws(
    () => planIsolation({ budgets: [1, 4] }, [0, 1]),
    /^Error: BUDGETS: 4 CPUs is more than this machine has \(2\)$/,
  );
  assert.deepEqual(parseBudgets('2,1,2'), [1, 2]);
  for (const bad of ['0', 'x', '1,,2', '1.5', '-1'])
    assert.throws(() => parseBudgets(bad), /^Error: BUDGETS: '.*' is not a whole number of CPUs ≥ 1/, bad);
  assert.equal(
    planIsolation({}, [0, 1, 2, 3, 4, 5, 6, 7]).processes,
    6,
    'the scaled topologies use one process per CPU of the budget',
  );
  assert.throws(
    () => planIsolation({ budget: 2 }, [0, 1]),
    /a CPU budget of 2 doesn't fit: 1 CPU\(s\) are left after the load generator's 1/,
  );
  const failing = pinGenerator(planIsolation({}, [0, 1]), {
    pin: () => {
      throw Object.assign(new Error('denied'), { code: 'EACCES' });
    },
  });
  assert.equal(failing.record.pinned, false);
  assert.match('reason' in failing.record ? failing.record.reason : '', /cpusets not writable \(EACCES\): unpinned/);
});

test('each sample describes itself to the bench in its compose.lab.yaml (x-bench)', () => {
  for (const sample of ['node-replicas', 'node-cluster', 'dotnet-api']) {
    const s = describeSample(sample);
    assert.ok(s.app && s.runtime && s.framework && s.knobs.cpus, sample);
    for (const w of ['light', 'pi', 'delay'])
      assert.match(workloadPath(sample, w, { samples: 7, ms: 9 }), /^\/[^{}]*$/, `${sample} ${w}`);
  }
  assert.equal(workloadPath('node-replicas', 'db'), null, 'node-replicas has no database');
  assert.throws(() => workloadPath('node-replicas', 'pi'), /needs \{samples\}/);
  assert.throws(() => describeSample('harness/test/fixtures/echo'), /compose.yaml has no x-bench field/);
});

test('quotes: a path into results.json, rendered in its format; a path a full run lacks is a problem', () => {
  const doc = {
    verdicts: [
      {
        id: 'pi.cluster.throughput',
        ratio: 0.93,
        ci95: [0.9, 0.96],
        winner: 'tie',
        measured: true,
        suspect: false,
        a: 'x',
        b: 'y',
        reasons: [],
      },
    ],
    cells: [
      { id: 'pi:x', rps: { median: 1234.5 }, topology: { id: 'x', label: 'X' } },
      { id: 'pi:y', topology: { id: 'y', label: 'Y' } },
    ],
  };
  assert.equal(resolve(doc, 'verdicts[pi.cluster.throughput].ci95.1'), 0.96);
  assert.equal(resolve(doc, 'cells[pi:x].rps.median'), 1234.5);
  assert.equal(resolve(doc, 'cells[nope].rps'), undefined);
  const text =
    'a <!-- q cells[pi:x].rps.median int -->999<!-- /q --> ' +
    'b <!-- q verdicts[pi.cluster.throughput] verdict -->old<!-- /q --> ' +
    'c <!-- q verdicts[pi.cluster.throughput].ci95 ci -->?<!-- /q -->';
  const r = refresh(text, doc);
  assert.deepEqual(r.problems, []);
  assert.equal(
    r.text,
    'a <!-- q cells[pi:x].rps.median int -->1,235<!-- /q --> ' +
      "b <!-- q verdicts[pi.cluster.throughput] verdict -->can't tell: X ÷ Y = ×0.93 (95%: ×0.90–×0.96)<!-- /q --> " +
      'c <!-- q verdicts[pi.cluster.throughput].ci95 ci -->×0.90–×0.96<!-- /q -->',
  );
  const bad = refresh('<!-- q cells[gone].rps.median int -->5<!-- /q -->', { ...doc, mode: 'full' });
  assert.deepEqual(
    bad.problems,
    ['"cells[gone].rps.median" is not in results.json'],
    'a full run asks every question: a missing path is an error',
  );
  const quick = refresh('<!-- q cells[gone].rps.median int -->5<!-- /q -->', { ...doc, mode: 'quick' });
  assert.deepEqual(quick.problems, []);
  assert.match(quick.text, /n\/a \(not measured by this quick run; make bench FULL=1 measures it\)/);
});

test(
  'comparing two runs: consistent unless opposite winners, "wins" against "equal", ' +
    "or a ratio outside the other's widened interval",
  async () => {
    const { compareRuns, inconsistencies, verdictLabel } = await import('../bench/lib/judge/compare-runs.js');
    const v = (id, label, winner, ratio, lo, hi) => ({
      id,
      label,
      winner,
      ratio,
      ci95: [lo, hi],
      better: 'higher',
      suspect: false,
      measured: true,
    });
    const a = {
      verdicts: [
        v('x.t', 'wins', 'p', 1.5, 1.45, 1.55),
        v('y.t', 'equal', null, 1.02, 0.98, 1.06),
        v('z.t', 'cant-tell', null, 1.12, 1.05, 1.19),
      ],
    };
    const same = compareRuns(a, {
      verdicts: [
        v('x.t', 'wins', 'p', 1.52, 1.47, 1.57),
        v('y.t', 'equal', null, 1.0, 0.97, 1.03),
        v('z.t', 'wins', 'p', 1.16, 1.11, 1.21),
      ],
    });
    assert.equal(same.ok, true, 'a win against "can\'t tell" near the line is consistent');
    assert.equal(same.agree, 3);
    assert.match(
      inconsistencies(v('q', 'wins', 'p', 1.2, 1.11, 1.3), v('q', 'wins', 'r', 0.8, 0.7, 0.89)).join(),
      /opposite winners \(p \/ r\)/,
    );
    assert.match(
      inconsistencies(v('q', 'wins', 'p', 1.16, 1.11, 1.21), v('q', 'equal', null, 1.05, 1.0, 1.09)).join(),
      /"wins" against "equal"/,
    );
    assert.deepEqual(
      inconsistencies(v('q', 'equal', null, 1.0, 0.95, 1.05), v('q', 'equal', null, 1.04, 1.0, 1.08)),
      [],
      'each inside the other widened by its width',
    );
    assert.match(
      inconsistencies(v('q', 'equal', null, 1.0, 0.98, 1.02), v('q', 'equal', null, 1.09, 1.08, 1.1)).join(),
      /second ratio outside the first interval/,
    );
    const wide = compareRuns(
      { verdicts: [v('w.t', 'cant-tell', null, 1.4, 0.5, 3)] },
      { verdicts: [v('w.t', 'cant-tell', null, 1.4, 0.5, 3)] },
    );
    assert.equal(wide.ok, false, 'intervals too wide to decide anything do not pass');
    assert.deepEqual([wide.consistent, wide.precise], [true, false], 'consistent, but deciding nothing');
    assert.equal(wide.runs.first.narrowEnough, false);
    // Schema 2 files: a winner or 'tie'; the label comes from the interval by today's rule.
    assert.equal(
      verdictLabel({ winner: 'tie', ratio: 1.02, ci95: [0.95, 1.07], better: 'higher', measured: true }),
      'equal',
    );
    assert.equal(
      verdictLabel({ winner: 'tie', ratio: 1.2, ci95: [0.95, 1.4], better: 'higher', measured: true }),
      'cant-tell',
    );
    assert.equal(verdictLabel({ winner: 'x', ratio: 1.5, ci95: [1.4, 1.6], better: 'higher', measured: true }), 'wins');
  },
);

test(
  'comparing two runs: the host speed the probe read in each, ' +
    'and whether it differs beyond what consecutive runs showed',
  async () => {
    const { compareRuns, hostSpeeds, HOST_SPEED_TOLERANCE } = await import('../bench/lib/judge/compare-runs.js');
    const run = (fastUs) => ({ verdicts: [], ...(fastUs ? { box: { coreSpeed: { fastUs } } } : {}) });
    const dayApart = hostSpeeds(run(92), run(136));
    assert.equal(dayApart.differs, true);
    assert.equal(Math.round(dayApart.ratio * 100), 148);
    assert.equal(hostSpeeds(run(136), run(120)).differs, false, 'within the tolerance');
    assert.equal(hostSpeeds(run(100), run(100 * (1 + HOST_SPEED_TOLERANCE) + 1)).differs, true);
    assert.equal(hostSpeeds(run(100), run(100 / (1 + HOST_SPEED_TOLERANCE) - 1)).differs, true, 'faster counts too');
    assert.deepEqual(
      hostSpeeds(run(null), run(120)),
      { first: null, second: 120, ratio: null, differs: null },
      'a run without the probe says nothing',
    );
    // Informative only: the verdicts decide whether two runs agree.
    assert.equal(compareRuns(run(92), run(136)).host.differs, true);
  },
);

test(
  "compare.js: each run's label (a busy machine says so) first, exit 0 when every verdict agrees, " +
    '1 when one flips, 2 on misuse',
  () => {
    const cli = path.join(import.meta.dirname, '../bench/compare.js');
    const dir = tempRunDir('compare');
    try {
      const v = (winner, ratio, lo, hi) => ({
        id: 'x.t',
        winner,
        ratio,
        ci95: [lo, hi],
        suspect: false,
        measured: true,
      });
      const write = (name, label, verdict) => {
        const f = path.join(dir, name);
        fs.writeFileSync(f, JSON.stringify({ label, verdicts: [verdict] }));
        return f;
      };
      const calm = write('a.json', 'calm run, 0.2% steal', v('p', 1.5, 1.45, 1.55));
      const busy = write('b.json', 'busy run, 9.6% steal (busy)', v('p', 1.52, 1.46, 1.58));
      const flip = write('c.json', 'third', v('q', 0.6, 0.58, 0.62));
      const ok = spawnSync(process.execPath, [cli, calm, busy], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stdout + ok.stderr);
      assert.match(ok.stdout, /^first: calm run, 0\.2% steal\nsecond: busy run, 9\.6% steal \(busy\)\n/);
      assert.match(ok.stdout, /1 of 1 verdicts consistent\n$/);
      const bad = spawnSync(process.execPath, [cli, calm, flip], { encoding: 'utf8' });
      assert.equal(bad.status, 1);
      assert.match(bad.stdout, /FAIL x\.t .*opposite winners \(p \/ q\)/);
      // With the probe in both runs: a line on the host's speed after the labels, the exit code unchanged.
      const probed = (name, fastUs) => {
        const f = path.join(dir, name);
        fs.writeFileSync(
          f,
          JSON.stringify({ label: name, box: { coreSpeed: { fastUs } }, verdicts: [v('p', 1.5, 1.45, 1.55)] }),
        );
        return f;
      };
      const apart = spawnSync(process.execPath, [cli, probed('d.json', 92), probed('e.json', 136)], {
        encoding: 'utf8',
      });
      assert.equal(apart.status, 0, apart.stdout + apart.stderr);
      assert.match(
        apart.stdout,
        /^first: d\.json\nsecond: e\.json\nhost speed: the probe's work took 92 µs \/ 136 µs at full speed — the host ran at another speed \(×1\.48 the time in the second run\)/,
      );
      const together = spawnSync(process.execPath, [cli, probed('f.json', 92), probed('g.json', 95)], {
        encoding: 'utf8',
      });
      assert.match(together.stdout, /host speed: .* 92 µs \/ 95 µs at full speed: the same speed\n/);
      assert.doesNotMatch(ok.stdout, /host speed/, 'no probe, no line');
      const misuse = spawnSync(process.execPath, [cli, calm], { encoding: 'utf8' });
      assert.equal(misuse.status, 2);
      assert.equal(misuse.stderr.trim().split('\n').length, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('latency histograms: a quantile read from 2% buckets is within 2% of the exact one', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const xs = Array.from({ length: 20000 }, () => 0.3 + random() ** 3 * 40);
  const exact = [...xs].sort((a, b) => a - b)[Math.ceil(0.99 * xs.length) - 1];
  const h = histogram(xs);
  assert.ok(h.length < 400, `${h.length} buckets`);
  assert.ok(Math.abs(quantileOf([h], 0.99) / exact - 1) < 0.02, `${quantileOf([h], 0.99)} vs ${exact}`);
  // Pooled: two halves' histograms give the whole's quantile.
  assert.equal(quantileOf([histogram(xs.slice(0, 10000)), histogram(xs.slice(10000))], 0.99), quantileOf([h], 0.99));
  assert.equal(quantileOf([], 0.99), null);
});

test(
  'p99 at a fixed rate, the p99 of a typical second: a 2× slower side wins, one stalled slice does not decide, ' +
    'and the interval is reproducible',
  () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const slice = (scale, stallMs = 0) =>
      histogram(
        Array.from({ length: 1000 }, (_, i) => (i < 50 && stallMs ? stallMs : scale * (1 + 2 * random() ** 4))),
      );
    const latencyCell = (id, slicesOfRound) => ({
      ...cell(id, [100, 100, 100, 100, 100]),
      rounds: [1, 2, 3, 4, 5].map((round) => ({
        round,
        rps: 100,
        latencyMs: { p99: 300 },
        paced: {
          rate: 1000,
          rps: 1000,
          latencyMs: { p99: 1 },
          errors: 0,
          held: true,
          why: null,
          sliceHistograms: slicesOfRound(round),
        },
      })),
    });
    const five =
      (scale, stallAt = null) =>
      (round) =>
        [0, 1, 2, 3, 4].map((i) => slice(scale, round === stallAt && i === 2 ? 60 : 0));
    const q = {
      id: 'light.x.p99',
      question: 'q',
      workload: 'light',
      comparison: 'x',
      column: 'x',
      metric: 'p99',
      latencyAt: 'fixed rate',
      better: 'lower',
      a: 'light:a',
      b: 'light:b',
      limit: null,
    };
    const [slower] = computeVerdicts([q], [latencyCell('light:a', five(2)), latencyCell('light:b', five(1))]);
    assert.equal(slower.winner, 'b');
    assert.ok(Math.abs(slower.ratio - 2) < 0.2, `ratio ${slower.ratio}`);
    assert.equal(slower.slices, 25);
    assert.equal(slower.rounds, 5);
    // One slice of 25 stalled 60 ms: not the typical second.
    const [stalled] = computeVerdicts([q], [latencyCell('light:a', five(1, 3)), latencyCell('light:b', five(1))]);
    assert.equal(stalled.winner, null, `ratio ${stalled.ratio} (${stalled.ci95})`);
    assert.ok(stalled.ratio < 1.1, `ratio ${stalled.ratio}`);
    // Seeded resampling: the same cells give the same interval (`--from` recomputes it).
    const cells = [latencyCell('light:a', five(1.05)), latencyCell('light:b', five(1))];
    assert.deepEqual(computeVerdicts([q], cells)[0].ci95, computeVerdicts([q], cells)[0].ci95);
    const { ci95 } = blockBootstrapRatio(
      [[[1, 1]], [[2, 1]], [[3, 1]], [[4, 1]]],
      [[[1, 1]], [[2, 1]], [[3, 1]], [[4, 1]]],
      (hs) => quantileOf(hs, 0.5),
    );
    assert.ok(ci95[0] <= 1 && ci95[1] >= 1, `pairs kept together: ${ci95}`);
  },
);

test(
  'a window taken in slices adds up: requests, CPU and failures summed, req/s and CPU per request over the whole',
  () => {
    const w = (requests, durationS, cpuMs, memoryMiB, p99, max) => ({
      rps: requests / durationS,
      requests,
      durationS,
      latencyMs: { p50: 1, p90: 2, p99, max },
      errors: 1,
      non2xx: 1,
      socketErrors: 0,
      cpuMs,
      cpuPerRequestUs: (cpuMs * 1000) / requests,
      memoryMiB,
      memoryMaxMiB: memoryMiB + 1,
      pssMiB: 9,
      rssMiB: 10,
      processes: 3,
      throttling: { app: { periods: 10, throttled: 1, throttledMs: 2 } },
      appThreads: 7,
      contextSwitches: { voluntary: 5, involuntary: 6 },
    });
    const c = combineWindows([w(1000, 1, 800, 50, 10, 20), w(3000, 1, 1000, 52, 4, 90), w(2000, 1, 900, 54, 6, 30)]);
    assert.equal(c.requests, 6000);
    assert.equal(c.rps, 2000, "over the whole: 6,000 requests in 3 s, not the mean of the slices' rates");
    assert.equal(c.cpuMs, 2700);
    assert.equal(c.cpuPerRequestUs, 450);
    assert.equal(c.errors, 3);
    assert.equal(c.memoryMiB, 52);
    assert.equal(c.memoryMaxMiB, 55);
    assert.equal(c.latencyMs.p99, 6, "the median slice's");
    assert.equal(c.latencyMs.max, 90);
    assert.deepEqual(c.throttling.app, { periods: 30, throttled: 3, throttledMs: 6 });
    assert.deepEqual(c.contextSwitches, { voluntary: 15, involuntary: 18 });
    assert.equal(
      combineWindows([{ ...w(10, 1, 1, 1, 1, 1), cpuMs: null }]).cpuPerRequestUs,
      null,
      'no CPU accounting: no figure',
    );
  },
);

test(
  "CPU per request at a fixed rate over paired slices: each side's CPU by its requests, a steady 20% gap decided",
  () => {
    const slices = (us) => [0, 1, 2, 3, 4].map((i) => [Math.round(us * 1000 * (1 + 0.05 * Math.sin(i))), 1000]);
    const withSlices = (id, us) => ({
      ...cell(id, [100, 100, 100]),
      rounds: [1, 2, 3].map((round) => ({
        round,
        rps: 100,
        cpuPerRequestUs: 50,
        latencyMs: { p99: 3 },
        paced: {
          rate: 1000,
          rps: 1000,
          latencyMs: { p99: 2 },
          cpuPerRequestUs: us,
          sliceCpu: slices(us),
          errors: 0,
          held: true,
          why: null,
        },
      })),
    });
    const q = {
      id: 'light.x.cpu',
      question: 'q',
      workload: 'light',
      comparison: 'x',
      column: 'x',
      metric: 'cpu',
      latencyAt: 'fixed rate',
      better: 'lower',
      a: 'light:a',
      b: 'light:b',
      limit: null,
    };
    const [v] = computeVerdicts([q], [withSlices('light:a', 480), withSlices('light:b', 400)]);
    assert.equal(v.slices, 15);
    assert.ok(Math.abs(v.ratio - 1.2) < 0.01, `ratio ${v.ratio}`);
    assert.equal(v.winner, 'b');
  },
);

test(
  'a fixed rate is held when the slices ran over by one typical latency, ' +
    'not when a backlog built up or requests failed',
  () => {
    // Three 1 s slices at 1,000 req/s of a 50 ms wait: each slice ends ~60 ms after its schedule
    // (943 req/s over the elapsed time).
    const slice = () => histogram(Array.from({ length: 1000 }, (_, i) => 49 + (i % 5)));
    const onTime = {
      rate: 1000,
      requests: 3000,
      rps: 3000 / 3.18,
      errors: 0,
      slices: 3,
      sliceS: 1,
      sliceHistograms: [slice(), slice(), slice()],
      latencyMs: { p50: 51 },
    };
    const h = heldOf(onTime);
    assert.equal(h.held, true, h.why);
    assert.ok(h.achieved > 990 && h.achieved <= 1000, `achieved ${h.achieved}`);
    // The same answers, but the slices ran 400 ms over their schedule in all: a queue, not the wait.
    const behind = heldOf({ ...onTime, rps: 3000 / 3.55 });
    assert.equal(behind.held, false);
    assert.match(behind.why, /achieved \d+(\.\d)? of 1000 req\/s/);
    const failing = heldOf({ ...onTime, errors: 2 });
    assert.equal(failing.held, false);
    assert.match(failing.why, /2 failed/);
    // The generator sent late (judge/send-lag-bound.js's bound is 50 ms at p99): it measured itself, not the cell.
    assert.equal(heldOf({ ...onTime, sendLagMs: { p50: 0.2, p99: 49, max: 80 } }).held, true);
    const late = heldOf({ ...onTime, sendLagMs: { p50: 0.3, p99: 120.4, max: 900 } });
    assert.equal(late.held, false);
    assert.match(late.why, /^the generator sent late: send lag p99 120 ms, max 900 ms, over the 50 ms bound$/);
    // A record without the counts (an older results file) keeps what it was stored with.
    assert.equal(heldOf({ rate: 50, rps: 40, held: false, why: 'achieved 40 of 50 req/s' }).held, false);
    assert.equal(heldOf({ rate: 50, rps: 50, held: true }).held, true);
  },
);

test('a capacity search with a step its generator sent late in every try has no capacity, and says why', () => {
  const base = { reference: 1000, range: [0.5, 1.1], p99TargetMs: 50, sliceS: 1 };
  const steps = [
    { fraction: 0.8, rate: 800, held: true },
    { fraction: 0.95, rate: 950, held: false },
  ];
  const measured = capacityOf({ ...base, steps });
  assert.equal(measured.fraction, 0.8);
  assert.equal(measured.late, undefined);
  const late = 'the generator sent late: send lag p99 75 ms, max 300 ms, over the 50 ms bound';
  const withLate = capacityOf({ ...base, steps: [...steps, { fraction: 0.875, rate: 875, held: false, late }] });
  assert.equal(withLate.fraction, null);
  assert.equal(withLate.rps, null);
  assert.equal(withLate.late, `at 875 req/s ${late}`);
});

test(
  'the core-speed probe: the share of slow readings and per minute, kept in the box, ' +
    'and which saturated slices ran slowed',
  () => {
    // 320 readings at 300 µs then 80 at 600 µs (half speed), one every 200 ms from t0: 300 a minute.
    const t0 = 1_700_000_000_000;
    const readings = [...Array(320).fill(300), ...Array(80).fill(600)].map((us, i) => [t0 + i * 200, us]);
    const s = summariseCoreSpeed(readings, { cpus: '1', withReadings: true });
    assert.equal(s.probes, 400);
    assert.equal(s.fastUs, 300);
    assert.equal(s.slowShare, 0.2);
    assert.deepEqual(s.slowShareByMinute, [0, round2(80 / 100)]);
    assert.deepEqual(s.readings[399], [399 * 200, 600]);
    assert.equal(summariseCoreSpeed([]), null);
    const snap = { loadAvg: [0.1, 0.1, 0.1], cpu: { total: 1000, idle: 900, steal: 0 }, busyShare: 0.1 };
    const box = boxReport(snap, { ...snap, cpu: { total: 2000, idle: 1800, steal: 0 } }, 2, s);
    assert.equal(box.coreSpeed.slowShare, 0.2);
    // Two slices of one cell in the fast minute (7,000 and 9,000 req/s), two in the slowed stretch (4,000
    // and 5,000): the cell's (lower) median is 5,000.
    const at = (ms) => t0 + ms;
    const doc = {
      box,
      cells: [
        {
          workload: 'light',
          rounds: [
            { sliceAt: [at(10_000), at(20_000)], sliceRps: [7000, 9000], durationS: 2, slices: 2 },
            { sliceAt: [at(66_000), at(70_000)], sliceRps: [4000, 5000], durationS: 2, slices: 2 },
          ],
        },
      ],
    };
    assert.deepEqual(slicesBySpeed(doc), [
      { workload: 'light', fast: { slices: 2, rps: 1.6 }, slow: { slices: 2, rps: 0.9 } },
    ]);
    assert.deepEqual(slicesBySpeed({ box: { loadBefore: [] }, cells: doc.cells }), [], 'no probe, nothing to say');
  },
);

test('the core-speed probe runs pinned where it is told and is gone when stopped', { timeout: 20_000 }, async () => {
  const probe = startCoreProbe('0', { periodMs: 50 });
  assert.ok(probe, 'taskset is installed (make setup)');
  let affinity;
  try {
    // Until it has read 5 times: on a loaded machine Node's start alone can take over a second.
    await waitFor(() => probe.readings.length >= 5, { what: '5 readings', timeoutMs: 15_000 });
    affinity = fs.readFileSync(`/proc/${probe.pid}/status`, 'utf8').match(/Cpus_allowed_list:\s*(\S+)/)[1];
  } finally {
    await probe.stop();
  }
  assert.equal(affinity, '0');
  const { readings } = probe;
  assert.ok(readings.length >= 5, `${readings.length} readings`);
  assert.ok(readings.every(([t, us]) => t > 0 && us > 0));
  assert.throws(() => process.kill(probe.pid, 0), /ESRCH/);
});

function round2(x) {
  return Math.round(x * 100) / 100;
}

test(
  'at a budget the generator shares: its share of the machine beside the verdict, flagged above the limit',
  async () => {
    const { GENERATOR_SHARE_LIMIT } = await import('../bench/lib/judge/bottleneck.js');
    const shared = (id, share) =>
      cell(id, [100, 101, 99, 100, 100], {
        generatorShare: share,
        topology: { id: id.split(':')[1], cpuset: 'all', budgetCpus: 2 },
      });
    const q = {
      id: 'light.b2.x.throughput',
      metric: 'throughput',
      better: 'higher',
      budget: 2,
      a: 'light:a',
      b: 'light:b',
    };
    const [bound] = computeVerdicts([q], [shared('light:a', 0.22), shared('light:b', 0.18)]);
    assert.deepEqual(bound.generator, { share: 0.22, shared: true, bound: true, limit: GENERATOR_SHARE_LIMIT });
    assert.equal(bound.budget, 2);
    const [clean] = computeVerdicts([q], [shared('light:a', 0.04), shared('light:b', 0.05)]);
    assert.equal(clean.generator.bound, false);
    const own = (id) =>
      cell(id, [100, 100, 100], {
        generatorShare: 0.3,
        topology: { id: id.split(':')[1], cpuset: 'sut', budgetCpus: 1 },
      });
    const [apart] = computeVerdicts([{ ...q, budget: 1 }], [own('light:a'), own('light:b')]);
    assert.deepEqual(
      apart.generator,
      { share: 0.3, shared: false, bound: false, limit: GENERATOR_SHARE_LIMIT },
      'a generator on a CPU of its own is recorded, never bound',
    );
    const { generatorCpuMs, shareOfMachine } = await import('../bench/lib/tools/generator-cpu.js');
    const before = generatorCpuMs();
    let x = 0;
    for (let i = 0; i < 3e7; i += 1) x += i % 7;
    assert.ok(generatorCpuMs() - before > 1 && x > 0, "this process's own CPU time counts");
    assert.equal(shareOfMachine(500, 1000, 2), 0.25);
    assert.equal(shareOfMachine(500, 0, 2), null);
  },
);

test("a question whose between-run spread was never measured keeps its rounds' interval and says so", () => {
  const cells = [cell('light:a', [120, 121, 119, 120, 120]), cell('light:b', [100, 100, 100, 100, 100])];
  const floors = { 'light.cluster.throughput': 0.2, 'pi.cluster.throughput': 0.1, 'light.cluster.memory': 0.5 };
  const [v] = computeVerdicts(
    [{ id: 'light.b2.pm2.throughput', metric: 'throughput', better: 'higher', a: 'light:a', b: 'light:b' }],
    cells,
    { floors },
  );
  assert.equal(v.floorKnown, false);
  assert.equal(v.betweenRuns, undefined, 'no floor is claimed');
  assert.ok(v.ci95[0] > 1.15, `the rounds' own interval: ${v.ci95}`);
  const [earlier] = computeVerdicts(
    [
      {
        id: 'light.b1.cluster-control.throughput',
        floorId: 'light.cluster.throughput',
        metric: 'throughput',
        better: 'higher',
        a: 'light:a',
        b: 'light:b',
      },
    ],
    cells,
    { floors },
  );
  assert.equal(earlier.floorKnown, true, 'the control keeps the spread measured for it before budgets were swept');
  assert.equal(earlier.betweenRuns, 0.2);
  const [own] = computeVerdicts(
    [
      {
        id: 'light.b1.cluster-control.throughput',
        floorId: 'light.cluster.throughput',
        metric: 'throughput',
        better: 'higher',
        a: 'light:a',
        b: 'light:b',
      },
    ],
    cells,
    { floors: { ...floors, 'light.b1.cluster-control.throughput': 0.3 } },
  );
  assert.equal(own.betweenRuns, 0.3, 'a spread measured under its own id comes before the earlier one');
});

test(
  'scaling efficiency: throughput at B over B × one process at budget 1; ' +
    'beyond ×1 by more than the noise is suspect',
  async () => {
    const { computeScaling } = await import('../bench/lib/judge/scaling-efficiency.js');
    const cells = [
      cell('pi:two', [180, 182, 178, 181, 179]),
      cell('pi:one', [100, 100, 101, 99, 100]),
      cell('pi:magic', [300, 302, 298, 301, 299]),
    ];
    const def = (c) => ({ id: `pi.${c}.scaling`, workload: 'pi', cell: `pi:${c}`, base: 'pi:one', budget: 2 });
    const [two, magic] = computeScaling([def('two'), def('magic')], cells);
    assert.ok(Math.abs(two.efficiency - 0.9) < 0.01, `two processes at ×1.8: 90% (${two.efficiency})`);
    assert.equal(two.suspect, false);
    assert.equal(magic.suspect, true);
    assert.match(magic.why, /beyond the physical limit of ×2/);
    const [gone] = computeScaling([def('two')], [cells[0]]);
    assert.equal(gone.measured, false);
  },
);

test(
  'judge(): a live run and --from judge a results document the same way, from its own question definitions',
  async () => {
    const { judge } = await import('../bench/lib/judge/index.js');
    const q = {
      id: 'pi.b2.cluster.throughput',
      question: 'q',
      workload: 'pi',
      comparison: 'b2.cluster',
      strategy: 'cluster',
      budget: 2,
      metric: 'throughput',
      better: 'higher',
      a: 'pi:two',
      b: 'pi:one',
      limit: { ratio: 2, why: 'x' },
    };
    const doc = {
      schema: 3,
      protocol: {},
      isolation: { pinned: true },
      cells: [cell('pi:two', [180, 182, 178, 181, 179]), cell('pi:one', [100, 100, 101, 99, 100])],
      questions: [q],
      checks: [],
      scaling: [{ id: 's', workload: 'pi', cell: 'pi:two', base: 'pi:one', budget: 2 }],
    };
    const once = judge(doc);
    const again = judge(JSON.parse(JSON.stringify(once)));
    assert.deepEqual(again.verdicts, once.verdicts);
    assert.deepEqual(again.scaling, once.scaling);
    assert.equal(once.verdicts[0].label, 'wins');
    assert.equal(once.verdicts[0].winner, 'two');
    // A schema-2 file: its questions from its verdicts.
    const old = judge({
      schema: 2,
      protocol: {},
      isolation: { pinned: true },
      cells: doc.cells,
      verdicts: [{ ...q, cells: ['pi:two', 'pi:one'], a: 'two', b: 'one', winner: 'tie' }],
    });
    assert.equal(old.schema, 4);
    assert.equal(old.verdicts[0].label, 'wins');
  },
);

test(
  'judge(): a strategy is listed as skipped only where it could not start, not where a database was missing',
  async () => {
    const { judge } = await import('../bench/lib/judge/index.js');
    const skipped = (id, strategy, error) => ({ id, status: 'skipped', error, topology: { id, strategy }, rounds: [] });
    const doc = {
      schema: 3,
      protocol: {},
      isolation: { pinned: true },
      questions: [],
      checks: [],
      scaling: [],
      cells: [
        skipped('db:pm2', 'pm2', 'no database here: mongod not found'),
        skipped(
          'light:rp',
          'reuseport',
          'reuseport skipped: reusePort is not available on this platform (exited with code 2)',
        ),
        skipped(
          'pi:rp',
          'reuseport',
          'reuseport skipped: reusePort is not available on this platform (exited with code 2)',
        ),
      ],
    };
    assert.deepEqual(judge(doc).skipped, [
      {
        strategy: 'reuseport',
        why: 'reuseport skipped: reusePort is not available on this platform (exited with code 2)',
      },
    ]);
  },
);
