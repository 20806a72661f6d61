#!/usr/bin/env node
// Entry point of a run's supervisor process (see supervisor.js): `node supervisor-main.js <runDir>`.
import { supervise } from './supervisor.js';

const runDir = process.argv[2];
if (!runDir) {
  console.error('usage: supervisor-main.js <runDir>');
  process.exit(2);
}
// Detached from any terminal; only `exit` (from down()) or the loss of its run ends it.
for (const sig of ['SIGHUP', 'SIGINT']) process.on(sig, () => {});
supervise(runDir);
