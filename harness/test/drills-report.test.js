// The drills' section of the guide and the verdict a deploy leaf quotes, from a synthetic run:
// each strategy judged against the pass line from its own counts (failed requests, and what the
// store kept), a table per engine, a single process stated as what it loses, drills that were
// not measured or whose writes were not counted said so. Every number is taken from the cells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderDrills, drillVerdict, judgeDrill, aboutCell } from '../bench/lib/report/drills.js';

const MIX = { get: '/', post: { path: '/products', contentType: 'application/json' }, postShare: 0.2 };
const part = (requests, failed, errors = {}) => ({ requests, failed, retried: 0, errors });
const kept = (acknowledged, extra = {}) => ({
  counted: true,
  store: 'db',
  prefix: 'p-',
  sent: acknowledged,
  acknowledged,
  stored: acknowledged,
  lost: 0,
  duplicated: 0,
  ambiguous: 0,
  failedNotStored: 0,
  unexpected: 0,
  ...extra,
});
const NO_STORE = { counted: false, why: 'node-replicas has no store the drill can count (x-bench.writes: null)' };
const NO_MONGO = {
  counted: false,
  why: "node-cluster's store (service mongo) does not run here, so its writes are not counted",
};

// A drill record as the drills write it: it names its kind, strategy, engine, app, processes, budget.
function cell(kind, about, get, post, writes, extra = {}) {
  const { strategy, app, processes, engine = 'processes', budget = 1 } = about;
  const id = `${kind}:${app}-${strategy}-${processes}@${budget}/${engine}`;
  return {
    id,
    scenario: 'drills',
    kind,
    strategy,
    processes,
    budget,
    status: 'ok',
    drill: {
      kind: kind === 'fault' ? 'crash' : kind,
      strategy,
      processes,
      budget,
      app,
      engine,
      what: `${kind} of ${strategy} as done`,
      ...(kind === 'fault'
        ? { how: 'instance', kills: [{}, {}, {}] }
        : kind === 'rollout'
          ? { steps: [{}, {}] }
          : { events: [{}, {}] }),
      get,
      post,
      latencyMs: { p50: 9, p90: 23, p99: 71, max: 101 },
      sendLagMs: { p50: 0.3, p99: 1.4, max: 12.6 },
      duringEvents: { latencyMs: { p50: 2.5, p99: 64, max: 880 }, sendLagMs: { p50: 0.3, p99: 1.2, max: 14 } },
      backMs: { median: 402, max: 403 },
      outageMs: { median: 0, max: post.failed ? 30 : 0, total: 0 },
      durationS: 10.5,
      rate: 100,
      mix: MIX,
      writes,
      ...extra,
    },
  };
}

const D2 = { strategy: 'replicas', app: 'dotnet-api', processes: 2 };
const D1 = { strategy: 'one-process', app: 'dotnet-api', processes: 1 };
const N2 = { strategy: 'replicas', app: 'node-replicas', processes: 2 };
const PM2 = { strategy: 'pm2', app: 'node-cluster', processes: 2 };
const RP = { strategy: 'reuseport', app: 'node-cluster', processes: 2 };
const CL = { strategy: 'cluster', app: 'node-cluster', processes: 2 };
const D2D = { ...D2, engine: 'docker' };
const N2S = { ...N2, engine: 'swarm' };

