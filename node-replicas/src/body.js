// A request body where none is expected. It is refused either way; the question is how.
// Up to `limit` bytes are read and dropped first, so the refusal travels on a healthy connection:
// a proxy still sending the body when the app closes the socket gets EPIPE and answers 502
// (nginx never retries a POST). Anything bigger, or announced bigger, is not read at all: the
// answer goes out at once and the connection is closed.
export function hasBody(req) {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

// Resolves true once the whole body was read (connection reusable), false if reading stopped.
export function discardBody(req, limit) {
  const declared = req.headers['content-length'];
  // `Expect: 100-continue`: the client waits for our word before sending; don't invite it.
  if (req.headers.expect !== undefined || (declared !== undefined && Number(declared) > limit)) {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    let seen = 0;
    let settled = false;
    const finish = (whole) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (!whole) req.pause();
      resolve(whole);
    };
    function onData(chunk) {
      seen += chunk.length;
      if (seen > limit) finish(false);
    }
    req.on('data', onData);
    req.once('end', () => finish(true));
    req.once('error', () => finish(false));
    req.once('close', () => finish(false));
  });
}
