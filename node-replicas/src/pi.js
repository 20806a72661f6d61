// Monte-Carlo estimate of pi: the share of random points in the unit square that fall inside the
// quarter circle, times 4. Deliberately CPU-bound and synchronous: it is the benchmark's load.
// The points come from xorshift32, not Math.random: V8's Math.random refills its buffer through the
// runtime and made the cost of one request swing by ×1.8 from second to second, which is noise in
// every measurement. The same generator runs in node-cluster and dotnet-api, so all three do the
// same work per sample.
export function estimatePi(samples, seed = randomSeed()) {
  let s = seed | 0 || 1; // xorshift32 must not start at 0
  let inside = 0;
  for (let i = 0; i < samples; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const x = (s >>> 0) / 4294967296;
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const y = (s >>> 0) / 4294967296;
    if (x * x + y * y <= 1) inside++;
  }
  return (4 * inside) / samples;
}

export function randomSeed() {
  return (Math.random() * 4294967296) >>> 0;
}