function doc() {
  return {
    protocol: { engine: { name: 'processes' } },
    cells: [
      cell('fault', D2, part(841, 0), part(210, 2, { 'HTTP 502': 2 }), kept(208, { ambiguous: 1 })),
      cell('rollout', D2, part(400, 0), part(100, 0), kept(100)),
      cell('stop', D2, part(300, 0), part(75, 0), kept(75)),
      cell('scale-down', D2, part(300, 0), part(75, 0), kept(75)),
      cell('fault', N2, part(845, 0), part(211, 0), NO_STORE),
      cell('rollout', N2, part(247, 0), part(61, 0), NO_STORE),
      cell('fault', D1, part(1141, 269, { ECONNREFUSED: 269 }), part(285, 66, { ECONNREFUSED: 66 }), kept(219)),
      cell('rollout', D1, part(568, 138, { ECONNREFUSED: 138 }), part(141, 35, { ECONNREFUSED: 35 }), kept(106)),
      cell('fault', PM2, part(500, 0), part(120, 0), NO_MONGO),
      cell('rollout', PM2, part(480, 0), part(120, 3, { ECONNRESET: 3 }), NO_MONGO),
      cell('fault', RP, part(500, 0), part(120, 0), NO_MONGO),
      cell('rollout', RP, part(480, 0), part(120, 0), NO_MONGO),
      cell('fault', CL, part(500, 0), part(120, 0), NO_MONGO),
      {
        id: 'rollout:node-cluster-cluster-2@1',
        scenario: 'drills',
        kind: 'rollout',
        app: 'node-cluster',
        strategy: 'cluster',
        processes: 2,
        budget: 1,
        status: 'failed',
        error: 'reload stopped at node-cluster-app-1: rolling restart aborted',
      },
      cell('fault', D2D, part(900, 0), part(220, 0), kept(220)),
      cell(
        'rollout',
        D2D,
        part(400, 0),
        part(100, 0),
        kept(99, { lost: 1, stored: 98, duplicated: 0, lostIds: ['p-7'] }),
      ),
      cell('rollout', N2S, part(500, 0), part(125, 0), NO_STORE),
      { id: 'closed:x', kind: 'closed', status: 'ok', topology: {} },
    ],
  };
}

test('each drill is judged from its counts: a crash may fail a POST in flight, a deploy nothing', () => {
  const byId = Object.fromEntries(doc().cells.map((c) => [c.id, c]));
  assert.deepEqual(judgeDrill(byId['fault:dotnet-api-replicas-2@1/processes']), {
    requestsOk: true,
    writes: 'kept',
    lostNothing: true,
  });
  assert.deepEqual(judgeDrill(byId['rollout:node-cluster-pm2-2@1/processes']), {
    requestsOk: false,
    writes: 'not counted',
    lostNothing: false,
  });
  assert.deepEqual(judgeDrill(byId['rollout:dotnet-api-replicas-2@1/docker']), {
    requestsOk: true,
    writes: 'lost',
    lostNothing: false,
  });
});

test('the verdict a deploy leaf quotes: lost nothing, what was lost, a lone process, not drilled', () => {
  const d = doc();
  const replicas = drillVerdict(d, 'replicas', 1, { engine: 'processes' });
  assert.equal(replicas.drilled, true);
  assert.equal(replicas.lostNothing, true);
  assert.match(
    replicas.text,
    /^replicas lost nothing in its drills at 1 CPU on processes \(crash, rollout, graceful stop, scale-down\): no GET failed, no request failed while it was rolled out, and the store kept every one of 458 acknowledged writes, none twice\. A crash failed 2 POSTs in flight on the killed process \(the client was told\)\. Writes not counted: node-replicas has no store/,
  );
  // On Docker a rollout lost an acknowledged write: the same strategy does not pass there.
  const docker = drillVerdict(d, 'replicas', 1, { engine: 'docker' });
  assert.deepEqual([docker.drilled, docker.lostNothing], [true, false]);
  assert.equal(
    docker.text,
    'replicas lost something in its drills at 1 CPU on docker: ' +
      'rollout of dotnet-api: 1 acknowledged write missing from the store.',
  );
  assert.equal(drillVerdict(d, 'replicas', 1).lostNothing, false, 'both engines: the Docker loss counts');
  // On Swarm only its rolling update is drilled: a strategy rolled out there is not short of a crash drill.
  const nodeReplicas = drillVerdict(d, 'replicas', 1, { app: 'node-replicas' });
  assert.deepEqual([nodeReplicas.drilled, nodeReplicas.lostNothing], [true, true], nodeReplicas.text);
  assert.match(nodeReplicas.text, /\(crash, rollout\)/);
  const pm2 = drillVerdict(d, 'pm2', 1);
  assert.deepEqual([pm2.drilled, pm2.lostNothing], [true, false]);
  assert.match(
    pm2.text,
    /^pm2 lost something in its drills at 1 CPU: rollout of node-cluster \(processes\): 3 of 120 POSTs failed\. Writes not counted: node-cluster's store \(service mongo\) does not run here/,
  );
  const reuseport = drillVerdict(d, 'reuseport', 1);
  assert.deepEqual([reuseport.drilled, reuseport.lostNothing], [true, true]);
  assert.match(
    reuseport.text,
    /^reuseport lost nothing in its drills at 1 CPU \(crash, rollout\): no GET failed, no request failed while it was rolled out\. Writes not counted: node-cluster's store/,
  );
  const lone = drillVerdict(d, 'one process', 1);
  assert.deepEqual([lone.drilled, lone.lostNothing], [true, false]);
  assert.equal(
    lone.text,
    'one-process has nothing to fail over to at 1 CPU: ' +
      'crash of dotnet-api (processes): 269 of 1,141 GETs failed, 66 of 285 POSTs failed; ' +
      'rollout of dotnet-api (processes): 138 of 568 GETs failed, 35 of 141 POSTs failed.',
  );
  const cluster = drillVerdict(d, 'cluster', 1);
  assert.deepEqual(cluster, {
    drilled: false,
    lostNothing: false,
    text:
      'cluster has no rollout drill at 1 CPU in this run ' +
      '(rollout failed: reload stopped at node-cluster-app-1: rolling restart aborted), ' +
      'so nothing says what a deploy of it costs.',
  });
  assert.equal(drillVerdict(d, 'replicas', 2).drilled, false, 'another budget');
  assert.equal(drillVerdict(d, 'blue-green', 1).drilled, false, 'a strategy the run never drilled');
});

