// The blocks a scenario's interleaved cells are measured in: the cells its questions pair, linked
// through any question (so every question's two cells share a block), in the order of their first
// cell; the cells no question names, one block together. For the verdicts a block is one workload
// at one budget, about seven cells.
//
// Why not every cell in one round: V8's memory reducer shrinks the heap of a Node process whose last
// garbage collection is about 100 s old, and its next second of load then runs far below its warm
// rate. Hand run 2026-11-26, one Express process on 1 CPU, light JSON, `wrk -t1 -c16`, 1 s windows
// after an idle gap: 21,055 req/s after 5 s, 20,630 after 60 s, 11,665 after 150 s (then 17,506,
// 19,332); after 150 s with `--no-memory-reducer`, 19,422. With 40 cells warmed up first and then
// measured in one round, a cell sat 2–4 minutes between its windows, and in six default runs one
// Express process's first round came out ×0.61–×0.85 of its later ones at 1 CPU (a cluster of 2's
// as low as ×0.46 on light JSON at 2 CPUs). In blocks, a cell waits seconds.

/**
 * @param {{ id: string }[]} cells @param {{ a: string, b: string }[]} comparisons
 * @returns {any[][]} the cells in blocks, each block in the cells' order
 */
export function blocksOf(cells, comparisons = []) {
  const root = new Map(cells.map((c) => [c.id, c.id]));
  const find = (id) => {
    while (root.get(id) !== id) id = root.get(id);
    return id;
  };
  for (const q of comparisons) {
    if (root.has(q.a) && root.has(q.b)) root.set(find(q.a), find(q.b));
  }
  const named = new Set(comparisons.flatMap((q) => [q.a, q.b]));
  const blocks = new Map();
  for (const c of cells) {
    const key = named.has(c.id) ? find(c.id) : null;
    if (!blocks.has(key)) blocks.set(key, []);
    blocks.get(key).push(c);
  }
  return [...blocks.values()];
}

/**
 * The order a block's cells are warmed up in: the longest warm-up floors first (a deployment's first
 * warm-up, a minute per .NET process), so no cell warmed before them sits idle through them; ties
 * in the block's order.
 * @param {any[]} cells @param {(cell: any) => number} floorOf seconds @returns {any[]}
 */
export const warmUpOrder = (cells, floorOf) => cells
  .map((c, i) => ({ c, i, s: floorOf(c) }))
  .sort((x, y) => y.s - x.s || x.i - y.i)
  .map((x) => x.c);

/**
 * What starts before each warm-up of a block (its warm-up order): before an app's first cell, every
 * cell of that app still to warm, so a deployment starts seconds before its first load instead of
 * idling through the other apps' warm-ups. Returns, per position, the cells whose deployments start
 * there (empty where the app started already).
 * @param {any[]} order @returns {any[][]}
 */
export const startsBefore = (order) => order.map((c, i) =>
  order.findIndex((x) => x.topology.sample === c.topology.sample) === i
    ? order.slice(i).filter((x) => x.topology.sample === c.topology.sample)
    : []);
