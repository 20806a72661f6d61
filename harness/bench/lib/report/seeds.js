// The five published experiments, each answered: confirmed, refuted, or not testable on this
// machine — and the qualifier that says which part (the headline figure, the article's explanation)
// and under which conditions (the CPU budget, what shared it) — with the control that decides it
// and one sentence why, in the run's own figures.
import { fmt, fmtX, fmtCi } from './format.js';
import { labelOf, LABEL_TEXT, ruleOf } from './labels.js';

const verdict = (doc, id) => doc.verdicts.find((v) => v.id === id);
const cell = (doc, id) => doc.cells.find((c) => c.id === id && c.status === 'ok');
const said = (doc, v) => (v && labelOf(v, doc) !== null ? `${fmtX(v.ratio)} (${fmtCi(v.ci95)}; ${LABEL_TEXT[labelOf(v, doc)]})` : 'not measured');
const published = (doc, id) => doc.scenarios.flatMap((s) => s.experiment?.publishedRatios ?? []).find((p) => p.comparison === id)?.value;
const wins = (doc, v, side) => v && labelOf(v, doc) === 'wins' && v.winner === side;
const cpus = (doc, v) => v?.budget ?? cell(doc, v?.cells?.[0])?.topology?.budgetCpus;
const onCpus = (n) => (n === undefined ? '' : ` at ${n} CPU${n === 1 ? '' : 's'}`);
const NOT_RUN = { answer: 'not testable on this machine', control: null, why: 'its cells did not run in this results file.' };
// The open-loop rule: a rate is held when the achieved rate is within 5% of the one asked.
const HELD = 0.95;

