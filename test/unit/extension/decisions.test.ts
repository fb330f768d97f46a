import { strict as assert } from 'node:assert';
import { changedConcerns, declarationState, folderExportOutcome, inputIndexKey, inputSecretKey, keepForDocument, offersExport, problemDocsPath } from '../../../src/extension/decisions';
import { analyzeFolder } from '../../../src/core/app/folderSources';
import { FILE_PORTS } from '../helpers';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('extension decisions (vscode-free)', () => {
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

  it('changedConcerns: only dsh.* sections matter, each to its own concern', () => {
    const only = (...sections: string[]) => changedConcerns((x) => sections.includes(x));
    const none = { trustMode: false, home: false, export: false, lsp: false, skillRoots: false, tools: false, sources: false, any: false };
    assert.deepEqual(only(), none);
    assert.deepEqual(only('editor.fontSize'), none);
    assert.deepEqual(only('dsh.trustMode'), { ...none, trustMode: true, any: true });
    assert.deepEqual(only('dsh.export'), { ...none, export: true, any: true });
    assert.deepEqual(only('dsh.home'), { ...none, home: true, skillRoots: true, any: true });
    assert.deepEqual(only('dsh.lsp.servers'), { ...none, lsp: true, any: true });
    assert.deepEqual(only('dsh.skills.customRoots'), { ...none, skillRoots: true, any: true });
    assert.deepEqual(only('dsh.tools'), { ...none, tools: true, any: true });
    assert.deepEqual(only('chat.mcp.access'), { ...none, sources: true, any: true });
  });

  it('secret keys cannot collide across folders and ids', () => {
    assert.notEqual(inputSecretKey('/a:b', 'c'), inputSecretKey('/a', 'b:c'));
    assert.notEqual(inputSecretKey('/a', 'b"c'), inputSecretKey('/a","b', 'c'));
    assert.equal(inputSecretKey('/w', 'tok'), 'input:["/w","tok"]');
    assert.equal(inputIndexKey('/w'), 'index:"/w"');
  });

  it('syntax errors are left to the editor only for a document open in it', () => {
    assert.equal(keepForDocument('invalid-json', true), false);
    assert.equal(keepForDocument('invalid-json', false), true);
    assert.equal(keepForDocument('unsupported-transport', true), true);
  });

  describe('offersExport and folderExportOutcome: which folders the export offers, what came of each', () => {
    let root: string;
    before(() => { root = mkdtempSync(path.join(os.tmpdir(), 'dshb-offers-')); });
    after(() => rmSync(root, { recursive: true, force: true }));
    const folderWith = (name: string, files: Record<string, string>) => {
      const folder = path.join(root, name);
      mkdirSync(folder, { recursive: true });
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
        writeFileSync(path.join(folder, rel), text);
      }
      return folder;
    };
    const offered = async (folder: string, codeWorkspaceFile?: string) => offersExport(await analyzeFolder(FILE_PORTS, { folder, folderName: path.basename(folder), userHome: os.homedir(), ...(codeWorkspaceFile ? { codeWorkspaceFile } : {}) }));

    it('offers a folder whose servers come from any file VS Code runs them from, or whose file has errors; not one without servers', async () => {
      const server = '{"command": "node", "args": ["s.js"]}';
      assert.equal(await offered(folderWith('vscode', { '.vscode/mcp.json': `{"servers": {"a": ${server}}}` })), true);
      assert.equal(await offered(folderWith('claude', { '.mcp.json': `{"mcpServers": {"a": ${server}}}` })), true);
      assert.equal(await offered(folderWith('container', { '.devcontainer/devcontainer.json': `{"customizations": {"vscode": {"mcp": {"servers": {"a": ${server}}}}}}` })), true);
      assert.equal(await offered(folderWith('refused', { '.vscode/mcp.json': '{"servers": {"a": {"type": "sse", "url": "https://x.example/sse"}}}' })), true);
      assert.equal(await offered(folderWith('broken', { '.vscode/mcp.json': '{"servers": {' })), true);
      const plain = folderWith('plain', { 'README.md': 'no MCP file' });
      assert.equal(await offered(plain), false);
      assert.equal(await offered(folderWith('empty', { '.vscode/mcp.json': '{"servers": {}}' })), false);
      const workspaceFile = path.join(root, 'w.code-workspace');
      writeFileSync(workspaceFile, `{"folders": [{"path": "plain"}], "settings": {"mcp": {"servers": {"shared": ${server}}}}}`);
      assert.equal(await offered(plain, workspaceFile), true, 'servers from the workspace file alone');
    });

    it('names what came of a folder: exported, nothing to export, failed', () => {
      assert.equal(folderExportOutcome({ usable: true, servers: 2 }), 'exported');
      assert.equal(folderExportOutcome({ usable: true, servers: 0 }), 'nothing-to-export');
      assert.equal(folderExportOutcome({ usable: false, servers: 0 }), 'failed');
    });
  });

  it('links a problem code to its explanation in the editor\'s language: Simplified Chinese, else English', () => {
    assert.equal(problemDocsPath('zh-cn'), 'docs/problem-codes.zh-cn.md');
    assert.equal(problemDocsPath('zh-Hans'), 'docs/problem-codes.zh-cn.md');
    for (const language of ['en', 'zh-tw', 'de', '']) assert.equal(problemDocsPath(language), 'docs/problem-codes.md');
  });
});
