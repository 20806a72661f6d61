// Writes results.json, the SVG charts, report.md and the decision guide.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chartSpecs, experimentSpec, toSvg } from './report/charts.js';
import { experiments } from './report/experiments.js';
import { renderReport } from './report/markdown.js';
import { renderGuide } from './report/guide.js';

const SCENARIO_OF_CHART = {
  'matrix-throughput.svg': 'matrix', 'matrix-p99.svg': 'matrix', 'cpu-budget.svg': 'cpu-budget',
  'openloop.svg': 'openloop', 'fault-drill.svg': 'fault-drill',
};

export async function writeOutputs(doc, { outDir, guidePath }) {
  await mkdir(outDir, { recursive: true });
  const files = [];
  const write = async (name, text) => { const f = path.join(outDir, name); await writeFile(f, text); files.push(f); };
  await write('results.json', `${JSON.stringify(doc, null, 2)}\n`);

  const charts = [];
  for (const [file, spec] of Object.entries(chartSpecs(doc.results))) {
    await write(file, await toSvg(spec));
    charts.push({ file, title: spec.title, scenario: SCENARIO_OF_CHART[file] });
  }
  for (const exp of experiments(doc.results)) {
    if (!exp.chart) continue;
    const rows = exp.rows.filter((r) => Number.isFinite(r.ours));
    if (rows.length === 0) continue;
    const file = `${exp.id}.svg`;
    const what = exp.id === 'exp-node-scale' ? 'highest rate with p99 < 500 ms, req/s' : 'req/s';
    const title = exp.rows.some((r) => r.published) ? `Published figure beside ours (${what})` : `Ours (${what})`;
    await write(file, await toSvg(experimentSpec(title, rows)));
    charts.push({ file, title, scenario: exp.id });
  }

  const guideRel = path.relative(outDir, guidePath);
  const reportRel = path.relative(path.dirname(guidePath), path.join(outDir, 'report.md'));
  const resultsRel = path.relative(path.dirname(guidePath), path.join(outDir, 'results.json'));
  await write('report.md', renderReport(doc, charts, { guideLink: guideRel }));
  await mkdir(path.dirname(guidePath), { recursive: true });
  await writeFile(guidePath, renderGuide(doc, { reportLink: reportRel, resultsLink: resultsRel }));
  files.push(guidePath);
  return files;
}
