// The records of a folder, one a file (a strategy, a workload): the bench's own, then those of the
// same folder under BENCH_EXTRA_DIR, where a team keeps its own without editing the bench
// (harness/bench/README.md, "Add a strategy" and "Add a workload"). They load when the CLI starts,
// before it parses anything: a folder that isn't one, or a file that isn't a record, is one line
// and exit 2 there.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const jsFiles = (dir) =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'index.js').sort().map((f) => path.join(dir, f))
    : [];

function refuse(line) {
  process.stderr.write(`bench: BENCH_EXTRA_DIR: ${line}\n`);
  process.exit(2);
}

/**
 * The default export of every .js file but index.js in `dir` and in <extra>/<kind>, in their
 * `order` (the bench's own first where two share one); `id` names the field no two may share.
 * @param {string} dir @param {string} kind @param {string} id @param {string} [extra]
 */
export async function recordsIn(dir, kind, id, extra = process.env.BENCH_EXTRA_DIR) {
  if (extra && !fs.statSync(extra, { throwIfNoEntry: false })?.isDirectory()) refuse(`${extra} is not a folder`);
  const records = [];
  for (const f of [...jsFiles(dir), ...(extra ? jsFiles(path.resolve(extra, kind)) : [])]) {
    const r = (await import(pathToFileURL(f).href)).default;
    if (typeof r?.[id] !== 'string') refuse(`${f}: its default export is no ${kind} record (no "${id}")`);
    if (records.some((x) => x[id] === r[id])) refuse(`${f}: ${kind} "${r[id]}" is there already`);
    records.push(r);
  }
  const orderOf = (r) => (Number.isFinite(r.order) ? r.order : Number.MAX_VALUE);
  return records.sort((a, b) => orderOf(a) - orderOf(b));
}
