// Sections of the guide and the report that scenarios other than the verdicts contribute (fault
// and rollout drills, the published experiments), each rendered from results.json alone.
import { experimentSections } from './experiments.js';

const RENDERERS = [experimentSections];

export function extraSections(doc, where, charts = {}) {
  return RENDERERS.flatMap((render) => render(doc, where, charts));
}
