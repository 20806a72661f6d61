// node --test --test-global-setup for the Docker suite (harness/bin/test-all.js): one daemon and
// one build of the stand-in images for every Docker test file; the files read SCALING_LAB_DOCKER.
import { prepareEngine, stopEngine } from './stand-ins.js';

export async function globalSetup() {
  try {
    const reason = await prepareEngine();
    process.env.SCALING_LAB_DOCKER = reason ? `skip:${reason}` : 'ready';
    if (reason) console.log(`docker tests skipped (stand-in images): ${reason}`);
  } catch (err) {
    // The engine or a stand-in failed: every Docker test then fails with this message.
    await stopEngine();
    process.env.SCALING_LAB_DOCKER = `fail:${err.message}`;
  }
}

export async function globalTeardown() {
  await stopEngine();
}
