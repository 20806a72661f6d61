// The summary printed in the terminal at the end of a run.
import Table from 'cli-table3';
import { fmt } from './format.js';

export function summaryTable(results) {
  const t = new Table({ head: ['scenario', 'topology', 'workload', 'result', 'p99 ms', 'errors'], style: { head: [], border: [] } });
  for (const r of results) {
    let result;
    if (r.status !== 'ok') result = `${r.status.toUpperCase()}: ${r.error.slice(0, 60)}`;
    else if (r.kind === 'openloop') result = `max ${fmt(r.maxRate)} req/s @ p99<500ms`;
    else if (r.kind === 'fault') result = `${fmt(r.failed)}/${fmt(r.requests)} failed (${fmt(r.failedPct, 2)}%)`;
    else if (r.kind === 'count') result = `${r.requests} reqs, p50 ${fmt(r.latencyMs.p50)} ms`;
    else result = `${fmt(r.rps)} req/s${r.generatorBound ? ' (gen-bound)' : ''}`;
    const p99 = r.status === 'ok' ? (r.kind === 'openloop' ? '' : fmt(r.latencyMs?.p99, 1)) : '';
    const errors = r.status === 'ok' && r.kind !== 'openloop' ? fmt((r.non2xx ?? 0) + (r.socketErrors ?? 0)) : '';
    t.push([r.scenario, r.topology.label, r.workload, result, p99, errors]);
  }
  return t.toString();
}
