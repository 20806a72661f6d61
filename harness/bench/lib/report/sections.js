// Sections of the guide and the report that scenarios other than the verdicts contribute (fault
// and rollout drills, the published experiments), each rendered from results.json alone.
export function extraSections(doc, where) {
  const out = [];
  for (const render of RENDERERS) out.push(...render(doc, where));
  return out;
}

const RENDERERS = [];
