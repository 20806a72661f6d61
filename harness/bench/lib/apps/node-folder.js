// A Node service given as a folder (package.json and a start command) → a generated app folder the
// bench measures like a sample: compose.yaml whose app service runs harness/bench/wrap/start.js on
// the user's own start command (one process, the cluster module, PM2 or reusePort, by the knobs the
// strategies turn), the repository's nginx in front, launch.json (the command resolved), and an
// x-bench field (docs: docs/benchmark-your-own-service.md).
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from '../../../lib/repo-root.js';
import { AppInputError } from './errors.js';
import { startOf } from './start-command.js';
import { nginxService } from './nginx.js';

const START_JS = path.join(REPO_ROOT, 'harness', 'bench', 'wrap', 'start.js');
// The port the app is told in compose (PORT); locally the runner gives each process a free one.
const PORT = 3000;
// The frameworks a label can name, by the dependency that brings them (the first found wins).
const FRAMEWORKS = [
  ['@nestjs/core', 'NestJS'], ['fastify', 'Fastify'], ['koa', 'Koa'], ['@hapi/hapi', 'hapi'], ['hono', 'Hono'],
  ['restify', 'restify'], ['json-server', 'json-server'], ['express', 'Express'],
];

function readPackage(dir) {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AppInputError(`${file} is not valid JSON (${e.message}): fix it, or give START='node <file>'`);
  }
}

// The app's compose service: the launcher (START_JS) told where launch.json is and how many
// processes to run, its health asked on PORT.
function appService({ genDir, health, healthTimeoutS, clustering }) {
  return {
    environment: {
      PORT: String(PORT),
      BENCH_LAUNCH: path.join(genDir, 'launch.json'),
      BENCH_WORKERS: '${WORKERS:-}',
      BENCH_CLUSTERING: `\${CLUSTERING_ENABLED:-${clustering}}`,
      BENCH_PROCESS_MANAGER: '${PROCESS_MANAGER:-cluster}',
      BENCH_DRAIN_MS: '10000',
    },
    deploy: { replicas: '${REPLICAS:-1}', resources: { limits: { cpus: '${CPUS:-1}' } } },
    healthcheck: {
      test: ['CMD', 'wget', '-q', '-O', '/dev/null', `http://127.0.0.1:${PORT}${health}`],
      interval: '1s',
      timeout: '2s',
      retries: healthTimeoutS,
    },
    // Above the launchers' 10 s drain, so the runner doesn't SIGKILL mid-drain.
    stop_grace_period: '15s',
    restart: 'on-failure',
    'x-local': {
      command: ['node', START_JS],
      port_env: 'PORT',
      // The cluster primary's, PM2's and the reusePort launcher's rolling restart.
      reload_signal: 'SIGHUP',
      environment: { PM2_HOME: '{data}/pm2' },
    },
  };
}

/** Whether `dir` is a Node folder this adapter takes: a package.json, or a START command. */
export const isNodeFolder = (dir, start) => Boolean(start) || fs.existsSync(path.join(dir, 'package.json'));

/**
 * Writes the generated folder `genDir` for the Node folder `dir`; returns its x-bench description.
 * @param {{ dir: string, genDir: string, name: string, start?: string, health: string, requests: object[],
 *   reusePort?: boolean, healthTimeoutS?: number }} o
 */
export function nodeFolderApp({ dir, genDir, name, start, health, requests, reusePort = false, healthTimeoutS = 60 }) {
  const pkg = readPackage(dir) ?? {};
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if (Object.keys(pkg.dependencies ?? {}).length && !fs.existsSync(path.join(dir, 'node_modules'))) {
    throw new AppInputError(`${dir} has dependencies but no node_modules: run \`npm ci\` (or npm install) in it first`);
  }
  const launch = { name, ...startOf({ dir, start, pkg, port: PORT }) };
  const { forks } = launch;
  const managers = forks ? ['cluster', 'pm2', ...(reusePort ? ['reuseport'] : [])] : [];
  const notes = [];
  if (!forks) {
    notes.push(`cluster, PM2 and reusePort skipped: ${launch.why}; it runs as one process and as replicas`);
  } else if (!reusePort) {
    notes.push('reusePort skipped: the app has not opted in; once it listens with '
      + 'server.listen({ port, reusePort: true }) (Node >= 22.12), add REUSE_PORT=1');
  }
  for (const hook of ['prestart', 'poststart'].filter((h) => !start && pkg.scripts?.[h])) {
    notes.push(`package.json's "${hook}" script is not run: the bench runs only the start script `
      + '(run your build before the bench)');
  }

  fs.mkdirSync(genDir, { recursive: true });
  fs.writeFileSync(path.join(genDir, 'launch.json'), `${JSON.stringify(launch, null, 2)}\n`);
  const xbench = {
    app: 'app',
    proxy: 'nginx',
    runtime: 'node',
    framework: FRAMEWORKS.find(([dep]) => deps[dep])?.[1] ?? 'node',
    name,
    health,
    knobs: {
      instances: 'REPLICAS', cpus: 'CPUS', clustering: 'CLUSTERING_ENABLED', lb: 'LB',
      ...(forks ? { workers: 'WORKERS', process_manager: 'PROCESS_MANAGER' } : {}),
    },
    ...(forks ? { process_managers: managers } : {}),
    strategies: ['one-process', ...managers, 'replicas'],
    baseline: true,
    defaults: {
      LB: 'least_conn', WORKERS: '', CLUSTERING_ENABLED: forks ? 'true' : 'false', REPLICAS: '1',
      PROCESS_MANAGER: 'cluster',
    },
    // V8 optimises each process on its own: seconds of load per process sharing a CPU before its
    // rate is steady (the samples' figure for an Express process).
    warmup_min_s: { process_per_cpu: 10 },
    workloads: {},
    requests,
    post: null,
    writes: null,
    engines: ['processes'],
  };
  const compose = {
    services: {
      app: appService({ genDir, health, healthTimeoutS, clustering: xbench.defaults.CLUSTERING_ENABLED }),
      nginx: nginxService(genDir, { app: 'app', port: PORT, healthy: true }),
    },
    'x-bench': xbench,
  };
  const header = `# Generated by \`make bench APP=${dir}\` (harness/bench/lib/apps/node-folder.js) `
    + `from ${launch.said}:\n`
    + `#   ${launch.script.replaceAll('\n', '\n#   ')}\n`
    + '# Run by the local runner; the app\'s code is not changed or copied (launch.json).\n';
  fs.writeFileSync(path.join(genDir, 'compose.yaml'), header + YAML.stringify(compose, { lineWidth: 0 }));
  return { xbench, notes, launch };
}
