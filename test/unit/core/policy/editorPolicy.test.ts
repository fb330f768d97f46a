import { strict as assert } from 'node:assert';
import { editorPolicyDigest, policyValueFromEffective, readEditorPolicy, type PolicySettingsView } from '../../../../src/core/policy/editorPolicy';

describe('policy: VS Code\'s server rules', () => {
  describe('the effective rules (settings, policy, allowManagedServersOnly)', () => {
    const view = (effective: Record<string, unknown>, policy?: Record<string, unknown>, layers?: Record<string, unknown[]>): PolicySettingsView => ({
      effective: (k) => effective[k], ...(policy ? { policy: (k: string) => policy[k] } : {}), ...(layers ? { layers: (k: string) => layers[k] ?? [] } : {}),
    });
    it('managed-only ignores user allow entries and uses the policy allowlist; without one it blocks all; deny entries of every level apply', () => {
      const p = readEditorPolicy(view({ 'chat.mcp.allowManagedServersOnly': true, 'chat.mcp.allowedServers': [{ serverName: 'managed-server' }] },
        { 'chat.mcp.allowedServers': [{ serverName: 'managed-server' }] }, { 'chat.mcp.allowedServers': [[{ serverName: 'user-server' }]] }));
      assert.deepEqual(p.allow, [{ serverName: 'managed-server' }]);
      const none = readEditorPolicy(view({ 'chat.mcp.allowManagedServersOnly': true, 'chat.mcp.deniedServers': [{ serverName: 'denied' }] }, {}, { 'chat.mcp.deniedServers': [[{ serverName: 'denied' }], [{ serverName: 'ws' }]] }));
      assert.deepEqual(none.allow, []);
      assert.deepEqual(none.deny, [{ serverName: 'denied' }, { serverName: 'ws' }]);
      assert.equal(readEditorPolicy(view({ 'chat.mcp.allowManagedServersOnly': 'true' })).managedOnly, false, 'only the boolean true');
    });
    it('the editor sees only effective and user values: a policy value equal to a set user value cannot be told apart and fails closed', () => {
      assert.deepEqual(policyValueFromEffective([{ serverName: 'a' }], undefined), [{ serverName: 'a' }]);
      assert.deepEqual(policyValueFromEffective([{ serverName: 'a' }], [{ serverName: 'b' }]), [{ serverName: 'a' }]);
      assert.equal(policyValueFromEffective([{ serverName: 'a' }], [{ serverName: 'a' }]), undefined);
      assert.equal(policyValueFromEffective(undefined, [{ serverName: 'a' }]), undefined);
    });
    it('the digest covers the server rules only, and is absent without any', () => {
      assert.equal(editorPolicyDigest(readEditorPolicy(view({}))), undefined);
      assert.equal(editorPolicyDigest(readEditorPolicy(view({ 'chat.mcp.access': 'none' }))), undefined);
      const a = editorPolicyDigest(readEditorPolicy(view({ 'chat.mcp.deniedServers': [{ serverName: 'x' }] })));
      const b = editorPolicyDigest(readEditorPolicy(view({ 'chat.mcp.deniedServers': [{ serverName: 'y' }] })));
      assert.match(a!, /^sha256:[0-9a-f]{64}$/);
      assert.notEqual(a, b);
    });
  });
});
