// Write accounting from synthetic records: which POSTs the store kept, lost, kept twice, or kept
// although the client saw a failure; and the drill's checks of an app's x-bench.writes, its read
// back through runner.exec (here a recording stand-in: the real store is read in
// drills-dotnet.test.js and docker/drills.test.js) and the cells of each strategy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  accountWrites,
  checkWrites,
  planWrites,
  readBack,
  newPrefix,
  writesOn,
} from '../bench/lib/drills/writes.js';
import { judgeDrill } from '../bench/lib/report/drill-verdict.js';
import { drillCells, whyNotDrillable } from '../bench/lib/drills/cells.js';
import { describeSample } from '../bench/lib/topologies/app-descriptions.js';
import { postId } from '../bench/lib/drills/load-schedule.js';
import { keptUnlessLate } from '../bench/lib/drills/index.js';
import { outageBetween, failuresBetween } from '../bench/lib/drills/under-load.js';
import { asRunner } from './helpers.js';

const post = (n, status, error) => ({
  method: 'POST',
  id: postId('p-', n),
  at: n * 10,
  latencyMs: 5,
  status,
  error,
  retried: false,
});
const get = (n, status = 200) => ({ method: 'GET', at: n * 10, latencyMs: 5, status, retried: false });

test('acknowledged and stored, lost, duplicated, ambiguous and failed-not-stored are told apart', () => {
  const records = [
    post(1, 201),
    post(2, 201),
    post(3, 201),
    post(4, 201), // 3 is lost, 4 stored twice
    post(5, 502),
    post(6, undefined, 'ECONNRESET'), // 5 stored anyway (ambiguous), 6 not
    get(7),
    get(8, 502),
  ];
  const stored = ['p-1', 'p-2', 'p-4', 'p-4', 'p-5', 'p-99'];
  const w = accountWrites(records, stored);
  assert.deepEqual(
    { ...w },
    {
      sent: 6,
      acknowledged: 4,
      stored: 3,
      lost: 1,
      duplicated: 1,
      ambiguous: 1,
      failedNotStored: 1,
      unexpected: 1,
      lostIds: ['p-3'],
      duplicatedIds: ['p-4'],
      ambiguousIds: ['p-5'],
    },
  );
  // The pass line (report/drill-verdict.js) on these counts: nothing acknowledged lost, nothing stored twice.
  const writesOf = (writes) =>
    judgeDrill({ kind: 'rollout', drill: { get: { failed: 0 }, post: { failed: 0 }, writes } }).writes;
  assert.equal(writesOf({ counted: true, ...w }), 'lost');
  assert.equal(
    writesOf({ counted: true, ...accountWrites([post(1, 201), post(2, 500)], ['p-1']) }),
    'kept',
    'a failed POST not stored breaks nothing',
  );
  assert.equal(writesOf({ counted: false, why: 'no store' }), 'not counted', 'not counted is never a pass');
});

test('nothing sent, nothing stored: all zero', () => {
  assert.deepEqual(accountWrites([get(1)], []), {
    sent: 0,
    acknowledged: 0,
    stored: 0,
    lost: 0,
    duplicated: 0,
    ambiguous: 0,
    failedNotStored: 0,
    unexpected: 0,
    lostIds: [],
    duplicatedIds: [],
    ambiguousIds: [],
  });
});

test('how long the clients saw failures, and how many, in a window', () => {
  const records = [get(1), get(2, 502), post(3, undefined, 'ECONNREFUSED'), get(4), get(30, 503)];
  // Failed: 2 (sent 20, answered 25), 3 (sent 30, answered 35); 30 (sent 300) is in another window.
  assert.equal(outageBetween(records, 0, 100), 15);
  assert.deepEqual(failuresBetween(records, 0, 100), { get: 1, post: 1 });
  assert.equal(outageBetween(records, 100, Infinity), 5);
  assert.equal(outageBetween([get(1), get(2)], 0, Infinity), 0);
});

