// Writes results.json, the SVG charts, report.md and the decision guide; for a whole run (or
// --from the committed results) also refreshes the numbers quoted in the docs.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { charts, toSvg } from './charts.js';
import { renderReport } from './markdown.js';
import { renderGuide } from './guide.js';
import { refreshDocs } from './refresh-docs.js';
import { sanitizeDoc } from './sanitize.js';
import { withPrices } from './cost.js';

// A link from a folder to a path, as Markdown wants it: relative, forward slashes, a trailing one for a folder.
const linkFrom = (dir, to, folder = false) =>
  `${path.relative(dir, to).split(path.sep).join('/')}${folder ? '/' : ''}`.replace(/^\/$/, '');

/** @param {object} doc @param {{ outDir: string, guidePath: string, repo: string, quoteDocs?: boolean }} options */
export async function writeOutputs(doc, { outDir, guidePath, repo, quoteDocs = false }) {
  await mkdir(outDir, { recursive: true });
  const files = [];
  const write = async (name, text) => {
    const f = path.join(outDir, name);
    await writeFile(f, text);
    files.push(f);
  };
  // Compact: a full run's slice histograms are 4 MB indented, 1.2 MB without (`jq .` reads it).
  await write('results.json', `${JSON.stringify(doc)}\n`);

  const drawn = {};
  for (const [file, { spec, scenario }] of Object.entries(charts(doc))) {
    await write(file, await toSvg(spec));
    drawn[file] = { title: spec.title, scenario };
  }
  const guideDir = path.dirname(guidePath);
  const docs = path.join(repo, 'docs');
  await write(
    'report.md',
    renderReport(doc, drawn, { guideLink: linkFrom(outDir, guidePath), docsLink: linkFrom(outDir, docs, true) }),
  );
  await mkdir(guideDir, { recursive: true });
  await writeFile(
    guidePath,
    renderGuide(doc, {
      reportLink: linkFrom(guideDir, path.join(outDir, 'report.md')),
      resultsLink: linkFrom(guideDir, path.join(outDir, 'results.json')),
      docsLink: linkFrom(guideDir, docs, true),
    }),
  );
  files.push(guidePath);
  if (quoteDocs) {
    const { changed, problems } = refreshDocs(repo, doc);
    files.push(...changed);
    for (const p of problems) process.stderr.write(`bench: quoted number: ${p}\n`);
  }
  return files;
}

/**
 * The report stage of both commands: `doc` kept free of machine paths and log lines, given the
 * reader's prices (or null), written to `folder` (run-setup.js resultsFolder()).
 * @param {object} doc @param {object | null} prices
 * @param {{ outDir: string, guidePath: string, repo: string, quoteDocs: boolean }} folder
 */
export async function writeResults(doc, prices, folder) {
  withPrices(sanitizeDoc(doc), prices);
  return writeOutputs(doc, folder);
}
