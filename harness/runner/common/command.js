// Running a command to completion without blocking the event loop (a drill's load keeps going
// meanwhile): what both backends' exec() return, { code, stdout, stderr }.
import { spawn } from 'node:child_process';

/**
 * @param {string} command @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, timeoutMs?: number }} [options]
 * @returns {Promise<import('./contract.js').ExecResult>}
 */
export function runCommand(command, args, { cwd, env, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.once('error', (err) => resolve({ code: 127, stdout, stderr: `${stderr}${command}: ${err.message}\n` }));
    child.once('close', (code, signal) => {
      const timedOut = signal && child.killed ? `${command}: stopped after ${timeoutMs / 1000} s (${signal})\n` : '';
      resolve({ code: code ?? 128 + 9, stdout, stderr: `${stderr}${timedOut}` });
    });
  });
}
