// Renders a sample's nginx configuration for loopback: what the official image would give the
// container (templates envsubst-ed into conf.d), with service names replaced by local instances.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const SYSTEM_NGINX_DIR = '/etc/nginx';
const NOBODY = 65534;

export function nginxBinary() {
  if (process.env.NGINX_BIN) {
    if (fs.existsSync(process.env.NGINX_BIN)) return process.env.NGINX_BIN;
    throw new Error(`NGINX_BIN=${process.env.NGINX_BIN} does not exist: unset it or point it at an nginx binary`);
  }
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('nginx not found: run `make setup` (installs Debian\'s nginx) or set NGINX_BIN to an nginx binary');
}

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
      if (host === undefined) throw new Error(`nginx listens on ${port}, which the compose file does not publish`);
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
 */
export function renderNginx({ svc, runDir, upstreamPorts, listenPorts }) {
  const root = path.join(runDir, 'nginx');
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(path.join(root, 'conf.d'), { recursive: true });
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
    fs.copyFileSync(path.join(SYSTEM_NGINX_DIR, 'mime.types'), path.join(root, 'mime.types'));
  }
  let templates;
  for (const { src, dst } of svc.volumes) {
    if (!dst.startsWith(`${SYSTEM_NGINX_DIR}/`) && dst !== SYSTEM_NGINX_DIR) continue;
    if (dst.replace(/\/$/, '') === `${SYSTEM_NGINX_DIR}/templates`) { templates = src; continue; }
    copyTree(src, path.join(root, path.relative(SYSTEM_NGINX_DIR, dst)));
  }
  if (templates) {
    for (const file of fs.readdirSync(templates).filter((f) => f.endsWith('.template'))) {
      const text = envsubst(fs.readFileSync(path.join(templates, file), 'utf8'), svc.environment);
      fs.writeFileSync(path.join(root, 'conf.d', file.replace(/\.template$/, '')), text);
    }
  }
  if (!fs.existsSync(path.join(root, 'nginx.conf'))) {
    throw new Error(`${svc.name}: no nginx.conf mounted at /etc/nginx/nginx.conf in compose.yaml`);
  }
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(root).filter((f) => f.endsWith('.conf'))) {
    let text = rewriteForLoopback(fs.readFileSync(file, 'utf8'), { root, runDir, listenPorts, upstreamPorts });
    if (path.basename(file) === 'nginx.conf' && path.dirname(file) === root) {
      text = text.replace(/(^\s*http\s*\{)/m, `$1\n${tempPaths(runDir)}`);
      if (!/^\s*pid\s/m.test(text)) text = `pid ${path.join(runDir, 'nginx.pid')};\n${text}`;
    }
    fs.writeFileSync(file, text);
  }
  return { prefix: root, conf: path.join(root, 'nginx.conf') };
}

export function nginxArgs({ prefix, conf }, runDir) {
  return ['-p', prefix, '-c', conf, '-e', path.join(runDir, 'logs', 'nginx-error.log')];
}

// `nginx -t` on a rendered configuration; throws with nginx's own message on failure.
export function testConfig(rendered, runDir) {
  try {
    return execFileSync(nginxBinary(), [...nginxArgs(rendered, runDir), '-t'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`nginx -t failed: ${(err.stderr || err.message).trim().split('\n').filter((l) => /emerg|error/.test(l)).join('; ') || err.stderr}`);
  }
}
