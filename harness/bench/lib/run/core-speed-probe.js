// Runs pinned to the system under test's CPUs for the whole bench: every periodMs, times the same
// small piece of work (JSON in and out, as the apps do) and prints "<epoch ms> <µs>". 0.1-0.25 ms of
// work every 200 ms (a default run's fast and median readings, 2026-11-25): under 0.15% of the CPU.
const periodMs = Number(process.argv[2]) || 200;
const reps = Number(process.argv[3]) || 40;
let doc = { id: 1, name: 'product', price: 9.99, tags: ['a', 'b', 'c'], stock: { warehouse: 12, shop: 3 } };
const work = () => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < reps; i += 1) doc = JSON.parse(JSON.stringify(doc));
  return Number(process.hrtime.bigint() - t) / 1000;
};
for (let i = 0; i < 50; i += 1) work(); // compiled before the first reading
setInterval(() => { process.stdout.write(`${Date.now()} ${work().toFixed(1)}\n`); }, periodMs);
process.on('SIGTERM', () => process.exit(0));
