// reusePort: `count` independent processes of the app's entry, all given the same PORT; an app that
// opted in listens with server.listen({ port, reusePort: true }) (Node >= 22.12 on Linux) and the
// kernel spreads connections over them, with no primary in between. This launcher only starts them
// and keeps them (supervise.js); a process counts as listening once /proc shows it on PORT.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { childWorker } from '../../../node-cluster/src/child-worker.js';
import { log } from './launch-spec.js';
import { listeningPorts } from './listening.js';
import { supervise } from './supervise.js';

/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count @param {number} drainMs */
export function runReusePort(node, count, drainMs) {
  const port = Number(process.env.PORT);
  const args = [...node.execArgv, node.entry, ...node.args];
  log(`reusePort: ${count} process(es) of ${node.entry} on port ${port}`);
  const fork = () => {
    const worker = childWorker(spawn(node.execPath, args, { env: node.env, cwd: node.cwd, stdio: 'inherit' }));
    (async () => {
      while (!listeningPorts(worker.process.pid).includes(port)) {
        if (worker.isDead()) return;
        await sleep(100);
      }
      worker.emit('listening');
    })();
    return worker;
  };
  supervise({ workers: count, drainMs, name: 'reusePort', fork });
}
