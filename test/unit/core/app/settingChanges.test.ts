import { strict as assert } from 'node:assert';
import { changedConcerns } from '../../../../src/core/app/settingChanges';

describe('settingChanges: which settings feed which concern', () => {
  it('changedConcerns: only the bridge\'s and VS Code\'s MCP sections matter, each to its own concern', () => {
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
    for (const policy of ['chat.mcp.access', 'chat.mcp.collisionBehavior', 'chat.mcp.allowedServers', 'chat.mcp.deniedServers', 'chat.mcp.allowManagedServersOnly']) {
      assert.deepEqual(only(policy), { ...none, sources: true, any: true }, policy);
    }
  });
});
