// What bounded a comparison, in the guide's words: a verdict labelled 'bounded' says what bounded
// its cells (judge/bottleneck.js) and how to get a machine where the strategies would be the bottleneck.

/**
 * The fewest cores on which a budget of B CPUs is the topology's own: the bench gives the load
 * generator a quarter of the CPUs, at least one (plan/cpu-budgets.js), and the rest to the topologies.
 */
export function coresFor(budget) {
  let n = Math.ceil(budget) + 1;
  while (n - Math.max(1, Math.floor(n / 4)) < budget) n += 1;
  return n;
}

// Who bounded the cells, for a chart's leaf; and for the table, what that was where more cores would not help.
const WHO = {
  machine: 'machine-bound here',
  generator: 'generator-bound here',
  proxy: 'nginx-bound here',
  connections: 'connection-bound here',
  unknown: 'bounded here',
};
const NOT_THE_STRATEGIES = {
  proxy: "nginx's one worker was the bottleneck, not the strategies",
  connections: "the load's connections capped it, not the strategies",
  unknown: 'something other than the strategies bounded it',
};

/**
 * { short, long } for a bounded verdict: short for a chart's leaf, long for the table under it.
 * @param {any} doc @param {{ bound?: { by: string, why: string }, budget?: number }} v
 */
export function boundText(doc, v) {
  const by = Object.hasOwn(WHO, v.bound?.by ?? '') ? v.bound.by : 'unknown';
  // Each cell's reason repeats who shares the cores; the sentence says it once.
  const why = (v.bound?.why ?? 'no reason recorded').replaceAll(
    /: the load generator, nginx and the kernel's network work share these cores with it/g,
    '',
  );
  const cores = doc.meta?.machine?.cores;
  const need = coresFor(v.budget ?? 1);
  // At a budget this machine gives CPUs of their own, the generator has its own CPU too: more of the
  // machine would not help the topology, a generator with more cores would.
  if (by === 'generator' && cores && need <= cores) {
    return {
      short: `${WHO.generator}: a generator with more cores`,
      long: `${WHO.generator}: the load generator, on CPUs of its own, was the limit, not the strategies — `
        + `give it more cores (${why})`,
    };
  }
  if (by === 'machine' || by === 'generator') {
    const sharing = `the load generator, nginx and the kernel share these ${cores ?? 'few'} cores`;
    return {
      short: `${WHO[by]}: measure on ≥ ${need} cores`,
      long: `${WHO[by]}: ${sharing} — measure on at least ${need} cores (${why})`,
    };
  }
  return { short: WHO[by], long: `${WHO[by]}: ${NOT_THE_STRATEGIES[by]} (${why})` };
}
