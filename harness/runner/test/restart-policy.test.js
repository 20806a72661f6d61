// Compose's `restart:` parsed, the restart decision and Docker's backoff (restart-policy.js), on
// their own; how the supervisor applies them to real processes: harness/test/restart.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRestartPolicy, shouldRestart, nextDelayMs, exitCodeOf } from '../common/restart-policy.js';
import { pattern } from '../../test/helpers.js';

test('policy parsing: what compose accepts, one clear line for the rest', () => {
  assert.deepEqual(parseRestartPolicy(undefined), { name: 'no', maxRetries: 0 });
  assert.deepEqual(parseRestartPolicy('on-failure:3'), { name: 'on-failure', maxRetries: 3 });
  assert.deepEqual(parseRestartPolicy('unless-stopped'), { name: 'unless-stopped', maxRetries: 0 });
  assert.throws(
    () => parseRestartPolicy('sometimes', 'app'),
    pattern(
      String.raw`^Error: app: restart: "sometimes" is not a restart policy compose accepts `,
      String.raw`\(no, always, on-failure\[:max-retries\], unless-stopped\)$`,
    ),
  );
  assert.throws(() => parseRestartPolicy('always:3', 'app'), /only on-failure takes a maximum retry count/);
  assert.throws(() => parseRestartPolicy('on-failure:x', 'app'), /maximum retry count must be a whole number/);
  assert.throws(() => parseRestartPolicy(false, 'app'), /restart: false is not a restart policy/);
  assert.equal(shouldRestart({ name: 'on-failure', maxRetries: 0 }, { exitCode: 0, restarts: 0 }), false);
  assert.equal(shouldRestart({ name: 'on-failure', maxRetries: 2 }, { exitCode: 137, restarts: 1 }), true);
  assert.equal(shouldRestart({ name: 'on-failure', maxRetries: 2 }, { exitCode: 137, restarts: 2 }), false);
  assert.equal(shouldRestart({ name: 'always', maxRetries: 0 }, { exitCode: 0, restarts: 50 }), true);
  assert.equal(shouldRestart({ name: 'no', maxRetries: 0 }, { exitCode: 1, restarts: 0 }), false);
  assert.equal(exitCodeOf({ code: null, signal: 'SIGKILL' }, { SIGKILL: 9 }), 137);
  // Docker's backoff: 100 ms, doubling, capped at a minute, reset after 10 s up.
  assert.deepEqual(
    [
      nextDelayMs(0, 0),
      nextDelayMs(100, 50),
      nextDelayMs(400, 9_999),
      nextDelayMs(400, 10_000),
      nextDelayMs(40_000, 1),
    ],
    [100, 200, 800, 100, 60_000],
  );
});
