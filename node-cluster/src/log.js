// One JSON object per line on stdout: easy to grep, and what the tests read from the primary.
export function log(msg, fields = {}) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, msg, ...fields })}\n`);
}
