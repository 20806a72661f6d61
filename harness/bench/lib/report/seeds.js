// The five published experiments, each answered: confirmed, refuted, or not testable on this
// machine — and the qualifier that says which part (the headline figure, the article's explanation)
// and under which conditions (the CPU budget, what shared it) — with the control that decides it
// and one sentence why, in the run's own figures (its prose in templates/seed-*.md).
import { fmt, fmtX, fmtCi, cpus } from './format.js';
import { labelOf, LABEL_TEXT, ruleOf } from './labels.js';
import { inline } from './template.js';

const verdict = (doc, id) => doc.verdicts.find((v) => v.id === id);
const cell = (doc, id) => doc.cells.find((c) => c.id === id && c.status === 'ok');
const said = (doc, v) => {
  if (!v || labelOf(v, doc) === null) return 'not measured';
  return `${fmtX(v.ratio)} (${fmtCi(v.ci95)}; ${LABEL_TEXT[labelOf(v, doc)]})`;
};
const published = (doc, id) =>
  doc.scenarios.flatMap((s) => s.experiment?.publishedRatios ?? []).find((p) => p.comparison === id)?.value;
const wins = (doc, v, side) => v && labelOf(v, doc) === 'wins' && v.winner === side;
const budget = (doc, v) => v?.budget ?? cell(doc, v?.cells?.[0])?.topology?.budgetCpus;
const onCpus = (n) => (n === undefined ? '' : ` at ${cpus(n)}`);
const NOT_RUN = {
  answer: 'not testable on this machine',
  control: null,
  why: 'its cells did not run in this results file.',
};
// The open-loop rule: a rate is held when the achieved rate is within 5% of the one asked.
const HELD = 0.95;

function composeReplicas(doc) {
  const claim = verdict(doc, 'exp-compose-replicas.claim');
  const ctrl = verdict(doc, 'exp-compose-replicas.fixed-500');
  if (!claim || !ctrl || labelOf(ctrl, doc) === null) return NOT_RUN;
  const same = labelOf(ctrl, doc) !== 'wins';
  const headline = wins(doc, claim, claim.a);
  const whenSame = headline
    ? `confirmed in its headline (${fmtX(claim.ratio)}${onCpus(budget(doc, claim))}), refuted in its explanation`
    : 'refuted';
  return {
    answer: same ? whenSame : `confirmed${onCpus(budget(doc, ctrl))}`,
    control: ctrl.id,
    why: same
      ? inline('seed-compose-replicas', { control: said(doc, ctrl), headline: fmtX(claim.ratio) })
      : `with every replica at the same 500 ms delay ten replicas still differ from one: ${said(doc, ctrl)}.`,
  };
}

function clusterVsContainers(doc) {
  const ctrl = verdict(doc, 'exp-cluster-vs-containers.one-worker-vs-four');
  const head = verdict(doc, 'exp-cluster-vs-containers.containers-vs-cluster');
  if (!ctrl || !head || labelOf(ctrl, doc) === null) return NOT_RUN;
  const l = labelOf(ctrl, doc);
  const where = `${onCpus(budget(doc, ctrl)).trim()} a container`;
  // The control decides; the headline is said as it reads (it may have a label of its own).
  const both = l === 'cant-tell' && labelOf(head, doc) === 'cant-tell';
  const answer = l === 'cant-tell'
    ? `not testable on this machine (${both ? 'both comparisons' : 'one worker against four'} can't tell ${where})`
    : `${wins(doc, ctrl, ctrl.a) ? 'confirmed' : 'refuted'} (${where})`;
  const { down, up } = ruleOf(doc);
  const unsettled = l === 'cant-tell'
    ? `: ${both ? 'both intervals cross' : 'the first interval crosses'} ×${fmt(down, 3)} or ×${up.toFixed(2)}, so ` +
      'this machine cannot settle it'
    : '';
  return {
    answer,
    control: ctrl.id,
    why: inline('seed-cluster-vs-containers', {
      control: said(doc, ctrl), published: fmtX(published(doc, ctrl.id)), headline: said(doc, head), unsettled,
    }),
  };
}

function piLoadBalancing(doc) {
  const claim = verdict(doc, 'exp-pi-loadbalancing.claim');
  const ctrl = verdict(doc, 'exp-pi-loadbalancing.parallelism');
  if (!claim || !ctrl || labelOf(claim, doc) === null) return NOT_RUN;
  const onOne = wins(doc, ctrl, ctrl.a);
  const theirs = published(doc, claim.id);
  const o = doc.scenarios.find((s) => s.name === 'exp-pi-loadbalancing')?.experiment?.original ?? {};
  const few = o.users && o.requestsPerUser
    ? `the slowest of its ${fmt(o.users * o.requestsPerUser)} responses`
    : 'the slowest response';
  const at = onCpus(budget(doc, claim));
  const cantTell = labelOf(claim, doc) === 'cant-tell';
  return {
    answer: wins(doc, claim, claim.a)
      ? `${onOne ? 'confirmed in its headline, its explanation only in part' : 'confirmed'}${at}`
      : cantTell ? `not testable on this machine (three servers against one can't tell${at})` : `refuted${at}`,
    control: ctrl.id,
    why: cantTell
      ? inline('seed-pi-cant-tell', {
        at, claim: said(doc, claim), theirs: theirs ? ` (the article: ${fmtX(theirs)})` : '', few,
        control: said(doc, ctrl),
      })
      : onOne
        ? inline('seed-pi-one-cpu', { control: said(doc, ctrl), ratio: fmtX(claim.ratio) })
        : `on one CPU three servers read ${said(doc, ctrl)}: without cores to spread over the gain is gone, `
          + 'as the article\'s explanation says.',
  };
}

