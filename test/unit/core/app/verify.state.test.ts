import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { testPorts } from '../../helpers';
import { exported } from './export.fixture';
import { declarationState, staleCauses, verifyFolder } from '../../../../src/core/app/verify';

describe('verify: the declaration\'s state, named from the reasons', () => {
  it('names a real folder\'s declaration as verify finds it: up to date, stale, changed, another key, unsigned, missing', async () => {
    const stateAfter = async (damage: (file: string, folder: string) => void) => {
      const { folder, dshHome, file } = await exported();
      damage(file, folder);
      return declarationState(await verifyFolder(testPorts(dshHome), folder));
    };
    const edit = (file: string, change: (doc: any) => void) => {
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      change(doc);
      writeFileSync(file, JSON.stringify(doc));
    };
    assert.equal(await stateAfter(() => undefined), 'up-to-date');
    assert.equal(await stateAfter((_file, folder) => writeFileSync(`${folder}/.vscode/mcp.json`, '{"servers": {}}')), 'stale');
    assert.equal(await stateAfter((file) => edit(file, (doc) => doc.servers[0].args.push('--evil'))), 'changed');
    assert.equal(await stateAfter((file) => edit(file, (doc) => { doc.signature = `hmac-sha256:${'0'.repeat(64)}`; })), 'other-key');
    assert.equal(await stateAfter((file) => edit(file, (doc) => { delete doc.signature; })), 'unsigned');
    assert.equal(await stateAfter((file) => rmSync(file)), 'missing');
  });

  it('declarationState: names what the declaration is (another key, another folder, changed), the most specific wins', () => {
    const s = (...codes: string[]) => declarationState({ ok: codes.length === 0, reasons: codes.map((code) => ({ code })) });
    assert.equal(s(), 'up-to-date');
    assert.equal(s('stale'), 'stale');
    assert.equal(s('missing'), 'missing');
    assert.equal(s('stale', 'tampered'), 'changed');
    assert.equal(s('bad-signature'), 'other-key');
    assert.equal(s('bad-signature', 'stale'), 'other-key');
    assert.equal(s('unsigned', 'stale'), 'unsigned');
    assert.equal(s('wrong-folder'), 'other-folder');
    assert.equal(s('wrong-folder', 'bad-signature'), 'other-folder');
    assert.equal(s('unreadable'), 'invalid');
    assert.equal(s('rollback', 'stale'), 'older');
    assert.equal(s('tampered', 'rollback'), 'changed');
    assert.equal(s('bad-signature', 'rollback'), 'other-key');
  });

  it('staleCauses: a real edit of the source names the file; settings by name; the editor\'s own settings and the managed settings apart', async () => {
    const { folder, dshHome } = await exported();
    writeFileSync(`${folder}/.vscode/mcp.json`, '{"servers": {}}');
    const verified = await verifyFolder(testPorts(dshHome), folder);
    assert.deepEqual(staleCauses(verified.reasons), { changed: ['.vscode/mcp.json'], editor: [], managed: false });

    const causes = staleCauses([
      { code: 'stale', message: 'm', setting: 'dsh.tools', file: '/w/.vscode/settings.json' },
      { code: 'stale', message: 'm', changed: '/w/.env' },
      { code: 'stale', message: 'm', file: '/u/settings.json' },
      { code: 'stale', message: 'm', setting: 'dsh.tools', file: '/u/settings.json' },
      { code: 'stale', message: 'm', editorOnly: true, setting: 'policy' },
      { code: 'stale', message: 'm', editorOnly: true, setting: 'chat.mcp.access' },
      { code: 'stale', message: 'm', enforcedAtMount: true, setting: 'managed' },
      { code: 'tampered', message: 'not a cause of staleness' },
    ]);
    assert.deepEqual(causes, { changed: ['dsh.tools', '/w/.env', '/u/settings.json'], editor: ['policy', 'access'], managed: true });
  });
});
