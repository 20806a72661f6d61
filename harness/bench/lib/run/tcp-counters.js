// The machine's TCP counters and limits that decide what happens to a flood of new connections:
// connections opened, SYNs dropped because a listen queue was full, sockets left in TIME_WAIT,
// the ephemeral port range, and the listen backlog cap.
import fs from 'node:fs';

const read = (file) => { try { return fs.readFileSync(file, 'utf8').trim(); } catch { return null; } };

// /proc/net/snmp and /proc/net/netstat: a header line of names, then a line of values, per protocol.
function table(file, proto) {
  const lines = (read(file) ?? '').split('\n').filter((l) => l.startsWith(`${proto}:`));
  if (lines.length < 2) return {};
  const names = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}

export function socketCounters() {
  const tcp = table('/proc/net/snmp', 'Tcp');
  const ext = table('/proc/net/netstat', 'TcpExt');
  return {
    activeOpens: tcp.ActiveOpens ?? 0,
    listenOverflows: ext.ListenOverflows ?? 0,
    listenDrops: ext.ListenDrops ?? 0,
    settings: {
      ephemeralPorts: read('/proc/sys/net/ipv4/ip_local_port_range')?.replace(/\s+/, '-') ?? null,
      tcpTwReuse: read('/proc/sys/net/ipv4/tcp_tw_reuse'),
      somaxconn: read('/proc/sys/net/core/somaxconn'),
    },
  };
}

/** Sockets in TIME_WAIT right now (state 06 in /proc/net/tcp). */
export function timeWaitSockets() {
  const lines = (read('/proc/net/tcp') ?? '').split('\n').slice(1);
  return lines.filter((l) => l.trim().split(/\s+/)[3] === '06').length;
}
