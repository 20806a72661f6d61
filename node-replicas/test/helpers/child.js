// Starts src/server.js as a child process on a free port, the way a replica runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SAMPLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function startServer(t, env = {}) {
  const child = spawn(process.execPath, ['src/server.js'], {
    cwd: SAMPLE_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', INSTANCE_NAME: 'test-app-1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const port = await new Promise((resolve, reject) => {
    const onData = () => {
      const match = /listening on [^\s]+:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', onData);
    exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}) before listening: ${output}`)));
  });
  return { child, port, url: `http://127.0.0.1:${port}`, exited, output: () => output };
}

// Runs src/server.js to completion (it should refuse to start) and returns its exit and output.
export async function runToExit(env) {
  const child = spawn(process.execPath, ['src/server.js'], {
    cwd: SAMPLE_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  const [code] = await once(child, 'exit');
  return { code, output };
}
