// reusePort: `count` independent processes of the app's entry, all given the same PORT; an app that
// opted in listens with server.listen({ port, reusePort: true }) (Node >= 22.12 on Linux) and the
// kernel spreads connections over them, with no primary in between. This launcher only starts them
// and keeps them (supervisor.js); a process counts as listening once /proc shows it on PORT.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { log } from './launch-spec.js';
import { listeningPorts } from './listening.js';
import { supervise } from './supervisor.js';

/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count @param {number} drainMs */
export function runReusePort(node, count, drainMs) {
  const port = Number(process.env.PORT);
  const args = [...node.execArgv, node.entry, ...node.args];
  log(`reusePort: ${count} process(es) of ${node.entry} on port ${port}`);
  supervise({
    count,
    drainMs,
    what: 'reusePort',
    start: () => {
      const child = spawn(node.execPath, args, { env: node.env, cwd: node.cwd, stdio: 'inherit' });
      const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      let gone = false;
      exited.then(() => { gone = true; });
      return {
        pid: child.pid,
        listening: async () => {
          while (!listeningPorts(child.pid).includes(port)) {
            if (gone) throw new Error('it exited first');
            await sleep(100);
          }
        },
        kill: (signal) => { if (!gone) child.kill(signal); },
        exited,
      };
    },
  });
}
