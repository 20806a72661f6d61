// How a run was measured, in words, from results.json: machine, isolation, protocol, box.
import { fmt } from './format.js';
import { slicesBySpeed } from './core-speed.js';
import { cleanText } from './sanitize.js';
import { ruleOf, budgetsOf } from './labels.js';

/** The labels' rule in words, from the margin results.json names. */
export function ruleText(doc) {
  const m = `${fmt(ruleOf(doc).margin * 100)}%`;
  return `A verdict **wins** when its whole interval lies beyond a ${m} difference, is **equal** when it lies within ±${m}, and **can't tell** when it crosses that line.`;
}

export function machineLine(doc) {
  const m = doc.meta.machine;
  return `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, ${m.os}; ${doc.mode} mode, started ${doc.startedAt.slice(0, 16).replace('T', ' ')} UTC; load average ${doc.box.loadBefore.join(' / ')} before, ${doc.box.loadAfter.join(' / ')} after${doc.box.stealPct !== null ? `, ${fmt(doc.box.stealPct, 1)}% CPU steal during the run` : ''}.`;
}

/**
 * Where the generator and the topologies ran, per budget: "the load generator pinned to CPU 0; at
 * 1 CPU the topologies pinned to CPU 1, apart from it; at 2 CPUs on every CPU, shared with it …".
 */
export function placementText(doc) {
  const iso = doc.isolation;
  if (!iso.pinned) return `unpinned (${cleanText(iso.reason)})`;
  const places = doc.protocol?.placements ?? iso.budgets ?? [{ budget: iso.budgetCpus, cpuset: 'sut' }];
  const at = (p) => (p.cpuset === 'all'
    ? `at ${p.budget} CPU${p.budget > 1 ? 's' : ''} on every CPU of the machine, shared with the generator, whose share of the machine is given beside each verdict`
    : `at ${p.budget} CPU${p.budget > 1 ? 's' : ''} pinned to CPU ${iso.sutCpus}, apart from the generator`);
  const sorted = [...places].sort((a, b) => a.budget - b.budget);
  return `the load generator pinned to CPU ${iso.generatorCpus} (${iso.mechanism}); every topology — app, nginx, database — ${sorted.map(at).join('; ')}`;
}

export function methodLines(doc) {
  const iso = doc.isolation;
  const pr = doc.protocol;
  const lim = iso.cpuLimits;
  const ceil = Object.entries(doc.ceilings ?? {}).map(([t, c]) => `${t} ${fmt(c.rps)} req/s`).join(', ');
  return [
    `- **Isolation**: ${placementText(doc)}; the topologies run at the highest CPU weight and the generator at nice ${iso.generatorNice}, so other load on the machine yields to them; `
      + `a budget of ${budgetsOf(doc).join(' or ')} CPU per topology (${lim?.enforced ? `${lim.mechanism}; replicas split it as per-instance quotas` : `quotas NOT enforced: ${cleanText(lim?.reason ?? 'unknown')}`}).`,
    `- **Windows and rounds**: ${pr.warmupS} s of warm-up per cell, then ${pr.rounds} rounds${Object.entries(pr.roundsByWorkload ?? {}).map(([w, n]) => ` (${w}: ${n})`).join('')}; in each round every cell gets a ${pr.windowS} s window, ${pr.order}${pr.slicing ? `; ${pr.slicing}, without a re-warm (every slice follows the same wait while the others take theirs); a cell measured whole gets ${pr.rewarmS} s of warm-up before its window` : ` after ${pr.rewarmS} s of warm-up`}.`,
    ...(pr.latency ? [`- **Latency**: ${pr.latency.rule}; ${pr.latency.windowS ?? pr.windowS} s per window, ${pr.latency.sliceS ? 'after' : 'before'} that round's closed-loop window${pr.latency.interval ? `; interval: ${pr.latency.interval}` : ''}.`] : []),
    `- **Statistics**: per cell, the median over rounds and the spread (min–max); per comparison, ${pr.interval} (${pr.confidence * 100}%)${pr.betweenRuns ? `; ${pr.betweenRuns.text}` : ''}. ${ruleText(doc)}`,
    `- **Cost**: CPU time per request of the whole topology (${lim?.enforced ? 'cgroup CPU accounting' : 'the processes\' utime+stime'}, nginx included when the path goes through it) over each window${doc.verdicts?.some((v) => v.metric === 'cpu' && v.latencyAt) ? ' (the CPU verdicts: over the slices at a fixed rate, see Latency)' : ''}; ${pr.memory ?? 'resident memory as the proportional set size (PSS) of every process after each window'}.`,
    `- **Generator**: ${doc.tool} (closed loop, ${iso.generatorThreads} thread${iso.generatorThreads > 1 ? 's' : ''}); ${doc.protocol.latency || doc.protocol.openLoop?.tool === 'paced' ? 'latency at a fixed rate and the open loop: the paced generator (open loop, each latency from the intended send time, so no coordinated omission); the experiments\' fixed counts and rates: ' : ''}${doc.pacedTool}${doc.protocol.latency ? ', as their articles' : ' for fixed rates (latency corrected for coordinated omission)'}. Ceiling against a bare nginx with the same pinning: ${ceil}; a cell above ${pr.generatorBoundAt * 100}% of it is flagged generator-bound.`,
    `- **Box**: load average ${doc.box.loadBefore.join(' / ')} before and ${doc.box.loadAfter.join(' / ')} after; ${doc.box.stealPct === null ? 'steal unknown' : `${fmt(doc.box.stealPct, 1)}% of CPU time stolen by the hypervisor`}${coreSpeedText(doc)}${doc.box.busy ? ` — **busy: ${cleanText(doc.box.busyWhy)}**` : ''}.`,
    `- **Versions**: ${Object.entries(doc.meta.versions).map(([k, v]) => `${k} ${v ?? 'n/a'}`).join(', ')}; git ${doc.meta.git.commit.slice(0, 12)}${doc.meta.git.dirty ? ' (with uncommitted changes)' : ''}. Command: \`node harness/bench/cli.js${doc.argv ? ` ${cleanText(doc.argv)}` : ''}\`.`,
  ];
}

// The probe on the topologies' CPU (lib/core-speed.js): slowed time the guest counts as no steal,
// and what it did to the saturated slices.
function coreSpeedText(doc) {
  const c = doc.box.coreSpeed;
  if (!c) return '';
  const bySpeed = slicesBySpeed(doc).filter((w) => w.fast.rps !== null && w.slow.rps !== null)
    .map((w) => `${doc.workloads?.[w.workload]?.title ?? w.workload}: ×${fmt(w.fast.rps, 2)} of its cell's median in the ${w.fast.slices} slices at full speed, ×${fmt(w.slow.rps, 2)} in the ${w.slow.slices} slowed ones`);
  return `; the topologies' CPU ${c.cpus}, timed every ${c.periodMs} ms on the same small JSON work (${fmt(c.probes, 0)} probes; ${fmt(c.fastUs, 0)} µs at full speed, the 10th percentile: the host's speed, to set beside another run's), ran below ${Math.round(c.slowBelow * 100)}% of its fast speed in ${fmt(c.slowShare * 100, 0)}% of them (per minute: ${c.slowShareByMinute.map((x) => (x === null ? '–' : `${Math.round(x * 100)}%`)).join(' ')}; at a fixed rate below capacity the CPU is mostly idle, and a probe that wakes it reads slow)${bySpeed.length ? `; saturated slices went with it — ${bySpeed.join('; ')}` : ''}`;
}
