#!/usr/bin/env node
// One suite's test files, run by node:test in the order given: `node --test` sorts its files by
// name, so a long file named late would start last and end the suite alone. harness/bin/test-all.js
// lists the slowest first. As `node --test` reports: the spec reporter on stdout and TAP into
// --tap; exits 1 when a test failed.
//   test-files.js --tap <file> [--concurrency N] [--timeout ms] [--setup <global setup module>] <file>...
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PassThrough, Readable } from 'node:stream';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';

const { values: o, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    tap: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    timeout: { type: 'string', default: String(Infinity) },
    setup: { type: 'string' },
  },
});
if (!o.tap || !files.length) {
  console.error('usage: test-files.js --tap <file> [--concurrency N] [--timeout ms] [--setup <module>] <file>...');
  process.exit(2);
}

const events = run({
  files: files.map((f) => path.resolve(f)),
  concurrency: Number(o.concurrency),
  timeout: Number(o.timeout),
  ...(o.setup ? { globalSetupPath: path.resolve(o.setup) } : {}),
});
// Every event to both reporters.
const toSpec = new PassThrough({ objectMode: true });
const toTap = new PassThrough({ objectMode: true });
events.on('data', (event) => {
  if (event.type === 'test:fail' && !event.data.todo) process.exitCode = 1;
  toSpec.write(event);
  toTap.write(event);
});
events.on('end', () => {
  toSpec.end();
  toTap.end();
});
toSpec.pipe(new spec()).pipe(process.stdout);
Readable.from(tap(toTap)).pipe(fs.createWriteStream(o.tap));
