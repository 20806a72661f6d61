// Monte-Carlo estimate of pi: the share of random points in the unit square that fall inside the
// quarter circle, times 4. Deliberately CPU-bound and synchronous: it is the benchmark's load.
export function estimatePi(samples, random = Math.random) {
  let inside = 0;
  for (let i = 0; i < samples; i++) {
    const x = random();
    const y = random();
    if (x * x + y * y <= 1) inside++;
  }
  return (4 * inside) / samples;
}
