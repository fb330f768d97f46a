import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

// Regression for the fresh-machine failure of `npm test`: the inner npm that installs
// code-server inherited the outer npm's user agent ("node/v20...") and code-server's
// postinstall refused. This runs under `npm run test:unit`, i.e. exactly in that situation,
// and also forces the outer-npm variables so it cannot pass just because mocha was started
// some other way.
const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/node24-npm-env.sh');
const OUTER_NPM = {
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_node_execpath: '/usr/bin/node',
  NODE: '/usr/bin/node',
  npm_config_nodedir: '/usr',
};

function bash(script: string, env: NodeJS.ProcessEnv) {
  return spawnSync('bash', ['-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 240_000 });
}

describe('setup: npm under Node 24 (scripts/node24-npm-env.sh)', function () {
  this.timeout(300_000); // the first run installs Node 24 from npm into the cache

  it('a lifecycle script run by the setup\'s npm sees Node 24 in process.version and the user agent', () => {
    const r = bash(`bash "${SCRIPT}" --check`, { ...process.env, ...OUTER_NPM });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^v24\.\S+ \| npm\/\S+ node\/v24\./m);
  });

  it('the check itself fails when only PATH is switched (what broke before)', () => {
    const script = `set -e; source "${SCRIPT}"; n24="$(bash scripts/ensure-node24.sh)";
      export PATH="$(dirname "$n24"):$PATH"; node24_npm_check`;
    const r = bash(script, { ...process.env, ...OUTER_NPM });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /node\/v20\.20\.2/);
  });
});
