// The decision flow that opens the guide: workload → core count → constraint → recommendation, a
// Mermaid flowchart built from the verdicts alone. Each recommendation names the verdict it rests
// on (label, ratio, interval) and links to that verdict's row in the guide.
import { fmtX, fmtCi } from './format.js';
import { labelOf, LABEL_TEXT, budgetOf, budgetsOf, groupOf, isControl, mainVerdicts, ruleOf } from './labels.js';
import { sideName } from './verdict-table.js';

export const WORKLOADS = [['light', 'light JSON'], ['pi', 'CPU-bound'], ['delay', 'waiting on I/O'], ['db', 'database-bound']];
export const CONSTRAINTS = [
  ['memory', 'memory', 'memory'],
  ['tail', 'tail latency', 'p99'],
  ['deploy', 'zero-downtime deploys', 'throughput'],
  ['runtime', 'team runtime', 'throughput'],
];
const NODE_GROUPS = ['cluster', 'replicas', 'reuseport', 'pm2'];

/** The anchor of a verdict's row in the guide's full table. */
export const anchorOf = (id) => `v-${String(id).replace(/[^\w-]+/g, '-')}`;

const topo = (doc, id) => doc.cells.find((c) => c.topology.id === id)?.topology;
const name = (doc, id) => sideName(topo(doc, id));
const processesOf = (doc, id) => topo(doc, id)?.processes ?? 1;
// The first side of a verdict, said to be the control where it is one.
const sideA = (doc, v) => `${name(doc, v.a)}${isControl(v) ? ` on ${budgetOf(v, doc)} CPU (control)` : ''}`;

/** "Express 1 process wins", "equal", "can't tell", "not measured". */
export function labelText(doc, v) {
  const label = labelOf(v, doc);
  return label === 'wins' ? `${name(doc, v.winner)} wins` : LABEL_TEXT[label];
}

/** "cluster of 2 ÷ 1 process: 1 process wins ×2.15 (×2.02–×2.28)" — the quote a branch rests on. */
export function quote(doc, v) {
  if (labelOf(v, doc) === null) return `${name(doc, v.a)} vs ${name(doc, v.b)}: not measured`;
  const bound = v.generator?.bound ? ' ⚠ generator over its share' : '';
  return `${sideA(doc, v)} ÷ ${name(doc, v.b)}: ${labelText(doc, v)} ${fmtX(v.ratio)} (${fmtCi(v.ci95)})${bound}`;
}

// A question, or its labelled control (the cluster of 2 on one CPU) where the question itself is absent.
const find = (vs, group, metric) => vs.find((v) => groupOf(v) === group && v.metric === metric)
  ?? vs.find((v) => groupOf(v) === `${group}-control` && v.metric === metric);
// How strongly a verdict favours its first side (the strategy) over its baseline: the order of choice.
// A control is evidence only: it can keep the baseline, never make its own side the recommendation.
const score = (doc, v) => {
  const l = labelOf(v, doc);
  if (l === null || v.suspect) return -Infinity;
  if (l === 'wins') return v.winner === v.a ? (isControl(v) ? 1.5 : 3) : 0;
  return l === 'equal' ? 2 : 1;
};

// .NET against the Node team's pick at the same budget, like for like: both verdicts share their
// baseline (one Express process), so their ratio is .NET ÷ the pick, and the interval from the ends
// of both intervals (wider than a paired one: it never claims more than the two verdicts do).
function runtimeAgainst(doc, dotnet, pick, budget) {
  const { margin } = ruleOf(doc);
  const ratio = dotnet.ratio / pick.ratio;
  const ci = Array.isArray(dotnet.ci95) && Array.isArray(pick.ci95) ? [dotnet.ci95[0] / pick.ci95[1], dotnet.ci95[1] / pick.ci95[0]] : null;
  const label = !ci ? "can't tell"
    : ci[0] > 1 + margin ? `${name(doc, dotnet.a)} wins`
      : ci[1] < 1 / (1 + margin) ? `${name(doc, pick.a)} wins`
        : ci[0] >= 1 / (1 + margin) && ci[1] <= 1 + margin ? 'equal' : "can't tell";
  return `${name(doc, dotnet.a)} ÷ ${name(doc, pick.a)} at ${budget} CPU${budget > 1 ? 's' : ''}: ${fmtX(ratio)} (${fmtCi(ci)}, from both verdicts against ${name(doc, pick.b)}): ${label}`;
}

