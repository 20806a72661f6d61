// A sample's Prometheus (x-local.prometheus) on loopback: its prometheus.yml (the folder compose
// mounts at /etc/prometheus) with every scrape target named by service — `dns_sd_configs` names and
// `static_configs` host:port — turned into a file_sd file of the run, which lists that service's
// instances' loopback ports and is written again whenever they change (up, scale, reload):
// Prometheus reads such files again by itself, as a scale shows up by DNS on Docker.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { readState } from './supervisor-client.js';

const CONFIG_DIR = '/etc/prometheus';
const dirOf = (runDir) => path.join(runDir, 'prometheus');
const fileOf = (runDir, service, port) => path.join(dirOf(runDir), `targets-${service}-${port}.json`);
const WANTED = 'wanted.json';

// The scrape targets of a job as [service, port], and the job with them as file_sd files.
function localJob(job, runDir, wanted) {
  const named = [
    ...(job.dns_sd_configs ?? []).flatMap((d) => (d.names ?? []).map((n) => [n, Number(d.port)])),
    ...(job.static_configs ?? []).flatMap((s) => (s.targets ?? []).map((t) => {
      const [host, port] = String(t).split(':');
      return [host, Number(port)];
    })),
  ];
  wanted.push(...named.map(([service, port]) => ({ service, port })));
  const { dns_sd_configs: dns, static_configs: fixed, ...rest } = job;
  return { ...rest, file_sd_configs: named.map(([s, p]) => ({ files: [fileOf(runDir, s, p)] })) };
}

/**
 * Renders the service's prometheus.yml and its rule files into <runDir>/prometheus; returns the
 * arguments Prometheus runs with on `port`, its database under `data`.
 * @param {{ svc: any, runDir: string, port: number, data: string }} options
 */
export function renderPrometheus({ svc, runDir, port, data }) {
  const mount = svc.volumes.find((v) => v.dst.replace(/\/$/, '') === CONFIG_DIR);
  if (!mount) throw new Error(`${svc.name}: no folder mounted at ${CONFIG_DIR} in its compose file`);
  const doc = YAML.parse(fs.readFileSync(path.join(mount.src, 'prometheus.yml'), 'utf8'));
  const out = dirOf(runDir);
  fs.mkdirSync(out, { recursive: true });
  const wanted = [];
  doc.scrape_configs = (doc.scrape_configs ?? []).map((job) => localJob(job, runDir, wanted));
  for (const rule of doc.rule_files ?? []) {
    fs.copyFileSync(path.join(mount.src, rule), path.join(out, path.basename(rule)));
  }
  doc.rule_files = (doc.rule_files ?? []).map((r) => path.join(out, path.basename(r)));
  const conf = path.join(out, 'prometheus.yml');
  fs.writeFileSync(conf, `# Rendered by harness/runner for a local run from ${mount.src}.\n${YAML.stringify(doc)}`);
  fs.writeFileSync(path.join(out, WANTED), JSON.stringify(wanted));
  return [`--config.file=${conf}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`];
}

// The loopback port of an instance for a port its service listens on in its container: a port of
// x-local.extra_ports_env (the variable compose sets to that port), else the instance's own port.
function loopbackPort(entry, inst, port) {
  const names = entry.spec.local?.extra_ports_env ?? [];
  const name = names.find((e) => String(entry.spec.environment?.[e]) === String(port));
  return (name && inst.extraPorts?.[name]) || inst.port;
}

/** Writes every target file the run's Prometheus reads from the instances running now (none: no Prometheus). */
export async function writeTargets(runDir, state = null) {
  const wantedFile = path.join(dirOf(runDir), WANTED);
  if (!fs.existsSync(wantedFile)) return;
  const now = state ?? (await readState(runDir));
  for (const { service, port } of JSON.parse(fs.readFileSync(wantedFile, 'utf8'))) {
    const entry = now?.services?.[service];
    const targets = (entry?.instances ?? []).map((i) => `127.0.0.1:${loopbackPort(entry, i, port)}`);
    const file = fileOf(runDir, service, port);
    fs.writeFileSync(`${file}.next`, JSON.stringify([{ targets, labels: { service } }]));
    fs.renameSync(`${file}.next`, file);
  }
}
