// What a hardened container looks like from outside, checked on the running containers of a Compose
// project: every process non-root, with no effective capability and no_new_privs set (read from
// /proc/<pid>/status on the host, for each pid `docker top` lists); the root filesystem refuses a
// write even from uid 0; only the proxy publishes a port.
import fs from 'node:fs';
import { docker } from './helpers.js';

function status(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => text.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1].trim();
  return {
    name: field('Name'),
    uid: field('Uid').split(/\s+/).map(Number),
    capEff: field('CapEff'),
    noNewPrivs: field('NoNewPrivs'),
  };
}

/**
 * One line per container of the project, and every way it falls short (empty when none).
 * @param {import('./helpers.js').Project} project
 * @param {{ proxy: string, writableRoot?: string[] }} expected
 */
export function hardeningProblems(project, { proxy, writableRoot = [] }) {
  const problems = [];
  const lines = [];
  for (const id of project.run(['ps', '-q']).stdout.trim().split('\n').filter(Boolean)) {
    const info = project.inspect(id);
    const service = info.Config.Labels['com.docker.compose.service'];
    const where = `${service} (${id.slice(0, 12)})`;
    const pids = docker(['top', id, '-eo', 'pid']).stdout.trim().split('\n').slice(1).map(Number).filter(Boolean);
    for (const pid of pids) {
      let s;
      try { s = status(pid); } catch { continue; } // gone meanwhile
      if (s.uid.includes(0)) problems.push(`${where}: process ${pid} (${s.name}) runs as uid ${s.uid.join('/')}`);
      if (!/^0+$/.test(s.capEff)) problems.push(`${where}: process ${pid} (${s.name}) has capabilities ${s.capEff}`);
      if (s.noNewPrivs !== '1') {
        problems.push(`${where}: process ${pid} (${s.name}) may gain privileges (NoNewPrivs ${s.noNewPrivs})`);
      }
    }
    const write = docker(['exec', '-u', '0', id, 'sh', '-c', 'echo probe > /hardening-probe']);
    const readOnly = write.status !== 0 && /read-only file system/i.test(write.stderr);
    if (!writableRoot.includes(service) && !readOnly) {
      problems.push(
        `${where}: a write to / by uid 0 was not refused as read-only (${write.status}: ${write.stderr.trim()})`,
      );
    }
    if (!(info.HostConfig.CapDrop ?? []).includes('ALL')) {
      problems.push(`${where}: CapDrop is ${JSON.stringify(info.HostConfig.CapDrop)}`);
    }
    if ((info.HostConfig.CapAdd ?? []).length) {
      problems.push(`${where}: CapAdd is ${JSON.stringify(info.HostConfig.CapAdd)}`);
    }
    const published = Object.values(info.NetworkSettings.Ports ?? {}).filter(Boolean).flat().length;
    if (published && service !== proxy) problems.push(`${where}: publishes a port`);
    lines.push(
      `${where}: ${pids.length} process(es), user ${info.Config.User || '(image default)'}, ` +
        `read-only root ${info.HostConfig.ReadonlyRootfs}, no capability`,
    );
  }
  return { problems, lines };
}

/** One container's hardening as Docker and /proc see it (for Swarm's tasks). */
export function hardeningOf(id) {
  const info = JSON.parse(docker(['inspect', id]).stdout)[0];
  const pids = docker(['top', id, '-eo', 'pid']).stdout.trim().split('\n').slice(1).map(Number).filter(Boolean);
  const uids = pids.map((pid) => { try { return status(pid).uid.join('/'); } catch { return null; } }).filter(Boolean);
  return {
    readOnly: info.HostConfig.ReadonlyRootfs,
    capDrop: info.HostConfig.CapDrop ?? [],
    uids,
    nonRoot: uids.length > 0 && uids.every((u) => !u.split('/').includes('0')),
  };
}
