// From a compose service to what the runner starts: loopback ports for every instance, and each
// instance's program, arguments, working folder and environment (placeholders filled, service
// addresses rewritten to loopback ports, nginx's config rendered).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { freePort, ensureFree } from '../../lib/ports.js';
import { localSecrets } from './secrets.js';
import { renderNginx, nginxArgs, testConfig } from './nginx.js';
import { renderPrometheus } from './prometheus.js';
import { nginxBinary } from '../../lib/nginx-binary.js';

export const NODE24 = path.join(REPO_ROOT, 'harness', 'node_modules', '.bin', 'node');

/** PATH for every program the runner starts: Node 24 first, then the repository's own tools. */
export function toolPath() {
  const tools = path.join(REPO_ROOT, '.tools');
  const extra = fs.existsSync(tools)
    ? fs.readdirSync(tools).map((d) => path.join(tools, d, 'bin')).filter((d) => fs.existsSync(d)) : [];
  return [path.dirname(NODE24), ...extra, process.env.PATH].join(':');
}

/** `node` means Node 24 from harness/; anything else is looked up as given. */
export const resolveCommand = (command) => (command === 'node' && fs.existsSync(NODE24) ? NODE24 : command);

function onPath(command, cwd) {
  if (command.includes('/')) return fs.existsSync(path.resolve(cwd, command));
  return toolPath().split(':').some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

export function fillPlaceholders(text, ctx) {
  const pattern = /\{(port|index|data|run|services\.([\w-]+)\.port|services\.([\w-]+)\.listen\.(\d+))\}/g;
  return String(text).replace(pattern, (whole, key, svc, listener, container) => {
    // {services.nginx.listen.8081}: the loopback port of a port the service listens on (published or exposed).
    if (listener) {
      const port = ctx.listen?.[listener]?.[container];
      if (port === undefined) {
        throw new Error(`{services.${listener}.listen.${container}}: service '${listener}' is not part of this run, `
          + `or does not listen on ${container}`);
      }
      return String(port);
    }
    if (svc) {
      const port = ctx.ports[svc]?.[0];
      if (port === undefined) throw new Error(`{services.${svc}.port}: service '${svc}' is not part of this run`);
      return String(port);
    }
    return String(ctx[key]);
  });
}

// `mongo:27017` in a value means "that service" in compose; locally it is a loopback port.
function rewriteServiceAddresses(value, ports) {
  return String(value).replace(/(^|[^\w.-])([\w-]+):(\d+)(?!\d)/g, (whole, lead, host) =>
    (ports[host]?.length ? `${lead}127.0.0.1:${ports[host][0]}` : whole));
}

/** { ports: { service: [port per instance] }, listen: { service: { containerPort: hostPort } } } */
export async function assignPorts(topology, order) {
  const ports = {};
  const listen = {};
  for (const name of order) {
    const svc = topology.services[name];
    if (svc.local.skip) continue;
    if (svc.ports.length && svc.replicas > 1)
      throw new Error(`${name}: a published port can't be shared by ${svc.replicas} replicas`);
    ports[name] = [];
    listen[name] = {};
    for (let i = 0; i < svc.replicas; i += 1) {
      if (svc.ports.length) {
        for (const { host, container } of svc.ports) {
          const port = host === 0 ? await freePort() : host;
          if (host !== 0)
            await ensureFree(port, 'pick another with HTTP_PORT=<port>, or stop what holds it (make down?)');
          listen[name][container] = port;
        }
        ports[name].push(Object.values(listen[name])[0]);
        for (const container of svc.expose ?? []) listen[name][container] ??= await freePort();
      } else {
        ports[name].push(await freePort());
      }
    }
  }
  return { ports, listen };
}

/**
 * x-local.extra_ports_env: the variables naming other ports an instance listens on (a metrics
 * port): a free loopback port for each, per instance, as instanceSpec's ctx.extraPorts wants them.
 * @param {any} svc @returns {Promise<Record<string, number>>}
 */
export async function extraPortsOf(svc) {
  const names = svc.local?.extra_ports_env ?? [];
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await freePort()])));
}

/**
 * What to run for instance `index` of `svc`: { name, command, args, cwd, env, extraPorts }.
 * ctx: { ports, listen, run, port, index, data, extraPorts? }. `sample` is { sample, dir }.
 */
export function instanceSpec(sample, svc, index, ctx, runDir) {
  const name = `${sample.sample}-${svc.name}-${index}`;
  const fill = (v) => fillPlaceholders(v, ctx);
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(svc.environment)) env[k] = rewriteServiceAddresses(v, ctx.ports);
  for (const [k, v] of Object.entries(svc.local.environment)) {
    // A variable naming a service that is not part of this run (services + noDeps) is left unset.
    try { env[k] = fill(v); } catch (err) { if (!/is not part of this run/.test(err.message)) throw err; }
  }
  env.INSTANCE_NAME = name;
  Object.assign(env, localSecrets(sample, svc.name, env));
  if (svc.local.nginx) {
    const rendered = renderNginx({ svc, runDir, upstreamPorts: ctx.ports, listenPorts: ctx.listen[svc.name] });
    testConfig(rendered, runDir);
    return {
      name,
      command: nginxBinary(),
      args: [...nginxArgs(rendered, runDir), '-g', 'daemon off;'],
      cwd: rendered.prefix,
      env,
    };
  }
  if (svc.local.prometheus) {
    const args = renderPrometheus({ svc, runDir, port: ctx.port, data: ctx.data });
    if (!onPath('prometheus', sample.dir)) {
      throw new Error(`${svc.name}: Prometheus is not installed (not on PATH): apt-get install prometheus`);
    }
    return { name, command: 'prometheus', args, cwd: sample.dir, env };
  }
  if (!svc.local.command)
    throw new Error(
      `${svc.name}: no x-local.command in compose.yaml or compose.lab.yaml, so it can't run without Docker`,
    );
  env[svc.local.port_env] = String(ctx.port);
  const extraPorts = ctx.extraPorts ?? {};
  for (const [name, port] of Object.entries(extraPorts)) env[name] = String(port);
  const [command, ...args] = svc.local.command.map(fill);
  const resolved = resolveCommand(command);
  if (!onPath(resolved, sample.dir)) {
    throw new Error(
      `${svc.name}: its local program '${command}' is not installed (not on PATH); see ${sample.sample}/README.md`,
    );
  }
  return { name, command: resolved, args, cwd: sample.dir, env, extraPorts };
}

/** The loopback ports of every service of a running state, as instanceSpec's ctx wants them. */
export function portsOf(state) {
  return Object.fromEntries(Object.entries(state.services)
    .filter(([, entry]) => !entry.skipped)
    .map(([name, entry]) => [name, entry.instances.map((i) => i.port)]));
}
