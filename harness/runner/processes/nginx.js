// Renders a sample's nginx configuration for loopback: what the official image would give the
// container (templates envsubst-ed into conf.d), with service names replaced by local instances.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { childPids, isAlive } from '../../lib/processes.js';
import { nginxBinary } from '../../lib/nginx-binary.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { passiveCheckMs } from '../common/nginx-params.js';

const SYSTEM_NGINX_DIR = '/etc/nginx';
const NOBODY = 65534;

// The image's envsubst replaces only variables that are defined in the container's environment.
export function envsubst(text, env) {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, a, b) => (env[a ?? b] !== undefined ? env[a ?? b] : whole));
}

function copyTree(src, dst) {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.cpSync(src, dst, { recursive: true, dereference: true });
}

// upstream blocks: `server <service>:<port> [params];` -> one loopback server per instance.
function expandUpstreams(text, upstreamPorts) {
  return text.replace(/(upstream\s+[\w.-]+\s*\{)([^}]*)(\})/g, (block, open, body, close) => {
    const lines = body.replace(/^(\s*)server\s+([\w.-]+):(\d+)([^;]*);/gm, (line, indent, host, port, params) => {
      const ports = upstreamPorts[host];
      if (!ports) return line;
      if (ports.length === 0) throw new Error(`nginx upstream names service '${host}', which has no running instance`);
      const kept = params.split(/\s+/).filter((p) => p && p !== 'resolve' && !p.startsWith('service=')).join(' ');
      return ports.map((p) => `${indent}server 127.0.0.1:${p}${kept ? ` ${kept}` : ''};`).join('\n');
    });
    return open + lines + close;
  });
}

function rewriteForLoopback(text, { root, runDir, listenPorts, upstreamPorts }) {
  let out = text
    .replace(/^\s*user\s+[^;]+;/gm, '# (local run) user dropped')
    .replace(/^\s*resolver(_timeout)?\s+[^;]*;/gm, '# (local run) resolver dropped: local upstreams are addresses')
    .replace(/^(\s*)pid\s+[^;]+;/gm, `$1pid ${path.join(runDir, 'nginx.pid')};`)
    .replace(/^(\s*)error_log\s+\S+/gm, `$1error_log ${path.join(runDir, 'logs', 'nginx-error.log')}`)
    .replace(/^(\s*)access_log\s+(?!off)\S+/gm, `$1access_log ${path.join(runDir, 'logs', 'nginx-access.log')}`)
    .replace(/^(\s*)listen\s+\[::\][^;]*;/gm, '$1# (local run) IPv6 listen dropped')
    .replace(/^(\s*)listen\s+(?:[\d.]+:|\*:)?(\d+)([^;]*);/gm, (line, indent, port, rest) => {
      const host = listenPorts[port];
      if (host === undefined) {
        throw new Error(`nginx listens on ${port}, which the compose file neither publishes nor exposes`);
      }
      return `${indent}listen 127.0.0.1:${host}${rest};`;
    })
    .replaceAll(`${SYSTEM_NGINX_DIR}/`, `${root}/`);
  out = expandUpstreams(out, upstreamPorts);
  return out;
}

// Temp folders nginx would otherwise create under its compiled-in prefix.
function tempPaths(runDir) {
  const tmp = path.join(runDir, 'nginx-tmp');
  return ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `    ${kind}_temp_path ${path.join(tmp, kind)};`).join('\n');
}

/**
 * Renders into <runDir>/nginx and returns { prefix, conf }.
 * svc: the nginx service (volumes, environment, ports); upstreamPorts: { service: [ports] }.
 * The files are written to a folder beside it first and swapped in at once, so a running nginx
 * (re-rendered for a rolling update) never reads half a configuration.
 */
