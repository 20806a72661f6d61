// The Docker Swarm deployment of a sample: compose.yaml with compose.swarm.yaml on top, as
// `docker stack deploy -c compose.yaml -c compose.swarm.yaml` merges them. Docker Compose v2
// validates the merge against the compose schema, Swarm's `deploy:` fields included; then the
// settings Swarm needs are checked on the merged file (harness/test/docker/ deploys it for real).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { problem } from './problems.js';

export const SWARM_FILE = 'compose.swarm.yaml';

function has(doc, dotted) {
  let node = doc;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

// docker compose config on the two files, with .env.example for the variables (as in the
// compose check of harness/test/configs.test.js).
// Swarm drops a service's tmpfs: list (compose.swarm.yaml mounts those folders as tmpfs volumes
// instead): a third file, on standard input, resets it as Swarm does, so Compose does not see the
// same folder mounted twice.
function swarmDrops(sampleDir) {
  const base = YAML.parse(fs.readFileSync(path.join(sampleDir, 'compose.yaml'), 'utf8')) ?? {};
  const names = Object.entries(base.services ?? {}).filter(([, svc]) => svc?.tmpfs).map(([name]) => name);
  return names.length ? `services:\n${names.map((n) => `  ${n}:\n    tmpfs: !reset []\n`).join('')}` : '';
}

export function mergeSwarm(sampleDir) {
  const envExample = path.join(sampleDir, '.env.example');
  const drops = swarmDrops(sampleDir);
  const args = [
    '-f',
    'compose.yaml',
    '-f',
    SWARM_FILE,
    ...(drops ? ['-f', '-'] : []),
    ...(fs.existsSync(envExample) ? ['--env-file', '.env.example'] : []),
    'config',
  ];
  const res = spawnSync('docker', ['compose', ...args], {
    cwd: sampleDir,
    encoding: 'utf8',
    timeout: 60_000,
    input: drops || undefined,
  });
  if (res.error) throw new Error(`docker compose could not run: ${res.error.message}`);
  if (res.status !== 0) {
    // Compose v2: "validating <file>: services.app.deploy.update_config.order value must be one of ..."
    const lines = res.stderr.split('\n').map((l) => l.replace(/^.*?validating [^:]+: /, '').trim());
    return {
      errors: lines.filter((l) => /^(services|secrets|configs|volumes|networks)\.\S+/.test(l)),
      stderr: res.stderr,
    };
  }
  return { merged: YAML.parse(res.stdout) };
}

export function checkSwarm({ sample, sampleDir, desc, oneShot = [] }) {
  const rel = (f) => path.join(sample, f);
  if (!fs.existsSync(path.join(sampleDir, SWARM_FILE))) return [problem(rel(SWARM_FILE), '(file)', 'is missing')];
  const own = YAML.parse(fs.readFileSync(path.join(sampleDir, SWARM_FILE), 'utf8')) ?? {};
  const where = (field) => (has(own, field) ? rel(SWARM_FILE) : rel('compose.yaml'));
  const { merged, errors, stderr } = mergeSwarm(sampleDir);
  if (!merged) {
    if (!errors.length) return [problem(rel(SWARM_FILE), '(docker compose config)', stderr.trim().split('\n').at(-1))];
    return errors.map((line) => {
      const [field, ...rest] = line.split(' ');
      return problem(where(field), field, rest.join(' '));
    });
  }
  const out = [];
  const at = (field, message) => out.push(problem(rel(SWARM_FILE), field, message));
  const services = merged.services ?? {};
  for (const [name, svc] of Object.entries(services)) {
    const deploy = svc.deploy ?? {};
    if (!svc.image) at(`services.${name}.image`, 'Swarm ignores build: the service needs an image');
    const condition = deploy.restart_policy?.condition;
    if (oneShot.includes(name)) {
      if (!['on-failure', 'none'].includes(condition))
        at(
          `services.${name}.deploy.restart_policy.condition`,
          'a one-shot job must not restart once it succeeded: on-failure',
        );
    } else if (!['any', 'on-failure'].includes(condition)) {
      at(`services.${name}.deploy.restart_policy.condition`, 'a long-running service needs a restart policy (any)');
    }
    const namedVolumes = (svc.volumes ?? []).filter((v) =>
      typeof v === 'object' ? v.type === 'volume' : !String(v).startsWith('/'),
    );
    const bindMounts = (svc.volumes ?? []).filter((v) =>
      typeof v === 'object' ? v.type === 'bind' : String(v).startsWith('/'),
    );
    if (namedVolumes.length && deploy.update_config?.order === 'start-first') {
      at(
        `services.${name}.deploy.update_config.order`,
        'start-first would run two tasks on one data volume: stop-first',
      );
    }
    if ((namedVolumes.length || bindMounts.length) && !(deploy.placement?.constraints ?? []).length) {
      at(`services.${name}.deploy.placement.constraints`, 'its volumes live on one node: pin the service to it');
    }
    // nginx balances over the service named in NGINX_UPSTREAM: it must see one address per replica.
    const upstream = /^([\w-]+):\d+$/.exec(svc.environment?.NGINX_UPSTREAM ?? '')?.[1];
    if (upstream && services[upstream]?.deploy?.endpoint_mode !== 'dnsrr') {
      at(
        `services.${upstream}.deploy.endpoint_mode`,
        `must be dnsrr: with ${services[upstream]?.deploy?.endpoint_mode ?? 'the default vip'} nginx sees one ` +
          `virtual IP, not the replicas`,
      );
    }
  }
  const appDeploy = services[desc.app.composeService]?.deploy ?? {};
  if (appDeploy.update_config?.order !== 'start-first') {
    at(
      `services.${desc.app.composeService}.deploy.update_config.order`,
      'must be start-first: the new task is healthy before an old one stops',
    );
  }
  // Compose v2 leaves out secrets no service uses: the file's own are checked too.
  for (const [name, secret] of Object.entries({ ...own.secrets, ...merged.secrets })) {
    if (!desc.swarm.secrets.includes(name))
      at(`secrets.${name}`, `is not one of this sample's secrets (${desc.swarm.secrets.join(', ') || 'none'})`);
    else if (secret.file && path.relative(path.join(sampleDir, 'secrets'), secret.file) !== `${name}.txt`) {
      at(`secrets.${name}.file`, `must be secrets/${name}.txt (git-ignored)`);
    }
  }
  return out;
}
