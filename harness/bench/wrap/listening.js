// Which TCP ports a process listens on, from /proc (Linux): its socket file descriptors matched
// against the kernel's tables of listening sockets. The reusePort launcher waits on it (a connect to
// the shared port can't tell which process answered), and the app check names the port an app
// listens on when it isn't PORT.
import fs from 'node:fs';

const LISTEN = '0A';

/** Listening sockets in /proc/<pid>/net/tcp{,6} text: Map inode -> port. */
export function parseListening(text) {
  const out = new Map();
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    out.set(f[9], parseInt(f[1].split(':')[1], 16));
  }
  return out;
}

/** The ports `pid` listens on (sorted; empty when it is gone or not ours to read). */
export function listeningPorts(pid) {
  let inodes;
  try {
    inodes = new Set(fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      } catch {
        return undefined;
      }
    }).filter(Boolean));
  } catch {
    return [];
  }
  const ports = new Set();
  for (const table of ['tcp', 'tcp6']) {
    let text;
    try { text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8'); } catch { continue; }
    for (const [inode, port] of parseListening(text)) if (inodes.has(inode)) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}