test('a prefix is new each time and safe in a body, a URL and a query', () => {
  const a = newPrefix('crash replicas!');
  assert.match(a, /^crash-replicas-[a-z0-9]+-[a-z0-9]{4}-$/);
  assert.notEqual(newPrefix(), newPrefix());
});

const WRITES = {
  post: '/products',
  body: { name: 'drill {id}', requestId: '{id}' },
  service: 'db',
  list: ['list', '{port}', '{prefix}'],
};

test('x-bench.writes that the drill cannot use: one line each', () => {
  checkWrites(null);
  checkWrites(WRITES);
  /** @type {[any, RegExp][]} */
  const bad = [
    [[], /must be a mapping/],
    [{ ...WRITES, post: 'products' }, /writes\.post must be a path such as "\/items" \(got "products"\)/],
    [{ ...WRITES, body: { name: 'x' } }, /writes\.body must carry the write's id as "\{id\}"/],
    [{ ...WRITES, service: '' }, /writes\.service must name the service/],
    [{ ...WRITES, list: 'psql' }, /writes\.list must be a command/],
    [{ ...WRITES, list: ['psql', 'everything'] }, /writes\.list must name the ids it prints by "\{prefix\}"/],
  ];
  for (const [w, re] of bad)
    assert.throws(
      () => checkWrites(w),
      (/** @type {any} */ err) => re.test(err.message) && !err.message.includes('\n'),
      JSON.stringify(w),
    );
});

// ps rows as a runner gives them; exec as the test sets it.
/** @param {{ rows: any[], exec?: any, engine?: string, skipped?: string }} o */
const runnerWith = ({ rows, exec, engine = 'processes', skipped }) => asRunner({
  engine,
  ps: async () => rows,
  readState: async () => ({ services: { db: skipped ? { skipped } : { instances: [] } } }),
  ...(exec ? { exec } : {}),
});
const DB_UP = [
  { service: 'db', index: 1, status: 'running' },
  { service: 'app', index: 1, status: 'running' },
];

test('whether a drill counts its writes: no store, a store that does not run here, one that does', async () => {
  const none = await planWrites({
    runner: runnerWith({ rows: DB_UP }),
    runDir: 'r',
    app: { writes: null },
    name: 'node-replicas',
  });
  assert.deepEqual(none, {
    counted: false,
    why: 'node-replicas has no store the drill can count (x-bench.writes: null)',
  });
  const down = await planWrites({
    runner: runnerWith({ rows: DB_UP.slice(1), skipped: 'mongod not found' }),
    runDir: 'r',
    app: { writes: WRITES },
    name: 'node-cluster',
  });
  assert.deepEqual(down, {
    counted: false,
    why: "node-cluster's store (service db) does not run here (mongod not found), so its writes are not counted",
  });
  const up = await planWrites({
    runner: runnerWith({ rows: DB_UP }),
    runDir: 'r',
    app: { writes: WRITES },
    name: 'dotnet-api',
  });
  assert.equal(up.counted, true);
  assert.deepEqual(up.post, {
    path: '/products',
    body: '{"name":"drill {id}","requestId":"{id}"}',
    contentType: 'application/json',
  });
  // On Docker the app may keep its writes in another service (dotnet-api: postgres, not the stand-in).
  assert.equal(writesOn({ writes: WRITES, docker: { writes: { service: 'postgres' } } }, 'docker').service, 'postgres');
  assert.equal(writesOn({ writes: WRITES, docker: { writes: { service: 'postgres' } } }, 'processes').service, 'db');
  // Compose's `$$` is one `$` in the command the store runs.
  assert.deepEqual(
    writesOn({ writes: { ...WRITES, list: ['sh', '-c', 'psql -p "$$1" -c "$$(cat f)"', '{prefix}'] } }, 'processes')
      .list,
    ['sh', '-c', 'psql -p "$1" -c "$(cat f)"', '{prefix}'],
  );
});

test('reading the store back: the ids it prints, or one line naming the store', async () => {
  const calls = [];
  const exec = async (o) => {
    calls.push(o);
    return { code: 0, stdout: 'p-1\np-2\n\np-2\n', stderr: '' };
  };
  assert.deepEqual(
    await readBack({ runner: runnerWith({ rows: DB_UP, exec }), runDir: 'r', writes: WRITES, prefix: 'p-' }),
    ['p-1', 'p-2', 'p-2'],
  );
  assert.deepEqual(calls, [{ runDir: 'r', service: 'db', argv: ['list', '{port}', 'p-'], timeoutMs: 60_000 }]);
  const failing = async () => ({
    code: 2,
    stdout: '',
    stderr: 'psql: error: connection refused\n\tIs the server running?\n',
  });
  await assert.rejects(
    readBack({ runner: runnerWith({ rows: DB_UP, exec: failing }), runDir: 'r', writes: WRITES, prefix: 'p-' }),
    {
      message: "the drill's writes could not be read back from the store (service db): psql: error: connection refused",
    },
  );
  const throwing = async () => {
    throw new Error('db 1 is not running');
  };
  await assert.rejects(
    readBack({ runner: runnerWith({ rows: DB_UP, exec: throwing }), runDir: 'r', writes: WRITES, prefix: 'p-' }),
    { message: "the drill's writes could not be read back from the store (service db): db 1 is not running" },
  );
  await assert.rejects(
    readBack({ runner: runnerWith({ rows: DB_UP }), runDir: 'r', writes: WRITES, prefix: 'p-' }),
    /\(service db\): the processes runner has no exec\(\)$/,
  );
  await assert.rejects(
    readBack({ runner: runnerWith({ rows: DB_UP, exec }), runDir: 'r', writes: WRITES, prefix: "p'; drop" }),
    /prefix is made of a-z, 0-9 and -/,
  );
});

// The samples' own descriptions; the writes as the schema has them (the samples' own are read in
// drills-dotnet.test.js).
const DOTNET = { ...describeSample('dotnet-api'), writes: WRITES };
const EXPRESS = describeSample('node-cluster');

test('every strategy gets a crash and a rollout drill; replicas a stop and a scale-down too', () => {
  const kinds = (cells) => cells.map((c) => [c.kind, c.how ?? c.roll ?? c.events]);
  assert.deepEqual(kinds(drillCells(DOTNET, 'one-process', 1, 1)), [
    ['fault', 'instance'],
    ['rollout', 'restart'],
  ]);
  assert.deepEqual(kinds(drillCells(DOTNET, 'replicas', 2, 1, { events: 3 })), [
    ['fault', 'instance'],
    ['rollout', 'reload'],
    ['stop', 3],
    ['scale-down', 3],
  ]);
  for (const s of ['cluster', 'pm2', 'reuseport'])
    assert.deepEqual(
      kinds(drillCells(EXPRESS, s, 2, 2)),
      [
        ['fault', 'worker'],
        ['rollout', 'reload'],
      ],
      s,
    );
  const [fault] = drillCells(DOTNET, 'one process', 1, 0.5, { kills: 3, rate: 50 });
  const { topology, ...rest } = fault;
  assert.deepEqual(rest, {
    id: 'fault:dotnet-1-nginx@0.5',
    kind: 'fault',
    scenario: 'drills',
    app: 'dotnet-api',
    strategy: 'one-process',
    processes: 1,
    budget: 0.5,
    workload: 'light',
    path: '/api',
    connections: null,
    needsDb: false,
    wantsDb: true,
    rate: 50,
    postShare: 0.2,
    mix: {
      get: '/api',
      post: { path: '/echo', body: '{"drill":true}', contentType: 'application/json' },
      postShare: 0.2,
    },
    how: 'instance',
    kills: 3,
  });
  assert.deepEqual(
    [topology.sample, topology.strategy, topology.processes, topology.viaNginx, topology.budgetCpus],
    ['dotnet-api', 'one process', 1, true, 0.5],
  );
  const [replicas] = drillCells(EXPRESS, 'replicas', 2, 1);
  assert.deepEqual(
    [replicas.topology.instances, replicas.topology.env.CLUSTERING_ENABLED, replicas.needsDb, replicas.wantsDb],
    [2, 'false', false, Boolean(EXPRESS.writes)],
  );
  assert.equal(whyNotDrillable(DOTNET, 'pm2'), '.NET lists x-bench.strategies without pm2');
  assert.equal(
    whyNotDrillable({ ...EXPRESS, processManagers: ['cluster'] }, 'reuseport'),
    'Express does not opt in to reusePort (x-bench.knobs.process_manager with ' +
      "'reuseport' in process_managers: the app must listen with { reusePort: true })",
  );
});

test('drill cells refuse what they cannot drill, in one line', () => {
  /** @type {[any[], RegExp][]} */
  const bad = [
    [
      [DOTNET, 'blue-green', 2, 1],
      /^unknown strategy 'blue-green' \(one of: one-process, cluster, reuseport, pm2, replicas\)$/,
    ],
    [[DOTNET, 'cluster', 2, 1], /^no cluster drills: \.NET lists x-bench\.strategies without cluster$/],
    [[DOTNET, 'replicas', 1, 1], /^replicas with 1 process is one-process: give 2 or more$/],
    [[DOTNET, 'one-process', 2, 1], /^one-process runs 1 process \(got 2\)$/],
    [[DOTNET, 'replicas', 2.5, 1], /^processes must be a whole number of at least 1 \(got 2\.5\)$/],
    [[DOTNET, 'replicas', 2, 0], /^budget must be a positive number of CPUs \(got 0\)$/],
    [[DOTNET, 'replicas', 2, '1'], /^budget must be a positive number of CPUs \(got 1\)$/],
    [[DOTNET, 'replicas', 2, 1, { kills: 0 }], /^kills must be a whole number of at least 1 \(got 0\)$/],
    [[DOTNET, 'replicas', 2, 1, { rate: -5 }], /^rate must be a positive number of requests per second \(got -5\)$/],
    [[DOTNET, 'replicas', 2, 1, { postShare: 1.5 }], /^postShare must be between 0 and 1 \(got 1\.5\)$/],
    [
      [{ ...DOTNET, writes: { ...WRITES, list: ['psql'] } }, 'replicas', 2, 1],
      /^\.NET: x-bench\.writes\.list must name the ids/,
    ],
    [[{ name: 'x' }, 'replicas', 2, 1], /^drillCells needs the app's description/],
  ];
  for (const [args, re] of bad)
    assert.throws(
      () => drillCells(args[0], args[1], args[2], args[3], args[4]),
      { message: re },
      JSON.stringify(args.slice(1)),
    );
});

test('a drill whose generator sent late is run again, and after three late tries is not measured', async () => {
  const lag = (p99, max) => ({ p50: 1, p99, max });
  const tries = (lags) => {
    const queue = [...lags];
    return () => Promise.resolve({ kind: 'stop', sendLagMs: queue.shift() });
  };
  const lines = [];
  const kept = await keptUnlessLate(tries([lag(80, 300), lag(12, 40)]), (l) => lines.push(l));
  assert.equal(kept.tries, 2);
  assert.deepEqual(kept.lateTries, [lag(80, 300)]);
  assert.match(lines[0], /^try 1 of 3 not kept: the generator sent late: send lag p99 80 ms, max 300 ms, over the 50 ms/);
  assert.equal((await keptUnlessLate(tries([lag(3, 9)]), () => {})).lateTries, undefined, 'on time: kept as is');
  await assert.rejects(
    keptUnlessLate(tries([lag(60, 90), lag(70, 95), lag(200, 400)]), () => {}),
    new RegExp('^Error: not measured: the generator could not hold its rate in 3 tries \\(send lag p99 60 ms / ' +
      'max 90 ms; p99 70 ms / max 95 ms; p99 200 ms / max 400 ms; the bound is 50 ms at p99\\), so nothing of ' +
      'this drill is published$'),
  );
  const any = await keptUnlessLate(tries([lag(200, 400)]), () => {}, Infinity);
  assert.equal(any.tries, 1, 'a bound of Infinity takes any');
});
