import { strict as assert } from 'node:assert';
import { dshSideInstallCommands } from '../../../../src/core/app/dshSideInstall';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

describe('dshSideInstall: the commands the walkthrough shows', () => {
  it('with dsh-bridge on PATH: its dsh install, with a Node that fits DSH fetched when needed', () => {
    assert.deepEqual(dshSideInstallCommands({ cliOnPath: true, dshHome: '/home/u/.dsh', defaultDshHome: '/home/u/.dsh' }), ['dsh-bridge dsh install --node auto']);
  });

  it('without it: the checkout and link of the repository first, as docs/dsh-side.md step 1', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { repository: { url: string } };
    const lines = dshSideInstallCommands({ cliOnPath: false, dshHome: '/home/u/.dsh', defaultDshHome: '/home/u/.dsh' });
    assert.deepEqual(lines, [`git clone ${pkg.repository.url} && cd dsh-bridge`, 'npm install && npm run build && npm link', 'dsh-bridge dsh install --node auto']);
    const guide = readFileSync(path.join(__dirname, '../../../../docs/dsh-side.md'), 'utf8');
    assert.ok(guide.includes('npm install && npm run build && npm link'), 'the guide and the walkthrough give the same step');
  });

  it('names a DSH home that is not the default one, quoted for the shell', () => {
    assert.deepEqual(dshSideInstallCommands({ cliOnPath: true, dshHome: "/home/u/my dsh's home", defaultDshHome: '/home/u/.dsh' }),
      [`dsh-bridge dsh install --node auto --dsh-home '/home/u/my dsh'\\''s home'`]);
  });
});
