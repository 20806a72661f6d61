// Talking to a run's supervisor (supervisor.js), the owner of the run's state: start it, send it
// one command at a time over its local socket (one JSON line each way), and read the state from
// it — or, where it is gone, from the last snapshot it wrote, marked stale.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { isAlive } from '../../lib/processes.js';
import { socketPath, readSnapshot } from './snapshot.js';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'supervisor-main.js');

export class SupervisorUnreachable extends Error {}

/** Sends `cmd` with `args`; resolves with its result, rejects with its error message. */
export function call(runDir, cmd, args = {}, { timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath(runDir));
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the run's supervisor did not answer '${cmd}' within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify({ cmd, ...args })}\n`));
    socket.on('data', (chunk) => { buffer += chunk; });
    socket.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      clearTimeout(timer);
      // No socket, or nobody listening on it: the supervisor is gone. So is a reset before any answer
      // from a supervisor that has died (a killed process's threads close its socket after it shows
      // as dead). Anything else (EMFILE, EAGAIN) is this process's trouble, not a sign that nothing runs.
      const gone =
        ['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '') ||
        (['ECONNRESET', 'EPIPE'].includes(err.code ?? '') &&
          !buffer &&
          !isAlive(readSnapshot(runDir)?.supervisor?.pid));
      if (!gone) {
        reject(new Error(`cannot reach the run's supervisor: ${err.code ?? err.message}`, { cause: err }));
        return;
      }
      reject(
        new SupervisorUnreachable(
          `the run's supervisor is not running (${err.code ?? err.message}): \`make down\`, then \`make up\` again`,
        ),
      );
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

/** How a process of the run exited, once it has (for waitHealthy's `exited`), from the supervisor. */
export const exitedOf = (runDir, pid) => async () => {
  const st = await call(runDir, 'status', { pid });
  return st.exited ? st.how : undefined;
};

/** The snapshot a supervisor that is gone left, marked `stale`, or undefined. */
export function staleSnapshot(runDir) {
  const snapshot = readSnapshot(runDir);
  if (!snapshot) return undefined;
  const pid = snapshot.supervisor?.pid;
  return {
    ...snapshot,
    stale: {
      savedAt: snapshot.savedAt,
      reason: `the run's supervisor${pid ? ` (pid ${pid})` : ''} is not running: this is the snapshot it wrote at ` +
        `${snapshot.savedAt}`,
    },
  };
}

/**
 * The run's state, from its supervisor; where the supervisor is gone, its last snapshot with
 * `stale: { savedAt, reason }`; undefined when nothing runs from runDir.
 */
export async function readState(runDir = DEFAULT_RUN_DIR) {
  const dir = path.resolve(runDir);
  try {
    return (await call(dir, 'state')) ?? undefined;
  } catch (err) {
    if (err instanceof SupervisorUnreachable) return staleSnapshot(dir);
    throw err;
  }
}

/** A command for a running run: one line saying nothing runs from runDir, or that its supervisor is gone. */
export async function ask(runDir, cmd, args = {}, options = {}) {
  try {
    return await call(runDir, cmd, args, options);
  } catch (err) {
    if (err instanceof SupervisorUnreachable && !readSnapshot(runDir))
      throw new Error(`nothing running from ${runDir}`, { cause: err });
    throw err;
  }
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
      const { pid } = await call(runDir, 'ping', {}, { timeoutMs: 2000 });
      // Another supervisor answering is another run's of the same folder.
      if (pid !== child.pid) throw new Error(`another supervisor (pid ${pid}) runs ${runDir}: \`make down\` first`);
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
