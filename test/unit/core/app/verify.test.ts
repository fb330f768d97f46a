import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { tempDir, workspace, exportFolder, folderIdentityOf, testPorts } from '../../helpers';
import { SOURCE, exported } from './export.fixture';
import { verifyFolder } from '../../../../src/core/app/verify';
import * as path from 'node:path';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';

describe('declaration: verify', () => {
  it('accepts a fresh export', async () => {
    const { folder, dshHome } = await exported();
    const v = await verifyFolder(testPorts(dshHome), folder);
    assert.deepEqual(v.reasons, []);
    assert.equal(v.ok, true);
  });

  it('reports each kind of damage precisely', async () => {
    const cases: Array<[string, (doc: any, text: string) => string, string[]]> = [
      ['a changed field', (doc) => { doc.servers[0].args.push('--evil'); return JSON.stringify(doc); }, ['tampered', 'tampered']],
      ['a re-pinned field (digest still old)', (doc) => {
        doc.servers[0].command = 'sh';
        const { canonicalHash } = require('../../../../src/core/json/canonicalJson');
        const { pin, ...rest } = doc.servers[0];
        doc.servers[0].pin = canonicalHash(rest);
        return JSON.stringify(doc);
      }, ['tampered']],
      ['a removed signature', (doc) => { delete doc.signature; return JSON.stringify(doc); }, ['unsigned']],
      ['a forged signature', (doc) => { doc.signature = `hmac-sha256:${'0'.repeat(64)}`; return JSON.stringify(doc); }, ['bad-signature']],
      ['another folder', (doc) => { doc.folder = '/elsewhere'; return JSON.stringify(doc); }, ['tampered', 'wrong-folder']],
      ['a duplicate key', (_doc, text) => text.replace('"version": 1,', '"version": 1, "version": 1,'), ['tampered']],
      ['not JSON', () => '{', ['tampered']],
    ];
    for (const [label, damage, expected] of cases) {
      const { folder, dshHome, file } = await exported();
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, damage(JSON.parse(text), text));
      const v = await verifyFolder(testPorts(dshHome), folder);
      assert.deepEqual(v.reasons.map((r) => r.code), expected, label);
      assert.equal(v.ok, false);
    }
  });

  it('checks the lsp and skills sections through the model: shape, lsp pin, digest', async () => {
    // The sections as the export makes them: dsh.lsp.servers from the settings (its command found
    // by the PATH port) and the folder's project skill root, untrusted.
    const settings = {
      'dsh.lsp.servers': { ts: { command: '/usr/bin/tsserver', args: ['--stdio'], env: { API_TOKEN: 'canary-1' }, extensions: { '.ts': 'typescript' }, configuration: { a: 1 } } },
    };
    const withSections = async () => {
      const folder = workspace(SOURCE, { '.dsh/skills/a/SKILL.md': '---\nname: a\ndescription: A skill\n---\nBody.\n' });
      const dshHome = tempDir('dsh-home-');
      await exportFolder(testPorts(dshHome, { resolveCommand: (command) => command }), folderIdentityOf(folder, settings));
      return { folder, dshHome, file: path.join(folder, DECLARATION_PATH) };
    };
    const base = await withSections();
    const fresh = await verifyFolder(testPorts(base.dshHome), base.folder);
    assert.deepEqual(fresh.reasons, []);
    assert.equal(fresh.declaration?.lsp?.servers.ts.command, '/usr/bin/tsserver', 'typed, no cast');
    assert.deepEqual(fresh.declaration?.skills?.roots.map((r) => r.trust), ['untrusted']);

    const cases: Array<[string, (doc: any) => void, string[]]> = [
      ['a changed lsp server (pin and digest)', (doc) => { doc.lsp.servers.ts.args = ['--evil']; }, ['tampered', 'tampered']],
      ['an lsp env value of the wrong type', (doc) => { doc.lsp.servers.ts.env.X = 1; }, ['tampered']],
      ['an lsp server field outside the model', (doc) => { doc.lsp.servers.ts.shell = true; }, ['tampered']],
      ['a skills root trust outside the model', (doc) => { doc.skills.roots[0].trust = 'maybe'; }, ['tampered']],
      ['a changed skills root (digest)', (doc) => { doc.skills.roots[0].trust = 'trusted'; }, ['tampered']],
      ['a top-level section outside the model', (doc) => { doc.mounts = []; }, ['tampered']],
    ];
    for (const [label, damage, expected] of cases) {
      const { folder, dshHome, file } = await withSections();
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      damage(doc);
      writeFileSync(file, JSON.stringify(doc));
      const v = await verifyFolder(testPorts(dshHome), folder);
      assert.deepEqual(v.reasons.map((r) => r.code), expected, label);
    }
  });

  it('a declaration signed by another user\'s key is a bad signature', async () => {
    const { folder } = await exported();
    const v = await verifyFolder(testPorts(tempDir('other-home-')), folder);
    assert.deepEqual(v.reasons.map((r) => r.code), ['bad-signature']);
  });

  it('missing declaration', async () => {
    const v = await verifyFolder(testPorts(tempDir()), workspace(SOURCE));
    assert.deepEqual(v.reasons.map((r) => r.code), ['missing']);
  });
});

describe('verify: a hostile declaration (hardening regression 10)', () => {
  it('10: a declaration nested 3000 deep is refused by verify, not a crash', async () => {
    const folder = workspace('{"servers": {}}', { '.dsh/declaration.json': `{"x": ${'['.repeat(3000)}${']'.repeat(3000)}}` });
    const result = await verifyFolder(testPorts(tempDir()), folder);
    assert.equal(result.ok, false);
    assert.equal(result.reasons[0].code, 'tampered');
  });
});
