import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { folderExportOutcome, offersExport } from '../../../../src/core/app/export';
import { analyzeFolder } from '../../../../src/core/app/folderSources';
import { FILE_PORTS } from '../../helpers';

describe('export: which folders it offers, what came of each', () => {
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
