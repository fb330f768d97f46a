// mocha configuration of the e2e tier (`npm run test:e2e`). DSH_BRIDGE_E2E=export,secret-input
// runs only those flows (test/e2e/<name>.e2e.mjs), e.g. through `npm test`.
'use strict';
const only = (process.env.DSH_BRIDGE_E2E || '').split(',').map((s) => s.trim()).filter(Boolean);

module.exports = {
  spec: only.length ? only.map((n) => `test/e2e/${n}.e2e.mjs`) : ['test/e2e/**/*.e2e.mjs'],
  // A bound for a hang, not a flow's time: under load (2 cores, a CPU hog on each) one flow took 76 s.
  timeout: 600000,
  slow: 30000,
  reporter: 'spec',
  exit: true,
};
