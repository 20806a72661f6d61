// Talking to a run's supervisor (supervisor.js): start it, and send it one command at a time over
// its local socket (one JSON line each way).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { socketPath } from './supervisor.js';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'supervisor-main.js');

export class SupervisorUnreachable extends Error {}

/** Sends `cmd` with `args`; resolves with its result, rejects with its error message. */
export function call(runDir, cmd, args = {}, { timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath(runDir));
    let buffer = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`the run's supervisor did not answer '${cmd}' within ${timeoutMs / 1000} s`)); }, timeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify({ cmd, ...args })}\n`));
    socket.on('data', (chunk) => { buffer += chunk; });
    socket.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      clearTimeout(timer);
      reject(new SupervisorUnreachable(`the run's supervisor is not running (${err.code ?? err.message}): \`make down\`, then \`make up\` again`));
    });
    socket.once('end', () => {
      clearTimeout(timer);
      try {
        const reply = JSON.parse(buffer);
        if (reply.ok) resolve(reply.result); else reject(new Error(reply.error));
      } catch {
        reject(new Error(`the run's supervisor gave no answer to '${cmd}'`));
      }
    });
  });
}

/** Starts the supervisor of runDir, detached, and waits until it answers. Returns its pid. */
export async function startSupervisor(runDir) {
  const logFile = path.join(runDir, 'logs', 'supervisor.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [MAIN, runDir], { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.unref();
  let exited;
  child.once('exit', (code, sig) => { exited = sig ?? `exit code ${code}`; });
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await call(runDir, 'ping', {}, { timeoutMs: 2000 });
      return child.pid;
    } catch (err) {
      if (exited || Date.now() > deadline) {
        const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
        child.kill('SIGKILL');
        throw new Error(`the run's supervisor did not start (${exited ?? err.message}): ${tail}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