/** One recommendation: { text, verdict } for a workload, budget and constraint. */
export function recommend(doc, workload, budget, constraint) {
  const vs = mainVerdicts(doc).filter((v) => v.workload === workload && budgetOf(v, doc) === budget);
  const [, , metric] = CONSTRAINTS.find(([id]) => id === constraint);
  const measured = (v) => v && labelOf(v, doc) !== null;
  const nodeMeasured = NODE_GROUPS.some((g) => measured(find(vs, g, metric)));
  // Where no Node topology was measured (no database server for it), the .NET side still answers.
  const groups = nodeMeasured ? NODE_GROUPS : ['dotnet-replicas'];
  const prefix = nodeMeasured ? '' : 'Node: not measured. .NET: ';
  const options = groups.map((g) => find(vs, g, metric)).filter(measured);
  if (!options.length) return { text: 'not measured', verdict: null };
  const best = (list) => [...list].sort((x, y) => score(doc, y) - score(doc, x) || (x.better === 'higher' ? y.ratio - x.ratio : x.ratio - y.ratio))[0];

  if (constraint === 'runtime') {
    const node = best(options);
    const dotnet = find(vs, 'dotnet', metric);
    const nodeWins = score(doc, node) === 3;
    const nodePick = nodeWins ? name(doc, node.a) : name(doc, node.b);
    if (!measured(dotnet)) return { text: `${prefix}${nodePick}`, verdict: node };
    // The .NET verdict's baseline is the Node team's pick itself where nothing beat one process.
    if (nodeMeasured && nodeWins) return { text: `Node team: ${nodePick}. ${runtimeAgainst(doc, dotnet, node, budget)}`, verdict: dotnet };
    return { text: `${nodeMeasured ? `Node team: ${nodePick}. ` : ''}Runtime: ${dotnet.winner && labelOf(dotnet, doc) === 'wins' ? `${name(doc, dotnet.winner)} is faster` : 'no clear difference'}`, verdict: dotnet };
  }
  if (constraint === 'deploy') {
    // A rollout without downtime needs a second process to take the traffic: only topologies of 2+
    // processes answer (on 1 CPU: the cluster of 2 kept as a control, or replicas), the best by throughput.
    const multi = vs.filter((v) => v.metric === metric && measured(v) && processesOf(doc, v.a) >= 2 && groups.some((g) => groupOf(v) === g || groupOf(v) === `${g}-control`));
    if (!multi.length) return { text: `${prefix}not measured: a rollout needs 2+ processes, and none ran at ${budget} CPU${budget > 1 ? 's' : ''} here`, verdict: null };
    const pick = best(multi.filter((v) => !isControl(v))) ?? best(multi);
    const turns = processesOf(doc, pick.a) > budget ? `; on ${budget} CPU they take turns` : '';
    return { text: `${prefix}${name(doc, pick.a)} behind nginx (a rollout needs 2+ processes${turns})`, verdict: pick };
  }
  const pick = best(options);
  if (score(doc, pick) === 3) return { text: `${prefix}${name(doc, pick.a)}`, verdict: pick };
  // Nothing beat the single process: keep it, quoting the verdict that says so most clearly.
  const against = [...options].sort((x, y) => score(doc, x) - score(doc, y))[0];
  return { text: `${prefix}${name(doc, against.b)} (nothing measured better)`, verdict: against };
}

const esc = (s) => String(s).replaceAll('"', '#quot;');

/** The core-count branches: 1 core, and 2+ cores at the largest measured budget, or a plain "not measured". */
export function coreBranches(doc) {
  const budgets = budgetsOf(doc);
  const largest = budgets[budgets.length - 1];
  return [
    { id: 'c1', title: '1 core', budget: budgets.includes(1) ? 1 : null, note: budgets.includes(1) ? 'measured at 1 CPU' : 'not measured by this run' },
    { id: 'cN', title: '2+ cores', budget: largest > 1 ? largest : null, note: largest > 1 ? `measured at ${largest} CPUs; more cores not measured` : 'not measured by this run (1 CPU only)' },
  ];
}

/** The Mermaid source (a fenced block), and the same answers as rows for the table under it. */
export function decisionFlow(doc) {
  const lines = ['```mermaid', 'flowchart LR', '  start(["Your API is saturated: what does a request mostly do?"])'];
  const rows = [];
  for (const [w, wTitle] of WORKLOADS) {
    if (!doc.workloads?.[w]) continue;
    lines.push(`  start -->|${wTitle}| ${w}{"How many cores?"}`);
    for (const core of coreBranches(doc)) {
      const cId = `${w}_${core.id}`;
      if (core.budget === null) {
        lines.push(`  ${w} -->|${core.title}| ${cId}["${esc(core.note)}"]`);
        rows.push({ workload: wTitle, core: core.title, answers: CONSTRAINTS.map(() => null) });
        continue;
      }
      lines.push(`  ${w} -->|"${core.title} (${esc(core.note)})"| ${cId}{"What constrains you?"}`);
      const answers = [];
      for (const [k, kTitle] of CONSTRAINTS) {
        const r = recommend(doc, w, core.budget, k);
        const leaf = `${cId}_${k}`;
        lines.push(`  ${cId} -->|${kTitle}| ${leaf}["<b>${esc(r.text)}</b><br/>${esc(r.verdict ? quote(doc, r.verdict) : 'no verdict')}"]`);
        if (r.verdict) lines.push(`  click ${leaf} "#${anchorOf(r.verdict.id)}"`);
        answers.push(r);
      }
      rows.push({ workload: wTitle, core: `${core.title} (${core.note})`, answers });
    }
  }
  lines.push('```');
  return { mermaid: lines, rows };
}

/** The flow's answers as a table (readable where Mermaid is not rendered), each linking its verdict's row. */
export function flowTable(doc, rows) {
  const head = ['workload', 'cores', ...CONSTRAINTS.map(([, t]) => t)];
  const out = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) {
    const cells = r.answers.map((a) => (a === null ? 'not measured' : a.verdict ? `${a.text} — [${labelText(doc, a.verdict)} ${fmtX(a.verdict.ratio)}](#${anchorOf(a.verdict.id)})` : a.text));
    out.push(`| ${[r.workload, r.core, ...cells].map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`);
  }
  return out;
}
