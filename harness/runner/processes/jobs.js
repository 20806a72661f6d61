// Commands the runner runs to completion itself: a service's x-local.build and post_start.
import fs from 'node:fs';
import { execFile } from 'node:child_process';

/**
 * Runs `command args` and appends its output to logFile. Rejects with the last lines of its output
 * on failure; `cancelled()` is polled, and the command is killed once it returns true.
 */
export function runJob(command, args, { cwd, env, logFile, timeoutMs = 600_000, label, cancelled = () => false }) {
  return new Promise((resolve, reject) => {
    let poll;
    let cancelledHere = false;
    const child = execFile(
      command,
      args,
      { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        clearInterval(poll);
        fs.appendFileSync(logFile, `$ ${command} ${args.join(' ')}\n${stdout}${stderr}`);
        if (!err) return resolve();
        if (cancelledHere) return reject(new Error(`${label} stopped: the run is being taken down`));
        const tail = `${stdout}${stderr}`.trim().split('\n').slice(-3).join(' | ');
        return reject(
          new Error(`${label} failed (${err.killed ? 'timed out' : `exit ${err.code}`}): ${tail} — see ${logFile}`),
        );
      },
    );
    child.stdin?.end();
    poll = setInterval(() => {
      if (cancelled()) { cancelledHere = true; child.kill('SIGKILL'); }
    }, 200);
  });
}
