import { strict as assert } from 'node:assert';
import { dshServerEnv } from '../../../../src/core/mcp/dshEnv';

describe('the environment DSH gives a stdio server (contract section 3)', () => {
  const parent = { PATH: '/bin', HOME: '/h', GITHUB_TOKEN: 't', MONKEY: 'm', dsh_home: 'd', AUTH: 'a', LC_ALL: 'C', TOKENIZERS_PARALLELISM: 'x', EDITOR: 'vi' };
  it('rc.8 drops credential-shaped and DSH_ names (over-dropping harmless ones, keeping AUTH); explicit env wins', () => {
    assert.deepEqual(Object.keys(dshServerEnv(parent, {})).sort(), ['AUTH', 'EDITOR', 'HOME', 'LC_ALL', 'PATH']);
    assert.equal(dshServerEnv(parent, { GITHUB_TOKEN: 'explicit' }).GITHUB_TOKEN, 'explicit');
  });
  it('0.2 keeps only its allow-list', () => {
    assert.deepEqual(Object.keys(dshServerEnv(parent, {}, '0.2')).sort(), ['HOME', 'LC_ALL', 'PATH']);
    assert.deepEqual(dshServerEnv(parent, { GITHUB_TOKEN: 'explicit' }, '0.2').GITHUB_TOKEN, 'explicit');
  });
});
