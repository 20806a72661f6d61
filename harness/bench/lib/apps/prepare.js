// `make bench APP=…`: a user's service → a generated app folder the bench measures as it measures
// the samples (a compose.yaml with an x-bench field, docs/benchmark-your-own-service.md).
//   a Node folder (package.json + a start command, or START=…)  → node-folder.js, local processes
//   a folder with compose.yaml (build: or image:, any language) → container.js, the Docker engine
// All bad input is found here, each as one line naming what is wrong and how to fix it
// (AppInputError: the CLI exits 2), and nothing is left running or written.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../lib/repo-root.js';
import { AppInputError } from './errors.js';
import { DEFAULT_REQUESTS, parsePaths } from './requests.js';
import { isNodeFolder, nodeFolderApp } from './node-folder.js';
import { composeFileOf, containerApp, ownDescription } from './container.js';
import { checkApp } from './check.js';
import { attempt } from '../../wrap/listening.js';

export const APPS_DIR = path.join(REPO_ROOT, '.run', 'bench', 'apps');

// A name for folders, ids and Compose projects: the package's (without its scope), else the folder's.
function nameOf(dir) {
  const raw = attempt(() => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
    .name?.split('/').at(-1), '') || path.basename(dir);
  return raw.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'app';
}

function kindOf(dir, { engine, start }) {
  if (engine && !['docker', 'processes'].includes(engine)) {
    throw new AppInputError(`ENGINE=${engine} is not an engine: use docker or processes`);
  }
  const compose = composeFileOf(dir);
  const node = isNodeFolder(dir, start);
  if (node && engine !== 'docker') return 'node';
  if (compose && engine !== 'processes') return 'container';
  if (node) {
    throw new AppInputError(`${dir} is a Node folder without a compose.yaml: run it with ENGINE=processes, `
      + 'or add a compose.yaml with build: to run it on Docker');
  }
  if (compose) {
    throw new AppInputError(`${dir} is a container app (${compose}, no package.json): run it with ENGINE=docker`);
  }
  throw new AppInputError(`${dir} has no start command, no compose file and no package.json: `
    + 'give START=\'node server.js\', add a package.json with a "start" script, '
    + 'or a compose.yaml whose service has build: or image:');
}

const GIVE_FOLDER = 'give the folder of your service (the one with its package.json or compose.yaml)';

// The options checked before anything is written: the folder, its kind, and the requests asked.
function checkInput({ app, paths, health, start, engine, service, reusePort, cwd }) {
  if (!app) throw new AppInputError('APP is empty: give the folder of your service, e.g. make bench APP=../my-api');
  const dir = path.resolve(cwd, app);
  if (!fs.existsSync(dir)) throw new AppInputError(`APP=${app}: ${dir} does not exist: ${GIVE_FOLDER}`);
  if (!fs.statSync(dir).isDirectory()) throw new AppInputError(`APP=${app}: ${dir} is a file: ${GIVE_FOLDER}`);
  if (health !== undefined && !/^\/\S*$/.test(health)) {
    throw new AppInputError(`HEALTH=${health}: a health path starts with / and has no spaces, e.g. HEALTH=/health`);
  }
  const requests = paths === undefined ? undefined : parsePaths(paths, { cwd });
  const kind = kindOf(dir, { engine, start });
  if (kind === 'container' && start) {
    throw new AppInputError('START is for a Node folder: a container app starts as its compose.yaml says');
  }
  if (kind === 'container' && reusePort) {
    throw new AppInputError('REUSE_PORT is for a Node folder run as processes: '
      + 'a container app is measured as one container against replicas');
  }
  if (kind === 'node' && service) {
    throw new AppInputError('SERVICE names a service of a compose.yaml: a Node folder has one app');
  }
  return { dir, kind, requests };
}

/**
 * The generated app folder for the service in `app`, its x-bench description, and (check, the
 * default) the service started once and checked: healthy, every request below 400.
 * Returns { name, kind, engine, source, dir (the generated folder, a "sample" for the runner and the
 * bench), out (the run's own output folder), description (x-bench), notes (skipped strategies, one line
 * each) }.
 * @param {{ app: string, paths?: string, health?: string, start?: string, engine?: string, service?: string,
 *   reusePort?: boolean, out?: string, cwd?: string, check?: boolean, healthTimeoutS?: number,
 *   log?: (line: string) => void }} options
 * @returns {Promise<{ name: string, kind: string, engine: string, source: string, dir: string, out: string,
 *   description: Record<string, any>, notes: string[] }>}
 */
export async function prepareApp({
  app, paths, health, start, engine, service, reusePort = false, out, cwd = process.cwd(), check = true,
  healthTimeoutS = 60, log = () => {},
}) {
  const { dir, kind, requests } = checkInput({ app, paths, health, start, engine, service, reusePort, cwd });
  const name = nameOf(dir);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.resolve(out ?? path.join(APPS_DIR, `${name}-${stamp}`));
  if (!path.relative(path.join(REPO_ROOT, 'docs'), outDir).startsWith('..')) {
    throw new AppInputError(`--out ${outDir}: your service's results never go to docs/ `
      + '(the samples\' results live there); leave --out out, or choose a folder outside docs/');
  }
  const genDir = path.join(outDir, name);
  if (fs.existsSync(path.join(genDir, 'compose.yaml'))) {
    throw new AppInputError(`${genDir} already holds a generated app: choose another --out`);
  }
  const fresh = !fs.existsSync(outDir);
  fs.mkdirSync(genDir, { recursive: true });
  try {
    // A Node folder may have its own compose.yaml: its healthcheck's path and x-bench requests count.
    const own = kind === 'node' ? ownDescription(dir) : {};
    const generated = kind === 'node'
      ? nodeFolderApp({
        dir, genDir, name, start, health: health ?? own.health ?? '/',
        requests: requests ?? own.requests ?? DEFAULT_REQUESTS, reusePort, healthTimeoutS,
      })
      : containerApp({ dir, genDir, name, service, health, requests });
    const prepared = {
      name, kind, engine: kind === 'node' ? 'processes' : 'docker', source: dir, dir: genDir, out: outDir,
      description: generated.xbench, notes: generated.notes,
    };
    if (check) await checkApp(prepared, { log, healthTimeoutS });
    return prepared;
  } catch (err) {
    // Bad input leaves nothing behind but the log of a check that started the app (its message
    // names it); what else this call wrote goes (its check run is down by now).
    const checkDir = path.join(outDir, 'check');
    const logs = fs.existsSync(path.join(checkDir, 'logs')) && fs.readdirSync(path.join(checkDir, 'logs')).length;
    const besideLogs = logs ? fs.readdirSync(checkDir).filter((f) => f !== 'logs') : [];
    const written = fresh && !logs ? [outDir] : [genDir, path.join(outDir, 'check-reuseport')];
    for (const d of [...written, ...besideLogs.map((f) => path.join(checkDir, f))]) {
      fs.rmSync(d, { recursive: true, force: true });
    }
    throw err;
  }
}
