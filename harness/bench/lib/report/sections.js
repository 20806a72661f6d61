// Sections of the guide and the report that scenarios other than the verdicts contribute (fault
// and rollout drills, the published experiments), each rendered from results.json alone.
import { experimentSections } from './experiments.js';
import { renderDrills } from './drills.js';

// The report lives in docs/results/, the guide in docs/: the tutorials are one folder up from the report.
const drills = (doc, where) => (doc.cells.some((c) => c.kind === 'fault' || c.kind === 'rollout') ? renderDrills(doc, { docs: where === 'report' ? '../' : '' }) : []);
const RENDERERS = [drills, experimentSections];

export function extraSections(doc, where, charts = {}) {
  return RENDERERS.flatMap((render) => render(doc, where, charts));
}
