// How a run was measured, from results.json's structured protocol fields and the report-method
// template: machine, isolation, engine, rounds, capacity, latency, statistics, generator, box.
import { fmt, cpus, machineText } from './format.js';
import { slicesBySpeed } from './core-speed.js';
import { cleanText } from './sanitize.js';
import { ruleOf, budgetsOf } from './labels.js';
import { fill, inline } from './template.js';
import { engineText } from './guide-intro.js';

/** The labels' rule in words, its bounds the rule's own. */
export function ruleText(doc) {
  const { up, down } = ruleOf(doc);
  return (
    `A verdict **wins** when its whole interval lies above ×${fmt(up, 2)} or below ×${fmt(down, 3)}, ` +
    `is **equal** when it lies within ×${fmt(down, 3)}–×${fmt(up, 2)}, and **can't tell** otherwise.`
  );
}

export function machineLine(doc) {
  const m = doc.meta.machine;
  const steal = doc.box.stealPct !== null ? `, ${fmt(doc.box.stealPct, 1)}% CPU steal during the run` : '';
  return (
    `${machineText(m)}, ${m.os}; ${doc.mode} mode, started ` +
    `${doc.startedAt.slice(0, 16).replace('T', ' ')} UTC; load average ${doc.box.loadBefore.join(' / ')} before, ` +
    `${doc.box.loadAfter.join(' / ')} after${steal}.`
  );
}

/**
 * Where the generator and the topologies ran, per budget: "the load generator pinned to CPU 0; at
 * 1 CPU the topologies pinned to CPU 1, apart from it; at 2 CPUs on every CPU, shared with it …".
 */
export function placementText(doc) {
  const iso = doc.isolation;
  if (!iso.pinned) return `unpinned (${cleanText(iso.reason)})`;
  const places = doc.protocol?.placements ?? iso.budgets ?? [{ budget: iso.budgetCpus, cpuset: 'sut' }];
  const shared =
    'on every CPU of the machine, shared with the generator, whose share of the machine is given beside each verdict';
  const at = (p) =>
    p.cpuset === 'all'
      ? `at ${cpus(p.budget)} ${shared}`
      : `at ${cpus(p.budget)} pinned to CPU ${iso.sutCpus}, apart from the generator`;
  const sorted = [...places].sort((a, b) => a.budget - b.budget);
  const gen = `the load generator pinned to CPU ${iso.generatorCpus} (${iso.mechanism})`;
  return `${gen}; every topology — app, nginx, database — ${sorted.map(at).join('; ')}`;
}

function capacityText(pr) {
  const c = pr.capacity;
  if (!c) return 'not searched in this run.';
  return inline('report-capacity', {
    target: fmt(c.p99TargetMs),
    held: `${fmt(c.heldShare * 100)}%`,
    lo: c.range[0],
    hi: c.range[1],
    steps: c.steps,
    slice: c.sliceS,
  });
}

function latencyText(pr) {
  const l = pr.latency;
  if (!l) return 'not taken in this run.';
  return inline('report-latency', {
    load: l.load,
    rounds: l.rounds ?? 'per workload',
    window: l.windowS,
    slice: l.sliceS,
  });
}

function generatorText(doc) {
  const iso = doc.isolation;
  const ceiling = Object.entries(doc.ceilings ?? {})
    .map(([t, c]) => `${t} ${fmt(c.rps)} req/s`)
    .join(', ');
  return inline('report-generator', {
    tool: doc.tool,
    threads: `${iso.generatorThreads} thread${iso.generatorThreads > 1 ? 's' : ''}`,
    paced: doc.pacedTool,
    ceiling: ceiling || 'not measured',
    bound: `${fmt(doc.protocol.generatorBoundAt * 100)}%`,
  });
}

// The probe on the topologies' CPU (lib/run/core-speed.js), summed up: how often it read slow, and how
// the saturated slices went with it. Its per-minute readings stay in results.json.
function coreSpeedText(doc) {
  const c = doc.box.coreSpeed;
  if (!c) return '';
  const title = (w) => doc.workloads?.[w.workload]?.title ?? w.workload;
  const bySpeed = slicesBySpeed(doc)
    .filter((w) => w.fast.rps !== null && w.slow.rps !== null)
    .map((w) => `${title(w)} ×${fmt(w.fast.rps, 2)} at full speed, ×${fmt(w.slow.rps, 2)} slowed`);
  return inline('report-probe', {
    cpus: c.cpus,
    fastUs: fmt(c.fastUs, 0),
    slowBelow: `${Math.round(c.slowBelow * 100)}%`,
    slowShare: `${fmt(c.slowShare * 100, 0)}%`,
    probes: fmt(c.probes, 0),
    slices: bySpeed.length ? ` (saturated slices against their cell's median: ${bySpeed.join('; ')})` : '',
  });
}

function boxText(doc) {
  const b = doc.box;
  const steal = b.stealPct === null ? 'steal unknown' : `${fmt(b.stealPct, 1)}% of CPU time stolen by the hypervisor`;
  const load = `load average ${b.loadBefore.join(' / ')} before and ${b.loadAfter.join(' / ')} after`;
  return `${load}; ${steal}${b.busy ? ` — **busy: ${cleanText(b.busyWhy)}**` : ''}.`;
}

function versionsText(doc) {
  const m = doc.meta;
  const versions = Object.entries(m.versions)
    .map(([k, v]) => `${k} ${v ?? 'n/a'}`)
    .join(', ');
  const command = `node harness/bench/cli.js${doc.argv ? ` ${cleanText(doc.argv)}` : ''}`;
  const dirty = m.git.dirty ? ' (with uncommitted changes)' : '';
  return `${versions}; git ${m.git.commit.slice(0, 12)}${dirty}. Command: \`${command}\`.`;
}

export function methodLines(doc) {
  const iso = doc.isolation;
  const pr = doc.protocol;
  const lim = iso.cpuLimits;
  return fill('report-method', {
    placement: placementText(doc),
    nice: iso.generatorNice,
    budgets: `${budgetsOf(doc).join(' or ')} CPU`,
    quota: lim?.enforced
      ? `${lim.mechanism}; replicas split it as per-instance quotas`
      : `quotas NOT enforced: ${cleanText(lim?.reason ?? 'unknown')}`,
    engine: engineText(doc),
    warmup: pr.warmupS,
    rounds: pr.rounds,
    window: pr.windowS,
    slice: pr.sliceS ?? pr.windowS,
    capacity: capacityText(pr),
    latency: latencyText(pr),
    confidence: `${fmt(pr.confidence * 100)}%`,
    spread: pr.betweenRuns ? `${cleanText(pr.betweenRuns.text)}.` : 'not measured on this machine.',
    rule: ruleText(doc),
    spent: `${fmt((pr.bound?.spent ?? 0.9) * 100)}%`,
    generator: generatorText(doc),
    box: boxText(doc),
    speed: `${coreSpeedText(doc).replace(/^; /, '') || 'no probe in this run'}.`,
    versions: versionsText(doc),
  });
}
