#!/usr/bin/env node
// The drills' generator on its own, in a process of its own: an open loop of GETs and a share of
// POSTs at a fixed rate against one URL (lib/drills/load.js, sent from a thread that does nothing
// else), until --seconds or Ctrl-C; then every request's record to --out (JSON: startedAt, the
// epoch ms the schedule's `at` counts from, the POSTs' idPrefix, the records) and a summary line.
// What to set beside a deploy you run by hand — `docker compose up`, `docker stack deploy`, `docker
// stop` — to see what the clients saw, and how late this generator itself was (its send lag);
// deploy-events.js runs it so.
//   node harness/bench/load.js --url http://127.0.0.1:8080 [--get /] [--post /echo] [--post-share 0.2]
//                              [--body '{"drill":true}'] [--rate 100] [--seconds 60] [--out records.json]
import fs from 'node:fs';
import { Command } from 'commander';
import { startLoad, summarise } from './lib/drills/load.js';
import { positive } from '../lib/option-parsers.js';

const program = new Command()
  .name('load')
  .description('An open loop of GETs and POSTs at a fixed rate, each request timed from its intended send.')
  .requiredOption('--url <url>', 'where the clients go, e.g. http://127.0.0.1:8080')
  .option('--get <path>', 'the GET path', '/')
  .option('--post <path>', 'the POST path (none: only GETs)')
  .option('--body <json>', 'the POST body ({id}: a number of its own per POST)', '{"drill":true}')
  .option('--post-share <x>', 'the share of POSTs', positive('--post-share', { max: 1 }), 0.2)
  .option('--rate <n>', 'requests per second', positive('--rate'), 100)
  .option('--seconds <n>', 'how long', positive('--seconds'), 60)
  .option('--out <file>', 'the records, as JSON')
  .configureOutput({ outputError: (str, write) => write(`${str.trim()} (load --help lists the options)\n`) })
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

async function main() {
  const o = program.parse().opts();
  if (!URL.canParse(o.url)) {
    console.error(`load: --url is not a URL: ${o.url}`);
    return 2;
  }
  if (!o.get.startsWith('/') || (o.post && !o.post.startsWith('/'))) {
    console.error('load: --get and --post are paths such as /echo');
    return 2;
  }
  const post = o.post ? { path: o.post, body: o.body, contentType: 'application/json' } : undefined;
  const mix = { get: o.get, ...(post ? { post } : {}), postShare: post ? o.postShare : 0 };
  const idPrefix = post && o.body.includes('{id}') ? `load-${Date.now().toString(36)}-` : undefined;
  const load = await startLoad({ url: o.url, rate: o.rate, mix, idPrefix });
  // Until --seconds or a signal, whichever comes first (the process exits once it has written its records).
  await new Promise((resolve) => {
    setTimeout(resolve, o.seconds * 1000);
    process.once('SIGINT', resolve).once('SIGTERM', resolve);
  });
  const records = await load.stop();
  const kept = { url: o.url, rate: o.rate, mix, idPrefix, startedAt: load.startedAt, records };
  if (o.out) fs.writeFileSync(o.out, `${JSON.stringify(kept)}\n`);
  const s = summarise(records);
  const part = (m) => `${m.failed} of ${m.requests} failed${m.failed ? ` ${JSON.stringify(m.errors)}` : ''}`;
  console.log(
    `GET ${part(s.get)}; POST ${part(s.post)}; latency p50 ${s.latencyMs.p50} / p99 ${s.latencyMs.p99} / ` +
      `max ${s.latencyMs.max} ms; send lag p99 ${s.sendLagMs.p99} / max ${s.sendLagMs.max} ms`,
  );
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`load: ${e.message}`);
  process.exit(1);
});
