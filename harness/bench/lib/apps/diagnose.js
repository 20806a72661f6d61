// Why a started app is not reachable where the bench asks it, in one line, from what the system
// shows: the sockets its processes listen on (wrap/listening.js), the PORT it was given, what its
// health path answered. And the evidence under that line: those sockets, and its last output.

// Addresses a connect to 127.0.0.1 reaches.
export const REACHABLE = new Set(['0.0.0.0', '::', '127.0.0.1', '::ffff:127.0.0.1']);

/** How one listener reads: `127.0.0.1:3000`, `[::1]:3000`, `Unix socket '/tmp/app.sock'`. */
export function listenerText(l) {
  if (l.kind === 'unix') return `Unix socket '${l.path}'`;
  return l.address.includes(':') ? `[${l.address}]:${l.port}` : `${l.address}:${l.port}`;
}

const addressWhy = (address) => {
  if (address === '::1') return 'the IPv6 loopback (the host name "localhost" resolved to ::1)';
  if (address.startsWith('127.')) return `loopback ${address}, not 127.0.0.1`;
  return `the interface ${address} only`;
};

/**
 * The cause, in one line, of an app not answering its health path on its PORT.
 * @param {{ port: number, listeners: import('../../wrap/listening.js').Listener[], health: string,
 *   answered?: string | null, seconds: number, cwd?: string }} what
 *   answered: what GET <health> on PORT did, where the app listens there ('answered 404', 'failed (…)')
 */
export function causeOf({ port, listeners, health, answered, seconds, cwd }) {
  const tcp = listeners.filter((l) => l.kind === 'tcp');
  const onPort = tcp.filter((l) => l.port === port);
  if (onPort.some((l) => REACHABLE.has(l.address))) {
    return `never became healthy: GET ${health} on its PORT ${port} ${answered ?? 'got no answer'} for ${seconds} s. `
      + 'Make it answer 2xx there once it is up, or give HEALTH=/your/health/path';
  }
  if (onPort.length) {
    const where = onPort.map((l) => addressWhy(l.address)).join(', ');
    return `listens on its PORT ${port} on ${where}, and the bench connects to 127.0.0.1: listen on `
      + '0.0.0.0 or :: (or give no host), or on 127.0.0.1';
  }
  const unix = listeners.filter((l) => l.kind === 'unix' && l.path && !l.path.startsWith('@'));
  if (unix.length) {
    const name = unix[0].path;
    const inFolder = cwd && !name.startsWith('/') ? ` in ${cwd}` : '';
    const why = /[$`{}]/.test(name)
      ? 'the port word was not expanded (no shell expanded it: in single quotes, or read from a file)'
      : 'it was given a path where a port number goes';
    return `listens on a Unix socket named '${name}'${inFolder}, not on TCP port ${port}: ${why}`;
  }
  if (tcp.length) {
    const others = [...new Set(tcp.map(listenerText))].join(', ');
    return `listens on ${others}, not on its PORT ${port}: make it listen on process.env.PORT `
      + '(the bench gives every process a free port of its own)';
  }
  return `runs, but listened on no port in ${seconds} s (its PORT was ${port})`;
}

/** The evidence block's lines on where the processes listen. */
export function listenersBlock(listeners, commandOf = (_pid) => '') {
  if (!listeners.length) return '  where it listens (read from /proc): nowhere';
  return ['  where it listens (read from /proc):', ...listeners.map((l) => {
    const cmd = commandOf(l.pid);
    return `    ${listenerText(l)} (pid ${l.pid}${cmd ? `: ${cmd}` : ''})`;
  })].join('\n');
}
