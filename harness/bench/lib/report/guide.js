// docs/decision-guide.md: opens with the one-page verdict table, then what each answer means.
// Rendered from results.json alone; the prose is fixed, every number and every winner is the run's.
import { fmt, fmtX, verdictSentence, latencyRoundsText } from './format.js';
import { verdictTable } from './verdict-table.js';
import { methodLines, machineLine } from './method.js';
import { extraSections } from './sections.js';

const WHY = {
  cluster: (b) => `The same Express app, behind nginx, with the same ${b} CPU. A cluster adds event loops, not CPU: on a budget of one CPU its workers take turns on the same core, so it can at best match one process on CPU-bound work and pays for the extra processes in memory and context switches. With a budget of several CPUs (a bigger machine, or \`make bench --budget\`), one Node process still uses about one of them, and that is where the cluster wins.`,
  replicas: (b) => `The same Express app and the same ${b} CPU, split over replicas (each with its share as a quota, as Docker's \`cpus:\` applies it), nginx in front of both sides. Replicas buy isolation and rolling restarts; on one host they add no CPU, and each replica's quota is smaller, so a burst on one replica is throttled sooner.`,
  dotnet: (b) => `One process each behind the same nginx, ${b} CPU each: a runtime comparison (Kestrel + minimal API vs Express), not a scaling one. A .NET process already spreads its work over every CPU of its budget through the thread pool.`,
  'dotnet-replicas': (b) => `The same ${b} CPU as one .NET process or as replicas behind nginx: the question the ASP.NET experiment asked. The thread pool already uses the budget; replicas add processes that compete for it.`,
};

export function renderGuide(doc, { reportLink = 'results/report.md', resultsLink = 'results/results.json' } = {}) {
  const lines = [];
  const p = (...l) => lines.push(...l);
  const iso = doc.isolation;
  const b = iso.budgetCpus;
  p('# When clustering, replicas or thread pools win', '');
  p(`> Written by \`make bench\` from [results.json](${resultsLink}) — **${doc.label}**. ${machineLine(doc)} `
    + `Every number below comes from that run; run \`make bench\` on your machine and this page is rewritten with yours. Every table and chart: [report.md](${reportLink}).`, '');
  if (!iso.pinned) p(`> ⚠ **Unpinned run**: ${iso.reason}. The load generator competed with the servers for CPU; every figure is flagged.`, '');
  if (doc.box?.busy) p(`> ⚠ **Busy machine**: ${doc.box.busyWhy}. Expect wider intervals and more ties.`, '');

  p('## The verdicts, on the same CPU budget', '');
  p(`Every topology got the same budget: **${b} CPU** (a CFS quota on the whole topology, nginx included, pinned to CPU ${iso.sutCpus}), `
    + `with the load generator on CPU ${iso.generatorCpus} of its own. Each cell names the winner, then the ratio of the column's topology to its baseline `
    + `and its 95% interval over ${doc.protocol.rounds} interleaved rounds of ${doc.protocol.windowS} s${doc.protocol.sliceS ? ` (each taken in ${doc.protocol.sliceS} s slices in turn with the other cells)` : ''}`
    + Object.entries(doc.protocol.roundsByWorkload ?? {}).map(([w, n]) => ` (${doc.workloads[w]?.title ?? w}: ${n}, as it swings more from window to window)`).join('')
    + (doc.protocol.latency ? ` (${/CPU-per-request/.test(doc.protocol.latency.rule) ? 'p99 and CPU per request' : 'p99'}: over the last rounds — ${latencyRoundsText(doc.protocol.latency, (w) => doc.workloads[w]?.title ?? w)} — at a fixed rate per workload below every side's capacity${doc.protocol.latency.sliceS ? `, in slices of ${doc.protocol.latency.sliceS} s taken in turn with the other cells${/typical second/.test(doc.protocol.latency.interval ?? '') ? ', the p99 that of a typical second (the median slice\'s)' : ''}` : ''}, since at saturation a p99 is the queue's)` : '')
    + (doc.protocol.betweenRuns ? `, and never narrower than what the same question moved by over ${doc.protocol.betweenRuns.runs} ${doc.protocol.betweenRuns.mode === 'full' ? 'full' : 'default'} runs on this machine (the state of a shared machine outlasts a run's rounds)` : '')
    + `. Throughput: higher is better; p99, CPU per request and memory: lower is better. `
    + (/whole/.test(doc.protocol.verdictRule ?? '') ? `**tie** means the interval reaches within ${doc.protocol.minDifference * 100}% of parity: no difference of ${doc.protocol.minDifference * 100}% or more is sure.` : `**tie** means the interval includes parity or the difference is under ${doc.protocol.minDifference * 100}%.`), '');
  p(...verdictTable(doc), '');

  p('## What the verdicts say', '');
  const byComparison = new Map();
  for (const v of doc.verdicts) {
    if (!WHY[v.comparison]) continue;
    if (!byComparison.has(v.comparison)) byComparison.set(v.comparison, []);
    byComparison.get(v.comparison).push(v);
  }
  for (const [comparison, vs] of byComparison) {
    p(`### ${vs[0].column[0].toUpperCase()}${vs[0].column.slice(1)}`, '', WHY[comparison](b), '');
    for (const v of vs.filter((x) => x.metric === 'throughput' || x.metric === 'memory')) {
      p(`- ${doc.workloads[v.workload]?.title ?? v.workload}, ${doc.metrics[v.metric].title}: ${verdictSentence(doc, v)}.`);
    }
    const limit = vs.find((v) => v.limit)?.limit;
    if (limit) p('', `Physical limit on throughput: ${fmtX(limit.ratio)} (${limit.why}); a ratio above it is a fault in the measurement and is kept out.`);
    p('');
  }

  const suspect = doc.verdicts.filter((v) => v.measured && v.suspect);
  const missing = doc.verdicts.filter((v) => !v.measured);
  if (suspect.length || missing.length) {
    p('## Kept out of the verdicts', '');
    for (const v of suspect) p(`- ${v.question}: ${v.reasons.join('; ')}.`);
    const reasons = new Map();
    for (const v of missing) reasons.set(v.reasons[0] ?? 'not measured', [...(reasons.get(v.reasons[0] ?? 'not measured') ?? []), v.id]);
    for (const [why, ids] of reasons) p(`- Not measured (${ids.length} verdicts, e.g. \`${ids[0]}\`): ${why}.`);
    p('');
  }

  p(...extraSections(doc, 'guide'));

  p('## How this was measured', '');
  p(...methodLines(doc), '');
  p(`Raw data, every round of every cell: [results.json](${resultsLink}). Tables and charts: [report.md](${reportLink}). Two runs compare with a script over \`verdicts\` (id, winner, ratio, ci95, suspect).`, '');
  return lines.join('\n');
}

export { fmt };
