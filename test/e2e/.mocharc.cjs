// mocha configuration of the e2e tier (`npm run test:e2e`). DSH_BRIDGE_E2E=export,secret-input
// runs only those flows (test/e2e/<name>.e2e.mjs), e.g. through `npm test`.
'use strict';
const only = (process.env.DSH_BRIDGE_E2E || '').split(',').map((s) => s.trim()).filter(Boolean);
// Flow files run two at a time, each with its own editor: one at a time used about half of a
// 2-core machine, two use 1.15 cores (docs/testing.md, "Time per tier").
// DSH_BRIDGE_E2E_JOBS=1 runs them one after the other.
const jobs = Math.max(1, Number.parseInt(process.env.DSH_BRIDGE_E2E_JOBS || '2', 10) || 2);

module.exports = {
  spec: only.length ? only.map((n) => `test/e2e/${n}.e2e.mjs`) : ['test/e2e/**/*.e2e.mjs'],
  // A bound for a hang, not a flow's time: under load (2 cores, a CPU hog on each) one flow took 76 s.
  timeout: 600000,
  slow: 30000,
  reporter: 'spec',
  exit: true,
  ...(jobs > 1 && only.length !== 1 ? { parallel: true, jobs } : {}),
  require: ['test/e2e/globalSetup.mjs'],
};