test('a strategy drilled on two engines is drilled only where both ran; the text names the option', () => {
  const RPD = { ...RP, engine: 'docker' };
  const failedOnDocker = {
    ...cell('rollout', RPD, part(1, 0), part(1, 0), NO_MONGO),
    engine: 'docker',
    status: 'failed',
    error: 'the new process never listened',
  };
  delete failedOnDocker.drill;
  const crashOnDocker = cell('fault', RPD, part(500, 0), part(120, 0), NO_MONGO);
  const d = { ...doc(), cells: [...doc().cells, crashOnDocker, failedOnDocker] };
  const both = drillVerdict(d, 'reuseport', 1, { name: 'Express 2 reusePort processes' });
  assert.deepEqual([both.drilled, both.lostNothing], [false, false], 'its Docker rollout failed');
  assert.equal(
    both.text,
    'Express 2 reusePort processes has no rollout drill at 1 CPU on docker in this run ' +
      '(rollout failed: the new process never listened), so nothing says what a deploy of it costs.',
  );
  const processes = drillVerdict(d, 'reuseport', 1, { engine: 'processes', name: 'Express 2 reusePort processes' });
  assert.deepEqual([processes.drilled, processes.lostNothing], [true, true], 'the process engine alone passes');
  assert.match(processes.text, /^Express 2 reusePort processes lost nothing in its drills at 1 CPU on processes /);
});

