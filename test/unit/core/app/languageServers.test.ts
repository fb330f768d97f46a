import { strict as assert } from 'node:assert';
import { routeFile, validateLanguageServerSetting } from '../../../../src/core/app/languageServers';

const TS = { command: 'typescript-language-server', args: ['--stdio'], extensions: { '.ts': 'typescript', TSX: 'typescriptreact' } };

describe('app/languageServers: the setting as DSH takes it, and where a file goes', () => {
  it('routes a file by its final extension while DSH registers the servers; says why it does not otherwise', async () => {
    const valid = await validateLanguageServerSetting({ ts: TS });
    const invalid = await validateLanguageServerSetting({ ts: TS, bad: { command: 'x', extensions: { '.d.ts': 'x' } } });
    assert.equal(valid.registersAll, true);
    assert.equal(invalid.registersAll, false);
    const cases: Array<[string, unknown, typeof valid, unknown]> = [
      ['lib/foo.d.ts', { ts: TS }, valid, { outcome: 'routed', extension: '.ts', providerId: 'ts', languageId: 'typescript' }],
      ['App.TSX', { ts: TS }, valid, { outcome: 'routed', extension: '.tsx', providerId: 'ts', languageId: 'typescriptreact' }],
      ['main.py', { ts: TS }, valid, { outcome: 'unclaimed', extension: '.py' }],
      ['Makefile', { ts: TS }, valid, { outcome: 'no-extension', extension: '' }],
      ['a.ts', { ts: TS, bad: {} }, invalid, { outcome: 'routed-but-none-registered', extension: '.ts', providerId: 'ts', languageId: 'typescript' }],
      ['main.py', { ts: TS, bad: {} }, invalid, { outcome: 'none-registered', extension: '.py' }],
      ['a.ts', {}, valid, { outcome: 'not-configured', extension: '.ts' }],
      ['a.ts', undefined, valid, { outcome: 'not-configured', extension: '.ts' }],
    ];
    for (const [file, setting, validation, expected] of cases) assert.deepEqual(routeFile(file, setting, validation), expected, file);
  });

  it('a value of the wrong type is configured (the export writes an lsp section that registers none), not "empty"', async () => {
    for (const setting of ['typescript', []]) {
      const validation = await validateLanguageServerSetting(setting);
      assert.equal(validation.registersAll, false);
      assert.equal(routeFile('a.ts', setting, validation).outcome, 'none-registered', JSON.stringify(setting));
    }
  });

  it('looks each command up with the resolver it is given', async () => {
    const missing = await validateLanguageServerSetting({ ts: TS }, () => undefined);
    assert.equal(missing.registersAll, false);
    assert.ok(missing.problems.length > 0);
    assert.equal((await validateLanguageServerSetting({ ts: TS }, (command) => `/usr/bin/${command}`)).registersAll, true);
  });
});
