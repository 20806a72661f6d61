// Running a command to completion without blocking the event loop (a drill's load keeps going
// meanwhile): what both backends' exec() return, { code, stdout, stderr }.
import os from 'node:os';
import { spawn } from 'node:child_process';

/**
 * A command that cannot start gives code 127; one still running after timeoutMs is killed (SIGKILL)
 * and gives 137, its stderr saying so.
 * @param {string} command @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, timeoutMs?: number }} [options]
 * @returns {Promise<import('./contract.js').ExecResult>}
 */
export function runCommand(command, args, { cwd, env, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    const done = (result) => { clearTimeout(timer); resolve(result); };
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.once('error', (err) => done({ code: 127, stdout, stderr: `${stderr}${command}: ${err.message}\n` }));
    child.once('close', (code, signal) => {
      const note = timedOut ? `${command}: killed after ${timeoutMs / 1000} s\n` : '';
      done({ code: code ?? 128 + (os.constants.signals[signal] ?? 0), stdout, stderr: `${stderr}${note}` });
    });
  });
}