test('the section: a table per engine with a pass line per strategy, every drill, and why', () => {
  const md = renderDrills(doc()).join('\n');
  const processes = md.slice(md.indexOf('### On the process engine'), md.indexOf('### On Docker'));
  const docker = md.slice(md.indexOf('### On Docker'));
  assert.ok(md.indexOf('### On Docker') > md.indexOf('### On the process engine'));
  assert.match(
    md,
    /\*\*The pass line\*\*, for every strategy that runs 2 or more processes: 0 lost and 0 duplicated writes/,
  );
  assert.match(
    processes,
    /\| one-process \| dotnet-api \| 1 \| 1 \| GET 269 of 1,141, POST 66 of 285; 2\.5 \/ 64 \/ 880 ms \| GET 138 of 568, POST 35 of 141; 2\.5 \/ 64 \/ 880 ms \| — \| — \| 325 acknowledged: 0 lost, 0 duplicated \| 1\.2 \/ 14 ms \| counter-example \|/,
  );
  assert.match(
    processes,
    /\| replicas \| dotnet-api \| 2 \| 1 \| GET 0 of 841, POST 2 of 210; 2\.5 \/ 64 \/ 880 ms \| GET 0 of 400, POST 0 of 100; 2\.5 \/ 64 \/ 880 ms \| GET 0 of 300, POST 0 of 75; 2\.5 \/ 64 \/ 880 ms \| GET 0 of 300, POST 0 of 75; 2\.5 \/ 64 \/ 880 ms \| 458 acknowledged: 0 lost, 0 duplicated, 1 ambiguous \| 1\.2 \/ 14 ms \| pass \|/,
  );
  assert.match(
    processes,
    /\| replicas \| node-replicas \| 2 \| 1 \| .* \| not counted \| 1\.2 \/ 14 ms \| pass \(writes not counted\) \|/,
  );
  assert.match(processes, /\| pm2 \| node-cluster \| 2 \| 1 \| .* \| \*\*fail\*\* \|/);
  assert.match(
    processes,
    /\| cluster \| node-cluster \| 2 \| 1 \| GET 0 of 500, POST 0 of 120; 2\.5 \/ 64 \/ 880 ms \| not measured \(failed\) \| — \| — \| not counted \| 1\.2 \/ 14 ms \| not drilled \|/,
  );
  assert.ok(
    processes.indexOf('| one-process |') < processes.indexOf('| cluster |') &&
      processes.indexOf('| reuseport |') < processes.indexOf('| pm2 |') &&
      processes.indexOf('| pm2 |') < processes.indexOf('| replicas |'),
    "in the strategies' order",
  );
  assert.match(
    docker,
    /\| replicas \| dotnet-api \| 2 \| 1 \| .* \| 319 acknowledged: 1 lost, 0 duplicated \| [\d./ ]+ ms \| \*\*fail\*\* \|/,
  );
  assert.match(
    processes,
    /\| scale-down \| replicas \| dotnet-api \| 2 \| 2 \| 0 of 300 \| 0 of 75 \| 402 ms \/ 403 ms \| 0 ms \| 75 acknowledged: 0 lost, 0 duplicated \| 2\.5 \/ 64 \/ 880 ms \| 1\.2 \/ 14 ms \|/,
  );
  // Swarm's rolling update: a table of its own, its rollout the only drill it needs.
  const swarm = md.slice(md.indexOf('### On Docker Swarm'));
  assert.ok(md.indexOf('### On Docker Swarm') > md.indexOf('### On Docker ('));
  assert.match(swarm, /\| replicas \| node-replicas \| 2 \| 1 \| — \| GET 0 of 500, POST 0 of 125; [^|]+ \| — \| — \| not counted \| [^|]+ \| pass \(writes not counted\) \|/);
  assert.match(md, /- \*\*pm2\*\*, crash: fault of pm2 as done\.\n- \*\*pm2\*\*, rollout: rollout of pm2 as done\./);
  assert.match(
    md,
    new RegExp(
      ['crash: fault', 'rollout: rollout', 'graceful stop: stop', 'scale-down: scale-down']
        .map((d) => `- \\*\\*replicas\\*\\*, ${d} of replicas as done\\.`)
        .join('\n'),
    ),
  );
  assert.match(
    md,
    /Writes not counted:\n\n- node-replicas has no store the drill can count \(x-bench\.writes: null\)\.\n- node-cluster's store \(service mongo\) does not run here, so its writes are not counted\./,
  );
  assert.match(md, /\*\*502 from nginx\*\*/);
  assert.match(md, /\*\*ECONNRESET\*\*/);
  assert.match(md, /\*\*ECONNREFUSED\*\*/);
  assert.doesNotMatch(md, /ETIMEDOUT/);
  assert.match(md, /- rollout of cluster \(node-cluster, processes\): failed — reload stopped at node-cluster-app-1/);
});

test('older records, named by their topology, and a run without drills', () => {
  const old = {
    cells: [
      {
        id: 'fault:dotnet-1',
        kind: 'fault',
        status: 'ok',
        topology: { sample: 'dotnet-api', strategy: 'one process', instances: 1, workers: 1, budgetCpus: 1 },
        drill: {
          how: 'instance',
          kills: [{}],
          get: part(10, 1),
          post: part(2, 0),
          latencyMs: { p99: 5 },
          recoverMs: { median: 300, max: 310 },
          rate: 100,
          mix: MIX,
        },
      },
    ],
  };
  assert.deepEqual(aboutCell(old.cells[0], old), {
    kind: 'fault',
    strategy: 'one-process',
    app: 'dotnet-api',
    label: null,
    processes: 1,
    budget: 1,
    engine: 'processes',
  });
  const md = renderDrills(old).join('\n');
  assert.match(
    md,
    /\| crash \| one-process \| dotnet-api \| 1 \| 1 \| 1 of 10 \| 0 of 2 \| 300 ms \/ 310 ms \| n\/a \| not counted \| not published: no lateness record \| not recorded \|/,
  );
  assert.match(renderDrills({ cells: [] }).join('\n'), /No drill in this run/);
});
