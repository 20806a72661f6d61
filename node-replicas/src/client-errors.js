// Malformed requests Node's parser rejects before any handler runs (bad request line, headers too
// large, header timeout) get a JSON answer like every other error, then the socket is closed.
const STATUS = {
  HPE_HEADER_OVERFLOW: [431, 'request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request took too long to arrive'],
};

export function onClientError(err, socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = STATUS[err.code] ?? [400, 'malformed HTTP request'];
  const body = JSON.stringify({ error: message });
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status];
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