function nodeScale(doc) {
  const one = cell(doc, 'exp-node-scale:1-process-no-keepalive');
  const cl = cell(doc, 'exp-node-scale:cluster-no-keepalive');
  if (!one || !cl) return NOT_RUN;
  const cores = one.topology.budgetCpus ?? one.budgetCpus;
  // The requirement holds only at the rate asked: a p99 under 500 ms at a fraction of it is not met.
  const held = (c) => (c.effectiveRps ?? 0) >= HELD * c.rate;
  const met = (c) => held(c) && c.errors === 0 && c.latencyMs?.p99 <= 500;
  const p99 = (c) => `answered ${fmt(c.effectiveRps)}/s of the ${fmt(c.rate)} asked `
    + `(p99 ${fmt(c.latencyMs?.p99)} ms, ${fmt(c.errors)} failed)`;
  const ka = cell(doc, 'exp-node-scale:1-process-keepalive');
  const keepAlive = ka
    ? ` With keep-alive, the control, one process ${p99(ka)}${met(ka) ? ': the requirement met' : ''}.`
    : '';
  const figures = { cores: `${cores}`, one: p99(one), cluster: p99(cl), keepAlive };
  if (cores > 1) {
    return {
      answer: !met(one) && met(cl)
        ? `confirmed${onCpus(cores)}`
        : met(one)
          ? `refuted${onCpus(cores)}: one process already met the requirement`
          : `not testable on this machine (neither held the rate asked${onCpus(cores)})`,
      control: cl.id,
      why: inline('seed-node-scale-cores', figures),
    };
  }
  return {
    answer: `not testable on this machine (${fmt(cores)} CPU: neither one process nor the cluster held the `
      + `${fmt(one.rate)} requests/s asked)`,
    control: one.id,
    why: inline('seed-node-scale-one-cpu', figures),
  };
}

function aspnetNginx(doc) {
  const claim = verdict(doc, 'exp-aspnet-nginx.api');
  const ctrl = verdict(doc, 'exp-aspnet-nginx.api-cpu');
  if (!claim || !ctrl || labelOf(claim, doc) === null) return NOT_RUN;
  const oneWins = wins(doc, claim, claim.a);
  // Every process of the topology — nginx, the replicas, the database — shared the budget.
  const where = `${onCpus(budget(doc, claim))}, shared by nginx, the replicas and the database`;
  const answer = oneWins && wins(doc, ctrl, ctrl.a)
    ? `confirmed${where}`
    : oneWins
      ? `confirmed in its headline${where}, its explanation not`
      : labelOf(claim, doc) === 'cant-tell' ? `not testable on this machine (can't tell${where})` : `refuted${where}`;
  const cost = wins(doc, ctrl, ctrl.a)
    ? 'four processes spend more CPU on each request, the cost the article puts down to context switches'
    : 'the CPU per request does not show the cost the article puts down to context switches';
  return {
    answer,
    control: ctrl.id,
    why: inline('seed-aspnet-nginx', { throughput: said(doc, claim), cpu: said(doc, ctrl), cost }),
  };
}

// Per experiment id: (doc) => { answer, control (verdict or cell id), why }.
const RULES = {
  'exp-compose-replicas': composeReplicas,
  'exp-cluster-vs-containers': clusterVsContainers,
  'exp-pi-loadbalancing': piLoadBalancing,
  'exp-node-scale': nodeScale,
  'exp-aspnet-nginx': aspnetNginx,
};

/** [{ id, title, answer, control, why }] for every experiment of the run that has a rule. */
export function seedAnswers(doc) {
  return doc.scenarios.filter((s) => s.experiment && RULES[s.name])
    .map((s) => ({ id: s.name, title: s.experiment.title, ...RULES[s.name](doc) }));
}

/** Experiments whose stored explanation is this repository's, not the article's. */
export const OWN_EXPLANATION = new Set(['exp-cluster-vs-containers']);

/** Markdown lines: one short paragraph per experiment. */
export function seedSection(doc, { anchor }) {
  const answers = seedAnswers(doc);
  if (!answers.length) return [];
  const control = (a) => (a.control ? ` (control: [\`${a.control}\`](${anchor(a.control)}))` : '');
  return answers
    .flatMap((a) => {
      const [first, ...more] = paragraphsUnder(a.why);
      return [`- **${a.title}** — **${a.answer}**${control(a)}: ${first}`, ...more.map((p) => `\n  ${p}`)];
    })
    .concat(['']);
}

// The guide's paragraphs stay short: a long explanation goes on in paragraphs of its own under the
// item, whole sentences of at most WORDS words each (a longer sentence stands alone).
const WORDS = 60;
export function paragraphsUnder(text) {
  const out = [];
  for (const sentence of text.split(/(?<=[.:])\s+(?=[A-Z])/)) {
    const last = out.at(-1);
    const words = (t) => t.split(/\s+/).length;
    if (last !== undefined && words(last) + words(sentence) <= WORDS) out[out.length - 1] = `${last} ${sentence}`;
    else out.push(sentence);
  }
  return out;
}
