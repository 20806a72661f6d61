// The x-bench description of an app (its compose.yaml's field), for a drill that was not handed
// one: what it POSTs and where its writes are kept. Compose reads `$$` as one `$` in every value
// of the file, x- fields included, so the description is read the same way.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const unescape = (v) => (typeof v === 'string' ? v.replaceAll('$$', '$')
  : Array.isArray(v) ? v.map(unescape)
    : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unescape(x)])) : v);

/** The x-bench field of <dir>/compose.yaml, `$$` read as `$`; throws one line when there is none. */
export function readApp(dir, name = path.basename(dir)) {
  const app = YAML.parse(fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf8'))?.['x-bench'];
  if (!app) throw new Error(`${name}/compose.yaml has no x-bench field: the drill can't tell what to send`);
  return unescape(app);
}

/** { name, app }: the run's sample name and its compose.yaml's x-bench field. */
export async function appOfRun(runner, runDir) {
  const state = await runner.readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (!state.sampleDir) throw new Error(`the run in ${runDir} names no sample folder: hand the drill the app's x-bench description`);
  return { name: state.sample, app: readApp(state.sampleDir, state.sample) };
}
