// Request bodies. Where none is expected the body is refused either way; the question is how.
// Up to `limit` bytes are read and dropped first, so the refusal travels on a healthy connection:
// a proxy still sending the body when the app closes the socket gets EPIPE and answers 502
// (nginx never retries a POST). Anything bigger, or announced bigger, is not read at all: the
// answer goes out at once and the connection is closed.
export function hasBody(req) {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

// Resolves true once the whole body was read (connection reusable), false if reading stopped.
export async function discardBody(req, limit) {
  return (await readBody(req, limit, { keep: false })).whole;
}

/**
 * Reads a body of at most `limit` bytes: { whole: true, text } once all of it arrived, or
 * { whole: false } when it is (or is announced) larger, or the client went away; reading stops then.
 */
export function readBody(req, limit, { keep = true, continued = false } = {}) {
  const declared = req.headers['content-length'];
  // `Expect: 100-continue`: the client waits for our word before sending; don't invite it,
  // unless the caller has (`continued`).
  if ((req.headers.expect !== undefined && !continued) || (declared !== undefined && Number(declared) > limit)) {
    return Promise.resolve({ whole: false });
  }
  return new Promise((resolve) => {
    const chunks = [];
    let seen = 0;
    let settled = false;
    const finish = (whole) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (!whole) req.pause();
      resolve(whole ? { whole, text: Buffer.concat(chunks).toString('utf8') } : { whole });
    };
    function onData(chunk) {
      seen += chunk.length;
      if (seen > limit) return finish(false);
      if (keep) chunks.push(chunk);
      return undefined;
    }
    req.on('data', onData);
    req.once('end', () => finish(true));
    req.once('error', () => finish(false));
    req.once('close', () => finish(false));
  });
}
