// Where processes listen, read from the system (Linux /proc): each process's socket file descriptors
// (/proc/<pid>/fd → socket:[inode]) matched against the kernel's tables of listening sockets in its
// network namespace (/proc/<pid>/net/tcp, tcp6, unix). The reusePort launcher waits on it (a connect
// to the shared port can't tell which process answered), and the app check says from it where an app
// that never answered on its PORT does listen.
import fs from 'node:fs';

const TCP_LISTEN = '0A';
const UNIX_ACCEPTING = 0x10000; // __SO_ACCEPTCON: a listening Unix socket

// /proc/net/tcp's address: little-endian hex per 32-bit word → dotted IPv4, or IPv6 in its canonical
// (compressed) text, as the WHATWG URL parser writes it; an IPv4-mapped one as ::ffff:a.b.c.d.
function addressOf(hex) {
  const bytes = hex.match(/.{8}/g).flatMap((w) => w.match(/../g).reverse().map((b) => parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) + bytes[i + 1]).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

export const attempt = (fn, fallback) => { try { return fn(); } catch { return fallback; } };
export const read = (file) => attempt(() => fs.readFileSync(file, 'utf8'), '');
// A /proc/net table's rows (its first line is the header), each split into its fields.
const rowsOf = (text) => text.split('\n').slice(1).map((line) => line.trim().split(/\s+/));

/** Listening sockets in /proc/<pid>/net/tcp{,6} text: Map inode -> { address, port }. */
export function parseListening(text) {
  return new Map(rowsOf(text).filter((f) => f.length >= 10 && f[3] === TCP_LISTEN).map((f) => {
    const [addr, port] = f[1].split(':');
    return [f[9], { address: addressOf(addr), port: parseInt(port, 16) }];
  }));
}

/** Listening Unix sockets in /proc/<pid>/net/unix text: Map inode -> path ('@…' abstract, '' unnamed). */
export function parseUnixListening(text) {
  return new Map(rowsOf(text).filter((f) => f.length >= 7 && parseInt(f[3], 16) & UNIX_ACCEPTING)
    .map((f) => [f[6], f.slice(7).join(' ')]));
}

function socketInodes(pid) {
  const links = attempt(() => fs.readdirSync(`/proc/${pid}/fd`), [])
    .map((fd) => attempt(() => fs.readlinkSync(`/proc/${pid}/fd/${fd}`), ''));
  return new Set(links.map((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1]).filter(Boolean));
}

/**
 * A listening socket: TCP (address, port) or Unix (path: '@…' abstract, '' unnamed).
 * @typedef {{ pid: number, kind: 'tcp' | 'unix', address?: string, port?: number, path?: string }} Listener
 */

/** What `pid` listens on; empty when it is gone or not ours to read. @returns {Listener[]} */
export function listenersOf(pid) {
  const inodes = socketInodes(pid);
  if (!inodes.size) return [];
  const own = (table) => [...table].filter(([inode]) => inodes.has(inode)).map(([, s]) => s);
  const tcp = ['tcp', 'tcp6'].flatMap((t) => own(parseListening(read(`/proc/${pid}/net/${t}`))));
  const unix = own(parseUnixListening(read(`/proc/${pid}/net/unix`)));
  return [...tcp.map((s) => ({ pid, kind: 'tcp', ...s })), ...unix.map((p) => ({ pid, kind: 'unix', path: p }))];
}

/** The ports `pid` listens on over TCP (sorted, each once). */
export function listeningPorts(pid) {
  const ports = listenersOf(pid).flatMap((l) => (l.kind === 'tcp' ? [l.port] : []));
  return [...new Set(ports)].sort((a, b) => a - b);
}

/** `pid` and every process under it (children's children …), alive now. */
export function processTree(pid) {
  const all = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift();
    if (all.includes(p) || !fs.existsSync(`/proc/${p}`)) continue;
    all.push(p);
    const tasks = attempt(() => fs.readdirSync(`/proc/${p}/task`), []);
    for (const t of tasks) queue.push(...read(`/proc/${p}/task/${t}/children`).trim().split(/\s+/).filter(Boolean).map(Number));
  }
  return all;
}
