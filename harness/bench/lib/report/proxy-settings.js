// The passive-health-check settings of the reference proxy config, read from proxy/ so the report
// and the guide always quote what was measured.
import fs from 'node:fs';
import { REPO_ROOT } from '../../../runner/compose.js';

export function passiveCheck() {
  const text = fs.readFileSync(`${REPO_ROOT}/proxy/templates/default.conf.template`, 'utf8');
  return {
    maxFails: /max_fails=(\d+)/.exec(text)?.[1] ?? '1',
    failTimeout: /fail_timeout=(\w+)/.exec(text)?.[1] ?? '10s',
  };
}
