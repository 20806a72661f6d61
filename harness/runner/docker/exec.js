// exec() on Docker: `docker compose exec -T` of argv in one container of a service, `{port}` in
// argv being the port the service listens on inside its container.
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { runCommand } from '../common/command.js';
import { composeArgv, docker, envOf, findContainer, sampleConfig } from './project.js';
import { containerPort } from './override.js';
import { recordOf } from './record.js';

// The port the service listens on in its container: its own (override.js: PORT, or its
// healthcheck's URL), else the one its compose ports target, else the one its image exposes.
function portInContainer(record, service, id) {
  const svc = sampleConfig(record).services?.[service] ?? {};
  const own = containerPort(svc) ?? svc.ports?.[0]?.target;
  if (own) return Number(own);
  const res = docker(record, ['inspect', '--format', '{{json .Config.ExposedPorts}}', id], { check: false });
  const exposed = Object.keys(JSON.parse(res.stdout || 'null') ?? {}).map((p) => Number(p.split('/')[0]));
  if (exposed.length === 1) return exposed[0];
  throw new Error(`${service}: which port is {port}? it exposes ${exposed.length ? exposed.join(', ') : 'none'}`);
}

/** @param {import('../common/contract.js').ExecOptions} options */
export async function exec({ runDir = DEFAULT_RUN_DIR, service, index = 1, argv, timeoutMs = 60_000 }) {
  const record = recordOf(runDir);
  const c = findContainer(record, service, index);
  if (!c.running) throw new Error(`${c.name} is not running (${c.status})`);
  const port = argv.some((a) => a.includes('{port}')) ? String(portInContainer(record, service, c.id)) : '';
  const args = composeArgv(record, ['exec', '-T', '--index', String(c.index), service,
    ...argv.map((a) => a.replaceAll('{port}', port))]);
  return runCommand('docker', args, { cwd: record.sampleDir, env: envOf(record), timeoutMs });
}
