// Loopback port allocation: free ports for the runner's instances and the tests' servers.
import fs from 'node:fs';
import net from 'node:net';

function holdPort(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

async function listenOnce(port) {
  const server = await holdPort(port);
  const { port: bound } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return bound;
}

// Every port this process handed out. A port is free when it is picked, not when its owner binds
// it: deployments started side by side pick first and bind seconds later, so without this two of
// them can be handed the same port (a FULL run's drills did: a reusePort process and a published
// container range both got 32087).
const handedOut = new Set();
const handOut = (ports) => {
  for (const p of ports) handedOut.add(p);
  return ports;
};

// The range the kernel draws source ports of outgoing connections from. A port picked there (as
// port 0 does) can be taken by one of the load generator's or nginx's connections before the
// server binds it ("still could not bind()"), so listening ports come from below it.
function ephemeralRange() {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch { /* not Linux */ }
  return [32768, 60999];
}

export async function freePort() {
  const [lo] = ephemeralRange();
  const min = 20000;
  const max = lo - 1;
  for (let i = 0; max > min && i < 100; i += 1) {
    const port = min + Math.floor(Math.random() * (max - min));
    if (handedOut.has(port)) continue;
    try {
      return handOut([await listenOnce(port)])[0];
    } catch (err) {
      if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
    }
  }
  return handOut([await listenOnce(0)])[0];
}

/**
 * `count` consecutive free loopback ports below the ephemeral range: [first, last]. For a
 * container engine's published range, where each container of a scaled service takes one.
 */
export async function freePortRange(count) {
  const [lo] = ephemeralRange();
  const min = 20000;
  const max = lo - count;
  for (let i = 0; max > min && i < 100; i += 1) {
    const first = min + Math.floor(Math.random() * (max - min));
    const ports = Array.from({ length: count }, (_, k) => first + k);
    if (ports.some((p) => handedOut.has(p))) continue;
    const held = [];
    try {
      for (const p of ports) held.push(await holdPort(p));
      handOut(ports);
      return [first, first + count - 1];
    } catch (err) {
      if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
    } finally {
      await Promise.all(held.map((server) => new Promise((r) => server.close(r))));
    }
  }
  throw new Error(`no ${count} consecutive free ports between ${min} and ${lo - 1}`);
}

export async function ensureFree(port, hint) {
  try {
    await listenOnce(port);
  } catch (err) {
    if (err.code === 'EADDRINUSE') throw new Error(`port ${port} is already in use: ${hint}`, { cause: err });
    if (err.code === 'EACCES') throw new Error(`port ${port} needs privileges: ${hint}`, { cause: err });
    throw err;
  }
}