export function renderNginx({ svc, runDir, upstreamPorts, listenPorts }) {
  const root = path.join(runDir, 'nginx');
  const staging = `${root}.next`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(path.join(staging, 'conf.d'), { recursive: true });
  fs.mkdirSync(path.join(runDir, 'logs'), { recursive: true });
  // Run as root, nginx's workers switch to `nobody`: they must reach and write the temp folders
  // (request bodies over 16 kB are buffered there).
  fs.chmodSync(runDir, 0o755);
  for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    const dir = path.join(runDir, 'nginx-tmp', kind);
    fs.mkdirSync(dir, { recursive: true });
    if (process.getuid?.() === 0) fs.chownSync(dir, NOBODY, NOBODY);
  }
  // The container's /etc/nginx: Debian's defaults (mime.types...) overlaid with the compose mounts.
  if (fs.existsSync(path.join(SYSTEM_NGINX_DIR, 'mime.types'))) {
    fs.copyFileSync(path.join(SYSTEM_NGINX_DIR, 'mime.types'), path.join(staging, 'mime.types'));
  }
  let templates;
  for (const { src, dst } of svc.volumes) {
    if (!dst.startsWith(`${SYSTEM_NGINX_DIR}/`) && dst !== SYSTEM_NGINX_DIR) continue;
    if (dst.replace(/\/$/, '') === `${SYSTEM_NGINX_DIR}/templates`) { templates = src; continue; }
    copyTree(src, path.join(staging, path.relative(SYSTEM_NGINX_DIR, dst)));
  }
  if (templates) {
    for (const file of fs.readdirSync(templates).filter((f) => f.endsWith('.template'))) {
      const text = envsubst(fs.readFileSync(path.join(templates, file), 'utf8'), svc.environment);
      fs.writeFileSync(path.join(staging, 'conf.d', file.replace(/\.template$/, '')), text);
    }
  }
  if (!fs.existsSync(path.join(staging, 'nginx.conf'))) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`${svc.name}: no nginx.conf mounted at /etc/nginx/nginx.conf in compose.yaml`);
  }
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(staging).filter((f) => f.endsWith('.conf'))) {
    // Paths name the final folder, not the staging one.
    let text = rewriteForLoopback(fs.readFileSync(file, 'utf8'), { root, runDir, listenPorts, upstreamPorts });
    if (path.basename(file) === 'nginx.conf' && path.dirname(file) === staging) {
      text = text.replace(/(^\s*http\s*\{)/m, `$1\n${tempPaths(runDir)}`);
      if (!/^\s*pid\s/m.test(text)) text = `pid ${path.join(runDir, 'nginx.pid')};\n${text}`;
    }
    fs.writeFileSync(file, text);
  }
  const old = `${root}.old`;
  fs.rmSync(old, { recursive: true, force: true });
  if (fs.existsSync(root)) fs.renameSync(root, old);
  fs.renameSync(staging, root);
  fs.rmSync(old, { recursive: true, force: true });
  return { prefix: root, conf: path.join(root, 'nginx.conf') };
}

export function nginxArgs({ prefix, conf }, runDir) {
  return ['-p', prefix, '-c', conf, '-e', path.join(runDir, 'logs', 'nginx-error.log')];
}

// `nginx -t` on a rendered configuration; throws with nginx's own message on failure.
export function testConfig(rendered, runDir) {
  try {
    return execFileSync(nginxBinary(), [...nginxArgs(rendered, runDir), '-t'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw new Error(
      `nginx -t failed: ${
        (err.stderr || err.message)
          .trim()
          .split('\n')
          .filter((l) => /emerg|error/.test(l))
          .join('; ') || err.stderr
      }`,
      { cause: err },
    );
  }
}

/**
 * `nginx -s reload` for the master `pid`, waited on: resolves once new workers run the new
 * configuration and the old ones have finished their requests and exited (at most `drainMs`;
 * after that it resolves with { oldWorkersLeft }).
 */
export async function reloadNginx(pid, { drainMs = 30_000 } = {}) {
  const before = new Set(childPids(pid));
  process.kill(pid, 'SIGHUP');
  const started = Date.now();
  for (;;) {
    if (!isAlive(pid)) throw new Error(`nginx (pid ${pid}) exited during a reload: see logs/nginx-error.log`);
    const now = childPids(pid);
    const fresh = now.filter((p) => !before.has(p));
    const old = now.filter((p) => before.has(p));
    if (fresh.length && !old.length) return { oldWorkersLeft: 0 };
    if (!fresh.length && Date.now() - started > 10_000)
      throw new Error('nginx started no new worker after a reload: see logs/nginx-error.log');
    if (Date.now() - started > drainMs) return { oldWorkersLeft: old.length };
    await sleep(20);
  }
}

/** The server configuration rendered in runDir (its conf.d files, one text), or '' before any. */
export function renderedConf(runDir) {
  const dir = path.join(runDir, 'nginx', 'conf.d');
  if (!fs.existsSync(dir)) return '';
  return fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

/**
 * How long after an upstream server last failed nginx may still skip it: its passive check keeps a
 * server out for fail_timeout (default 10 s; never with max_fails=0), counted in whole seconds
 * (ngx_time()), so a server that failed last at T is certainly back in rotation at
 * T + fail_timeout + 1 s. Read from the configuration rendered in runDir for that server's port.
 */
export function readmissionMs(runDir, port) {
  const text = renderedConf(runDir);
  const params = new RegExp(`server\\s+127\\.0\\.0\\.1:${port}\\b([^;]*);`).exec(text)?.[1];
  return params === undefined ? 0 : passiveCheckMs(params);
}
