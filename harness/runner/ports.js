// Loopback port allocation.
import net from 'node:net';

function listenOnce(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });
}

export const freePort = () => listenOnce(0);

export async function ensureFree(port, hint) {
  try {
    await listenOnce(port);
  } catch (err) {
    if (err.code === 'EADDRINUSE') throw new Error(`port ${port} is already in use: ${hint}`);
    if (err.code === 'EACCES') throw new Error(`port ${port} needs privileges: ${hint}`);
    throw err;
  }
}
