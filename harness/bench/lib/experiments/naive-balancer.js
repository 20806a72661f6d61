// A round-robin balancer as the Mazira article wrote one: every request goes to the next address
// in turn, with no health check and no retry — so a dead instance still gets its share and those
// requests fail. It is the subject of an experiment, not something to copy.
import http from 'node:http';

export async function startNaiveBalancer(targets) {
  let next = 0;
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const target = new URL(targets[next]);
    next = (next + 1) % targets.length;
    const options = {
      host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent,
    };
    const up = http.request(options, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":"upstream failed"}');
    });
    req.pipe(up);
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', () => resolve(undefined)); });
  return {
    url: `http://127.0.0.1:${(/** @type {import('node:net').AddressInfo} */ (server.address())).port}`,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => { agent.destroy(); resolve(); });
    }),
  };
}
