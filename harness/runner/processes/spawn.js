// Starting and stopping instance processes. Each instance leads its own process group (like a
// container), so a kill reaches its children too (nginx workers, cluster workers).
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, groupAlive, sendSignal, waitGone } from '../../lib/processes.js';

// Joins the cgroups before exec, so the program never runs a moment outside its quota. bash, not
// sh: dash drops environment variables whose names are not shell identifiers, such as .NET's
// Logging__LogLevel__Microsoft.AspNetCore=Debug.
const JOIN_CGROUPS = 'for f in $LAB_CGROUP_PROCS; do echo $$ > "$f" || exit 97; done; exec "$@"';

export function spawnInstance({ command, args, cwd, env, logFile, cgroupProcs = [] }) {
  const out = fs.openSync(logFile, 'a');
  const [file, argv] = cgroupProcs.length
    ? ['/bin/bash', ['-c', JOIN_CGROUPS, 'bash', command, ...args]]
    : [command, args];
  const child = spawn(file, argv, {
    cwd,
    env: { ...env, LAB_CGROUP_PROCS: cgroupProcs.join(' ') },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.unref();
  let exit;
  child.once('exit', (code, sig) => {
    exit = sig ? `killed by ${sig}` : `exit code ${code}`;
    // A failed start names its cause: the last line the instance logged.
    if (code !== 0) exit += lastLogLine(logFile);
  });
  child.once('error', (err) => { exit = `could not start ${command}: ${err.message}`; });
  return { child, pid: child.pid, exited: () => exit };
}

function lastLogLine(file) {
  try {
    const fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, 4096));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    fs.closeSync(fd);
    const line = buf.toString('utf8').trim().split('\n').at(-1)?.trim();
    return line ? `; last log line: ${line.slice(0, 400)}` : '';
  } catch {
    return '';
  }
}

// The compose stop sequence: stop signal, `stop_grace_period`, then SIGKILL — for the whole group.
export async function stopInstance(pid, { signal = 'SIGTERM', graceMs = 10_000 } = {}) {
  if (isAlive(pid)) {
    sendSignal(pid, signal);
    if (!(await waitGone(pid, graceMs))) sendSignal(pid, 'SIGKILL', { group: true });
    await waitGone(pid, 5000);
  }
  // Whatever the leader left behind in its group.
  if (groupAlive(pid)) {
    sendSignal(pid, 'SIGTERM', { group: true });
    await sleep(200);
    sendSignal(pid, 'SIGKILL', { group: true });
  }
}
