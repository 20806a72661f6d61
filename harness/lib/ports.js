// Loopback port allocation: free ports for the runner's instances and the tests' servers.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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
// The same across processes (make test runs its files side by side, each picking before it binds:
// Docker refused a published port "address already in use", make test 2026-12-05): a file a port
// handed out, named after it, holding the pid of the process that took it, removed when it exits.
const RESERVED = path.join(os.tmpdir(), 'scaling-lab-ports');
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};
/** Takes `port` for this process; false where a live process holds it (a dead one's is cleared). */
function reserve(port) {
  const file = path.join(RESERVED, String(port));
  const mine = `${file}.${process.pid}`;
  fs.mkdirSync(RESERVED, { recursive: true });
  fs.writeFileSync(mine, String(process.pid));
  try {
    fs.linkSync(mine, file); // created with its pid in one step, or not at all
    return true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    const owner = Number(fs.readFileSync(file, 'utf8'));
    if (!alive(owner)) release(port); // free for the next pick, not this one
    return false;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}
const release = (port) => fs.rmSync(path.join(RESERVED, String(port)), { force: true });
process.once('exit', () => handedOut.forEach(release));
const handOut = (ports) => {
  for (const p of ports) handedOut.add(p);
  return ports;
};
/** Reserves every port of `ports` or none of them. */
function reserveAll(ports) {
  const taken = [];
  for (const p of ports) {
    if (!reserve(p)) {
      taken.forEach(release);
      return false;
    }
    taken.push(p);
  }
  return true;
}

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
    if (handedOut.has(port) || !reserve(port)) continue;
    try {
      return handOut([await listenOnce(port)])[0];
    } catch (err) {
      release(port);
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
    if (ports.some((p) => handedOut.has(p)) || !reserveAll(ports)) continue;
    const held = [];
    try {
      for (const p of ports) held.push(await holdPort(p));
      handOut(ports);
      return [first, first + count - 1];
    } catch (err) {
      ports.forEach(release);
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
