import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyEditorPolicy, readEditorPolicy } from '../../../../src/core/policy/editorPolicy';
import { readVscodePolicyFile } from '../../../../src/core/node/policyFiles';
import { FIXABLE_CODES } from '../../../../src/core/mcp/quickFixes';
import { analyze, options, tempDir, workspace, exportFolder, FILE_PORTS, folderIdentityOf, testPorts } from '../../helpers';
import { analyzeFolder } from '../../../../src/core/app/folderSources';
import { verifyFolder } from '../../../../src/core/app/verify';
import { planSession } from '../../../../src/core/app/plan';

describe('policy: VS Code\'s server rules', () => {
  describe('the export refuses what the policy blocks', () => {
    const mcp = JSON.stringify({
      inputs: [{ id: 'host', type: 'promptString', description: 'host' }],
      servers: {
        github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' },
        local: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'] },
        templated: { type: 'http', url: 'https://${input:host}.example.com/mcp' },
        'evil\u202Ename': { command: 'node', args: ['x.js'] },
      },
    }, null, 2);
    const settings = (values: Record<string, unknown>) => (key: string) => values[key];

    it('each blocked server is refused with its code, located on its name, the rule in the message (escaped)', () => {
      const analysis = analyze(mcp, { resolveConfig: settings({
        'chat.mcp.allowedServers': [{ serverUrl: 'https://*.githubcopilot.com/*' }, { serverUrl: 'https://*.example.com/*' }, { serverName: 'evil\u202Ename' }],
        'chat.mcp.deniedServers': [{ serverName: 'evil\u202Ename' }],
      }) });
      // analyze() is one file; the policy is applied by analyzeFolder: apply it here as it does.
      const policed = applyEditorPolicy(analysis, readEditorPolicy({ effective: settings({
        'chat.mcp.allowedServers': [{ serverUrl: 'https://*.githubcopilot.com/*' }, { serverUrl: 'https://*.example.com/*' }, { serverName: 'evil\u202Ename' }],
        'chat.mcp.deniedServers': [{ serverName: 'evil\u202Ename' }],
      }) }));
      assert.deepEqual(policed.servers.map((s) => s.name), ['github']);
      assert.deepEqual(policed.rejected.map((r) => [r.name, r.codes]), [['local', ['policy-not-allowed']], ['templated', ['policy-unresolved']], ['evil\u202Ename', ['policy-denied']]]);
      const denied = policed.problems.find((p) => p.code === 'policy-denied')!;
      assert.ok(!/[\u202E]/.test(denied.message), 'no raw bidi character in the message');
      assert.match(denied.message, /\\u\{202e\}/i);
      assert.deepEqual(denied.range.start.line, mcp.split('\n').findIndex((l) => l.includes('evil')));
      assert.deepEqual(policed.inputs, [], 'the input only a blocked server used is not asked for');
      assert.match(policed.problems.find((p) => p.code === 'policy-not-allowed')!.message, /chat\.mcp\.allowedServers \(3\)/);
      // No quick fix evades a policy: none is offered for its codes.
      assert.deepEqual(['policy-denied', 'policy-not-allowed', 'policy-unresolved', 'policy-access'].filter((c) => FIXABLE_CODES.has(c)), []);
    });

    it('chat.mcp.access none or registry refuses every server; the declaration records the digest; a change of the rules makes it stale for the editor', async () => {
      const folder = workspace(mcp);
      const dshHome = tempDir('dsh-home-');
      for (const access of ['none', 'registry']) {
        const off = await analyzeFolder(FILE_PORTS, options({ folder, resolveConfig: settings({ 'chat.mcp.access': access }) }));
        assert.deepEqual(off.servers, []);
        assert.ok(off.rejected.every((r) => r.codes[0] === 'policy-access'), access);
      }
      const rules = { 'chat.mcp.deniedServers': [{ serverName: 'local' }] };
      const ports = testPorts(dshHome);
      await exportFolder(ports, folderIdentityOf(folder, rules));
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.match(declaration.policy.digest, /^sha256:/);
      assert.ok(!declaration.servers.some((s: { name: string }) => s.name === 'local'));
      assert.deepEqual((await verifyFolder(ports, folder, { settings: settings(rules) })).reasons, []);
      const changed = await verifyFolder(ports, folder, { settings: settings({}) });
      assert.deepEqual(changed.reasons.map((r) => [r.code, r.editorOnly]), [['stale', true]]);
      assert.match(changed.reasons[0].message, /policy .* changed since the export/);
    });

    it('VS Code\'s policy file is pinned: a declaration made before it existed is stale once it appears, for every face', async () => {
      const folder = workspace(mcp);
      const dshHome = tempDir('dsh-home-');
      const policyFile = path.join(tempDir('vscode-policy-'), 'policy.json');
      const ports = testPorts(dshHome);
      await exportFolder(ports, folder);
      assert.equal((await verifyFolder(ports, folder, { vscodePolicyFile: policyFile })).ok, true);
      writeFileSync(policyFile, JSON.stringify({ ChatDeniedMcpServers: JSON.stringify([{ serverName: 'github' }]) }));
      const stale = await verifyFolder(ports, folder, { vscodePolicyFile: policyFile });
      assert.deepEqual(stale.reasons.map((r) => [r.code, r.editorOnly]), [['stale', undefined]]);
      assert.match(stale.reasons[0].message, /appeared since the export/);
      // Exported under it: pinned, and a change of it is stale again.
      const file = await readVscodePolicyFile(policyFile);
      assert.deepEqual(file.values, { 'chat.mcp.deniedServers': [{ serverName: 'github' }] });
      await exportFolder(ports, folderIdentityOf(folder, file.values, { vscodePolicyFile: { path: file.path, sha256: file.sha256 } }));
      assert.equal((await verifyFolder(ports, folder, { vscodePolicyFile: policyFile })).ok, true);
      writeFileSync(policyFile, '{}');
      assert.match((await verifyFolder(ports, folder)).reasons[0].message, /changed since the export/);
    });
  });

  describe('GitHub Copilot\'s managed settings are part of the signed state', () => {
    const mcp = JSON.stringify({ servers: { kept: { type: 'http', url: 'https://kept.example.com/mcp' }, gone: { type: 'http', url: 'https://gone.example.com/mcp' } } });

    it('the export records the digest of the managed rules it applied; a change of them, their arrival or their removal is stale for every face, and DSH still mounts it under the rules in force now', async () => {
      const folder = workspace(mcp);
      const dshHome = tempDir('dsh-home-');
      const managed = path.join(tempDir('managed-'), 'managed-settings.json');
      const ports = testPorts(dshHome, { env: { DSH_BRIDGE_MANAGED_SETTINGS: managed } });
      const declarationOf = () => JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      const managedReasons = async () => (await verifyFolder(ports, folder)).reasons.map((r) => [r.code, r.enforcedAtMount, r.setting, r.message.split(':')[0]]);

      // None at the export: nothing recorded; the file appears: stale.
      await exportFolder(ports, folder);
      assert.equal(declarationOf().policy, undefined);
      assert.equal((await verifyFolder(ports, folder)).ok, true);
      writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'gone' }] }));
      assert.deepEqual(await managedReasons(), [['stale', true, 'managed', 'GitHub Copilot\'s managed settings set MCP rules now, and none did at the export']]);
      assert.match((await verifyFolder(ports, folder)).reasons[0].message, /export again; meanwhile DSH applies the managed settings in force at mount \(what they now block is withheld\)$/);
      // DSH mounts it (the plan withholds the denied server at mount) and says it is stale.
      await ports.store.setTrustMode('ask');
      const { plan } = await planSession(ports, { cwd: folder });
      assert.deepEqual(plan.blocked, []);
      assert.deepEqual(plan.notes.map((n) => n.code), ['declaration-stale-managed']);
      assert.deepEqual(plan.servers.map((s) => [s.name, s.outcome, s.reason.code]), [['kept', 'asks', 'ask-mode'], ['gone', 'withheld', 'dsh-managed-denied']]);

      // Exported under them: refused at export, the digest recorded, fresh.
      await exportFolder(ports, folder);
      const declaration = declarationOf();
      assert.match(declaration.policy.managed, /^sha256:[0-9a-f]{64}$/);
      assert.deepEqual(declaration.rejected, [{ name: 'gone', codes: ['policy-denied'] }]);
      assert.equal((await verifyFolder(ports, folder)).ok, true);
      // The same rules in other bytes are no change; other rules are; none at all is too.
      writeFileSync(managed, `{\n  "deniedMcpServers": [ { "serverName": "gone" } ],\n  "unrelated": 1\n}\n`);
      assert.equal((await verifyFolder(ports, folder)).ok, true);
      writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'kept' }] }));
      assert.deepEqual(await managedReasons(), [['stale', true, 'managed', 'the MCP rules of GitHub Copilot\'s managed settings changed since the export']]);
      writeFileSync(managed, '{}');
      assert.deepEqual(await managedReasons(), [['stale', true, 'managed', 'GitHub Copilot\'s managed settings set no MCP rules now, and did at the export']]);
      // A digest edited into the declaration breaks its digest and signature: tampered, refused by DSH.
      writeFileSync(path.join(folder, '.dsh/declaration.json'), JSON.stringify({ ...declaration, policy: { managed: `sha256:${'0'.repeat(64)}` } }));
      assert.ok((await verifyFolder(ports, folder)).reasons.some((r) => r.code === 'tampered'));
    });

    it('a channel that cannot be used is recorded as such: repairing it is a change', async () => {
      const folder = workspace(mcp);
      const managed = path.join(tempDir('managed-'), 'managed-settings.json');
      writeFileSync(managed, '{"deniedMcpServers": [],}');
      const ports = testPorts(tempDir('dsh-home-'), { env: { DSH_BRIDGE_MANAGED_SETTINGS: managed } });
      await exportFolder(ports, folder);
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.deepEqual(declaration.servers, []);
      assert.match(declaration.policy.managed, /^sha256:/);
      assert.equal((await verifyFolder(ports, folder)).ok, true);
      writeFileSync(managed, '{"deniedMcpServers": []}');
      assert.equal((await verifyFolder(ports, folder)).reasons[0]?.enforcedAtMount, true);
    });
  });

  describe('collisions are settled before the policy, as in VS Code', () => {
    const twoFiles = (vscodeName: string, dotName: string) => workspace(JSON.stringify({ servers: { [vscodeName]: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } } }), {
      '.mcp.json': JSON.stringify({ mcpServers: { [dotName]: { command: 'node', args: ['x.js'] } } }),
    });
    const settings = (values: Record<string, unknown>) => (key: string) => values[key];

    it('a server the policy blocks still owns its name: the later one stays shadowed', async () => {
      const analysis = await analyzeFolder(FILE_PORTS, options({ folder: twoFiles('github', 'github'), resolveConfig: settings({ 'chat.mcp.deniedServers': [{ serverUrl: 'https://api.githubcopilot.com/*' }] }) }));
      assert.deepEqual(analysis.servers, []);
      assert.deepEqual(analysis.rejected.map((r) => r.codes[0]).sort(), ['policy-denied', 'shadowed-server']);
    });
  });
});
