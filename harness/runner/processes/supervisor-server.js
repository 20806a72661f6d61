// The supervisor's socket: one JSON line in ({ cmd, ...args }), one JSON line out ({ ok, result }
// or { ok: false, error }), on an abstract Unix socket named after the run folder.
import net from 'node:net';

/**
 * @param {string} socketPath @param {Record<string, (args: any) => any>} commands
 * @param {(line: string) => void} log @param {string} runDir
 */
export function serve(socketPath, commands, log, runDir) {
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', async (chunk) => {
      buffer += chunk;
      const at = buffer.indexOf('\n');
      if (at < 0) return;
      socket.end(`${JSON.stringify(await answer(commands, buffer.slice(0, at)))}\n`);
    });
  });
  server.listen(socketPath, () => log(`supervising ${runDir} (pid ${process.pid})`));
  server.on('error', (err) => { log(`cannot listen: ${err.message}`); process.exit(1); });
  return server;
}

async function answer(commands, line) {
  try {
    const { cmd, ...args } = JSON.parse(line);
    if (!Object.hasOwn(commands, cmd)) throw new Error(`unknown supervisor command '${cmd}'`);
    return { ok: true, result: await commands[cmd](args) };
  } catch (err) {
    return { ok: false, error: err.message };
  }
}
