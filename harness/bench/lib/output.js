// Writes results.json, the SVG charts, report.md and the decision guide; for a whole run (or
// --from the committed results) also refreshes the numbers quoted in the docs.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { charts, toSvg } from './report/charts.js';
import { renderReport } from './report/markdown.js';
import { renderGuide } from './report/guide.js';
import { refreshDocs } from './report/quotes.js';

/** @param {object} doc @param {{ outDir: string, guidePath: string, repo?: string, quoteDocs?: boolean }} options */
export async function writeOutputs(doc, { outDir, guidePath, repo, quoteDocs = false }) {
  await mkdir(outDir, { recursive: true });
  const files = [];
  const write = async (name, text) => { const f = path.join(outDir, name); await writeFile(f, text); files.push(f); };
  // Compact: a full run's slice histograms are 4 MB indented, 1.2 MB without (`jq .` reads it).
  await write('results.json', `${JSON.stringify(doc)}\n`);

  const drawn = {};
  for (const [file, { spec, scenario }] of Object.entries(charts(doc))) {
    await write(file, await toSvg(spec));
    drawn[file] = { title: spec.title, scenario };
  }
  const guideRel = path.relative(outDir, guidePath);
  const reportRel = path.relative(path.dirname(guidePath), path.join(outDir, 'report.md'));
  const resultsRel = path.relative(path.dirname(guidePath), path.join(outDir, 'results.json'));
  await write('report.md', renderReport(doc, drawn, { guideLink: guideRel }));
  await mkdir(path.dirname(guidePath), { recursive: true });
  await writeFile(guidePath, renderGuide(doc, { reportLink: reportRel, resultsLink: resultsRel }));
  files.push(guidePath);
  if (quoteDocs && repo) {
    const { changed, problems } = refreshDocs(repo, doc);
    files.push(...changed);
    for (const p of problems) process.stderr.write(`bench: quoted number: ${p}\n`);
  }
  return files;
}