// Per experiment id: (doc) => { answer, control (verdict or cell id), why }.
const RULES = {
  'exp-compose-replicas': (doc) => {
    const claim = verdict(doc, 'exp-compose-replicas.claim');
    const ctrl = verdict(doc, 'exp-compose-replicas.fixed-500');
    if (!claim || !ctrl || labelOf(ctrl, doc) === null) return NOT_RUN;
    const same = labelOf(ctrl, doc) !== 'wins';
    const headline = wins(doc, claim, claim.a);
    return {
      answer: same
        ? (headline ? `confirmed in its headline (${fmtX(claim.ratio)}${onCpus(cpus(doc, claim))}), refuted in its explanation` : 'refuted')
        : `confirmed${onCpus(cpus(doc, ctrl))}`,
      control: ctrl.id,
      why: same
        ? `with every replica at the same 500 ms delay, ten replicas against one read ${said(doc, ctrl)}: the headline ${fmtX(claim.ratio)} comes from the draw of delays (one instance that drew 500 ms, against ten replicas some of which drew 0 ms and got the connections under least_conn), since a server that only waits is bound by connections ÷ delay, not by replicas.`
        : `with every replica at the same 500 ms delay ten replicas still differ from one: ${said(doc, ctrl)}.`,
    };
  },
  'exp-cluster-vs-containers': (doc) => {
    const ctrl = verdict(doc, 'exp-cluster-vs-containers.one-worker-vs-four');
    const head = verdict(doc, 'exp-cluster-vs-containers.containers-vs-cluster');
    if (!ctrl || !head || labelOf(ctrl, doc) === null) return NOT_RUN;
    const l = labelOf(ctrl, doc);
    const where = `${onCpus(cpus(doc, ctrl)).trim()} a container`;
    const answer = l === 'cant-tell' ? `not testable on this machine (both comparisons can't tell ${where})` : `${wins(doc, ctrl, ctrl.a) ? 'confirmed' : 'refuted'} (${where})`;
    return {
      answer,
      control: ctrl.id,
      why: `one process against four cluster workers in the same 0.4-CPU container reads ${said(doc, ctrl)} (the write-up: ${fmtX(published(doc, ctrl.id))}), and the headline four containers against the cluster ${said(doc, head)}${l === 'cant-tell' ? `: the intervals cross the ±${fmt(ruleOf(doc).margin * 100)}% line, so this machine cannot settle it` : ''}. The write-up gives no explanation; the CFS-quota one tested by the throttling table is this repository's, not the article's.`,
    };
  },
  'exp-pi-loadbalancing': (doc) => {
    const claim = verdict(doc, 'exp-pi-loadbalancing.claim');
    const ctrl = verdict(doc, 'exp-pi-loadbalancing.parallelism');
    if (!claim || !ctrl || labelOf(claim, doc) === null) return NOT_RUN;
    const onOne = wins(doc, ctrl, ctrl.a);
    const theirs = published(doc, claim.id);
    const o = doc.scenarios.find((s) => s.name === 'exp-pi-loadbalancing')?.experiment?.original ?? {};
    const few = o.users && o.requestsPerUser ? `the slowest of its ${fmt(o.users * o.requestsPerUser)} responses` : 'the slowest response';
    return {
      answer: wins(doc, claim, claim.a)
        ? `${onOne ? 'confirmed in its headline, its explanation only in part' : 'confirmed'}${onCpus(cpus(doc, claim))}`
        : labelOf(claim, doc) === 'cant-tell' ? `not testable on this machine (three servers against one can't tell${onCpus(cpus(doc, claim))})` : `refuted${onCpus(cpus(doc, claim))}`,
      control: ctrl.id,
      why: labelOf(claim, doc) === 'cant-tell'
        ? `three servers against one${onCpus(cpus(doc, claim))} read ${said(doc, claim)}${theirs ? ` (the article: ${fmtX(theirs)})` : ''}: ${few} moves too much from round to round here to settle it. On one CPU, the control, three servers read ${said(doc, ctrl)}.`
        : onOne
        ? `three servers pinned to one CPU still cut the slowest response to ${said(doc, ctrl)}, with no second core to compute on: part of the gain (${fmtX(claim.ratio)} in all) comes from splitting the one queue a busy event loop serves strictly in turn, which the kernel then time-slices, and only the rest from the cores the article credits.`
        : `on one CPU three servers read ${said(doc, ctrl)}: without cores to spread over the gain is gone, as the article's explanation says.`,
    };
  },
  'exp-node-scale': (doc) => {
    const one = cell(doc, 'exp-node-scale:1-process-no-keepalive');
    const cl = cell(doc, 'exp-node-scale:cluster-no-keepalive');
    if (!one || !cl) return NOT_RUN;
    const cores = one.topology.budgetCpus ?? one.budgetCpus;
    // The requirement holds only at the rate asked: a p99 under 500 ms at a fraction of it is not met.
    const held = (c) => (c.effectiveRps ?? 0) >= HELD * c.rate;
    const met = (c) => held(c) && c.errors === 0 && c.latencyMs?.p99 <= 500;
    const p99 = (c) => `answered ${fmt(c.effectiveRps)}/s of the ${fmt(c.rate)} asked (p99 ${fmt(c.latencyMs?.p99)} ms, ${fmt(c.errors)} failed)`;
    const ka = cell(doc, 'exp-node-scale:1-process-keepalive');
    const keepAlive = ka ? ` With keep-alive, the control, one process ${p99(ka)}${met(ka) ? ': the requirement met' : ''}.` : '';
    if (cores > 1) {
      return {
        answer: !met(one) && met(cl) ? `confirmed${onCpus(cores)}` : met(one) ? `refuted${onCpus(cores)}: one process already met the requirement` : `not testable on this machine (neither held the rate asked${onCpus(cores)})`,
        control: cl.id,
        why: `on ${cores} CPUs one process ${p99(one)}, and the cluster ${p99(cl)}, against the article's requirement of every response within 500 ms at that rate.${keepAlive}`,
      };
    }
    return {
      answer: `not testable on this machine (${fmt(cores)} CPU: neither one process nor the cluster held the ${fmt(one.rate)} requests/s asked)`,
      control: one.id,
      why: `the claim needs cores to spread over and this run gave the app ${cores} CPU. Without keep-alive, as the article ran it, one process ${p99(one)}: a low p99 at a fraction of the rate, not the requirement met. A cluster of 2 on the same CPU ${p99(cl)}.${keepAlive}`,
    };
  },
  'exp-aspnet-nginx': (doc) => {
    const claim = verdict(doc, 'exp-aspnet-nginx.api');
    const ctrl = verdict(doc, 'exp-aspnet-nginx.api-cpu');
    if (!claim || !ctrl || labelOf(claim, doc) === null) return NOT_RUN;
    const oneWins = wins(doc, claim, claim.a);
    // Every process of the topology — nginx, the replicas, the database — shared the budget.
    const where = `${onCpus(cpus(doc, claim))}, shared by nginx, the replicas and the database`;
    return {
      answer: oneWins && wins(doc, ctrl, ctrl.a) ? `confirmed${where}` : oneWins ? `confirmed in its headline${where}, its explanation not` : labelOf(claim, doc) === 'cant-tell' ? `not testable on this machine (can't tell${where})` : `refuted${where}`,
      control: ctrl.id,
      why: `one replica against four on /api reads ${said(doc, claim)} in throughput, and in CPU per request ${said(doc, ctrl)}: ${wins(doc, ctrl, ctrl.a) ? 'four processes spend more CPU on each request, the cost the article puts down to context switches' : 'the CPU per request does not show the cost the article puts down to context switches'}.`,
    };
  },
};

/** [{ id, title, answer, control, why }] for every experiment of the run that has a rule. */
export function seedAnswers(doc) {
  return doc.scenarios.filter((s) => s.experiment && RULES[s.name]).map((s) => ({ id: s.name, title: s.experiment.title, ...RULES[s.name](doc) }));
}

/** Experiments whose stored explanation is this repository's, not the article's. */
export const OWN_EXPLANATION = new Set(['exp-cluster-vs-containers']);

/** Markdown lines: one short paragraph per experiment. */
export function seedSection(doc, { anchor = (id) => `#${id}` } = {}) {
  const answers = seedAnswers(doc);
  if (!answers.length) return [];
  return answers.flatMap((a) => [`- **${a.title}** — **${a.answer}**${a.control ? ` (control: [\`${a.control}\`](${anchor(a.control)}))` : ''}: ${a.why}`]).concat(['']);
}
