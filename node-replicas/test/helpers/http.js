// Small HTTP clients for tests: one request with full control (a GET with a body, any method),
// and a raw socket exchange for bytes no well-behaved client would send.
import http from 'node:http';
import net from 'node:net';

/**
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string, timeoutMs?: number,
 *   agent?: http.Agent | false }} [options]  agent: false (default) asks for Connection: close
 */
export function request(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    // Node sends a GET body without framing unless told its length.
    const framed = body === undefined ? headers : { 'Content-Length': Buffer.byteLength(body), ...headers };
    const req = http.request(url, { method, headers: framed, agent, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

// Writes `bytes` to a fresh connection and returns everything read until the server closes it.
export function rawExchange(port, bytes, { timeoutMs = 5_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`server did not close the connection within ${timeoutMs} ms; got: ${Buffer.concat(chunks)}`));
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    // A server that closes with unread input may reset the connection: the answer read so far counts.
    const finish = () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('utf8')); };
    socket.on('close', finish);
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

export function statusOf(rawResponse) {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(rawResponse)?.[1]);
}

export function jsonBodyOf(rawResponse) {
  return JSON.parse(rawResponse.slice(rawResponse.indexOf('\r\n\r\n') + 4));
}
