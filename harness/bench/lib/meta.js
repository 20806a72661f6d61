// What the numbers were measured on: machine, versions, git commit, CPU quota enforcement.
import os from 'node:os';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { TOOLS } from './tools/index.js';
import { nginxBinary } from '../../runner/nginx.js';

const REPO = new URL('../../../', import.meta.url).pathname;

function sh(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 10000, ...opts }, (err, stdout, stderr) => resolve(err ? null : `${stdout}${stderr}`.trim()));
  });
}

async function osName() {
  try {
    const text = await readFile('/etc/os-release', 'utf8');
    return /PRETTY_NAME="([^"]+)"/.exec(text)?.[1] ?? null;
  } catch { return null; }
}

async function cgroupVersion() {
  try { await readFile('/sys/fs/cgroup/cgroup.controllers'); return 'v2'; } catch { /* not v2 */ }
  try { await readFile('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'); return 'v1'; } catch { return 'none'; }
}

export async function collectMeta({ cpuLimits } = {}) {
  const [commit, dirty, nginx, dotnet, osPretty, cg] = await Promise.all([
    sh('git', ['rev-parse', 'HEAD'], { cwd: REPO }),
    sh('git', ['status', '--porcelain'], { cwd: REPO }),
    sh(nginxBinary(), ['-v']),
    sh('dotnet', ['--version']),
    osName(),
    cgroupVersion(),
  ]);
  const tools = {};
  for (const [name, t] of Object.entries(TOOLS)) tools[name] = await t.version();
  const cpus = os.cpus();
  return {
    machine: {
      hostname: os.hostname(),
      os: osPretty ?? `${os.type()} ${os.release()}`,
      kernel: os.release(),
      arch: os.arch(),
      cpuModel: cpus[0]?.model ?? null,
      cores: os.availableParallelism(),
      memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      loadAvgAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    versions: {
      node: process.versions.node,
      nginx: nginx?.match(/nginx\/(\S+)/)?.[1] ?? null,
      dotnet: dotnet ?? null,
      ...tools,
    },
    git: { commit: commit ?? 'none (no commit yet)', dirty: dirty === null ? null : dirty.length > 0 },
    cgroup: cg,
    cpuLimits: cpuLimits ?? null,
  };
}
