// The e2e tier runs its flow files in parallel workers (test/e2e/.mocharc.cjs): the .vsix every
// flow installs is packaged once here, in mocha's main process, and the workers (started after
// this, with its environment) find it through SHARED_VSIX_ENV.
import { SHARED_VSIX_ENV, packagedVsix } from '../harness/e2e-driver.mjs';
import { RUNS_SINCE_ENV, runStamp } from '../harness/lib.mjs';

export async function mochaGlobalSetup() {
  // Every flow file's run folder of this tier run is kept (a failure's screenshots with it).
  process.env[RUNS_SINCE_ENV] ??= runStamp();
  if (process.env.DSH_E2E_DEV === '1') return; // the flows load the repo's bundle: nothing to package
  process.env[SHARED_VSIX_ENV] = await packagedVsix();
}
