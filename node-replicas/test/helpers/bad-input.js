// The bad-input matrix, shared by the direct and the through-nginx tests. Each case is something a
// client gets wrong; the answer must be the 4xx named here, with a JSON error, never a 5xx.
const tooMany = 10_000_001; // PI_MAX_SAMPLES + 1 with the defaults

export const cases = [
  // Parameters: non-numeric, negative, fractional, exponent, zero/over the bound, huge, empty, repeated, unknown.
  { name: 'non-numeric samples', path: '/pi?samples=abc', status: 400 },
  { name: 'negative samples', path: '/pi?samples=-5', status: 400 },
  { name: 'fractional samples', path: '/pi?samples=1.5', status: 400 },
  { name: 'exponent samples', path: '/pi?samples=1e6', status: 400 },
  { name: 'hex samples', path: '/pi?samples=0x10', status: 400 },
  { name: 'zero samples', path: '/pi?samples=0', status: 400 },
  { name: 'samples above the maximum', path: `/pi?samples=${tooMany}`, status: 400 },
  { name: 'huge samples', path: `/pi?samples=${'9'.repeat(400)}`, status: 400 },
  { name: 'empty samples', path: '/pi?samples=', status: 400 },
  { name: 'samples without a value', path: '/pi?samples', status: 400 },
  { name: 'repeated samples', path: '/pi?samples=10&samples=20', status: 400 },
  { name: 'space-padded samples', path: '/pi?samples=%2010', status: 400 },
  { name: 'unknown parameter', path: '/pi?sample=10', status: 400 },
  { name: 'non-numeric ms', path: '/delay?ms=soon', status: 400 },
  { name: 'negative ms', path: '/delay?ms=-1', status: 400 },
  { name: 'ms above the maximum', path: '/delay?ms=5001', status: 400 },
  { name: 'huge ms', path: '/delay?ms=99999999999999999999', status: 400 },
  { name: 'empty ms', path: '/delay?ms=', status: 400 },
  { name: 'repeated ms', path: '/delay?ms=1&ms=1', status: 400 },
  { name: 'parameter on /', path: '/?hits=100', status: 400 },
  { name: 'parameter on /health', path: '/health?verbose=1', status: 400 },
  // Paths and methods.
  { name: 'unknown path', path: '/admin', status: 404 },
  { name: 'trailing slash', path: '/pi/', status: 404 },
  { name: 'wrong case', path: '/PI', status: 404 },
  { name: 'POST /', method: 'POST', path: '/', status: 405 },
  { name: 'PUT /pi', method: 'PUT', path: '/pi', status: 405 },
  { name: 'DELETE /delay', method: 'DELETE', path: '/delay', status: 405 },
  { name: 'PATCH /ready', method: 'PATCH', path: '/ready', status: 405 },
  { name: 'OPTIONS /', method: 'OPTIONS', path: '/', status: 405 },
  // A body where none is expected (small enough that nginx passes it on).
  { name: 'GET / with a body', path: '/', body: 'x'.repeat(1000), headers: { 'Content-Type': 'text/plain' }, status: 413 },
  { name: 'GET /pi with a JSON body', path: '/pi', body: JSON.stringify({ samples: 5 }), headers: { 'Content-Type': 'application/json' }, status: 413 },
  { name: 'POST / with a body', method: 'POST', path: '/', body: 'x'.repeat(100_000), status: 405 },
];
