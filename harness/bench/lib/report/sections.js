// Sections of the guide and the report that scenarios other than the verdicts contribute (fault
// and rollout drills, the published experiments), each rendered from results.json alone.
import { experimentSections } from './experiments.js';
import { renderDrills } from './drills.js';
import { appMetricsSection } from './app-metrics.js';
import { drillCellsOf } from './drill-verdict.js';

// docsLink: the docs folder, relative to the page the section goes into.
const drills = (doc, where, charts, { docsLink }) =>
  drillCellsOf(doc).length ? renderDrills(doc, { docs: docsLink }) : [];
const experiments = (doc, where, charts) => experimentSections(doc, where, charts);
const RENDERERS = [drills, experiments, appMetricsSection];

/** @param {any} doc @param {string} where @param {object} [charts] @param {{ docsLink?: string }} [links] */
export function extraSections(doc, where, charts = {}, { docsLink = where === 'report' ? '../' : '' } = {}) {
  return RENDERERS.flatMap((render) => render(doc, where, charts, { docsLink }));
}
