import { strict as assert } from 'node:assert';
import { folderFileAt } from '../../../../src/core/app/folderSources';

describe('folderSources: the role of a folder\'s file', () => {
  it('knows the MCP sources and the declaration\'s .gitignore, and nothing else', () => {
    assert.deepEqual(folderFileAt('.vscode/mcp.json'), { kind: 'source', spec: { path: '.vscode/mcp.json', dialect: 'vscode' } });
    assert.deepEqual(folderFileAt('.mcp.json'), { kind: 'source', spec: { path: '.mcp.json', dialect: 'dot-mcp' } });
    assert.deepEqual(folderFileAt('.devcontainer/py/devcontainer.json'), { kind: 'source', spec: { path: '.devcontainer/py/devcontainer.json', dialect: 'devcontainer' } });
    assert.deepEqual(folderFileAt('.dsh/.gitignore'), { kind: 'declaration-ignore', path: '.dsh/.gitignore' });
    for (const other of ['.vscode/settings.json', 'mcp.json', '.devcontainer/a/b/devcontainer.json', '']) assert.equal(folderFileAt(other), undefined, other);
  });
});
