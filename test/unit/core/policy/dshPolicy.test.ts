import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { dshPolicyBlock, dshPolicyLayer } from '../../../../src/core/policy/dshPolicy';
import { checkServer } from '../../../../src/core/policy/serverMatch';
import { readDshPolicy, userPolicyFile } from '../../../../src/core/node/policyFiles';
import { tempDir } from '../../helpers';

const name = (n: string) => ({ name: n });

describe('policy: VS Code\'s server rules', () => {
  describe('the DSH side\'s own policy', () => {
    it('every file only narrows: denies of any file, then each file\'s allowlist', () => {
      const admin = dshPolicyLayer('/etc/dsh-bridge/policy.json', 'admin', { allowedServers: [{ serverName: 'a' }, { serverName: 'b' }], deniedServers: [{ serverUrl: 'https://*.bad.example/*' }] });
      const user = dshPolicyLayer('/home/u/.dsh/bridge/policy.json', 'user', { allowedServers: [{ serverName: 'a' }, { serverName: 'c' }] });
      const policy = { layers: [admin, user] };
      assert.equal(dshPolicyBlock(policy, name('a')), undefined);
      assert.equal(dshPolicyBlock(policy, name('b'))?.origin, 'user', 'the user may allow less');
      assert.equal(dshPolicyBlock(policy, name('c'))?.origin, 'admin', 'the user cannot allow more');
      assert.equal(dshPolicyBlock(policy, { name: 'a', url: 'https://x.bad.example/mcp' })?.code, 'policy-denied');
      assert.equal(dshPolicyBlock({ layers: [{ ...admin, refused: 'its mode 0666 lets others than root write it' }] }, name('a'))?.code, 'policy-unreadable');
    });

    it('issue 37: a deny matches every spelling of the same server (trailing dot on the host, percent-encoded path, doubled slashes); VS Code\'s own matching does not', () => {
      const deny = dshPolicyLayer('/etc/dsh-bridge/policy.json', 'admin', { deniedServers: [{ serverUrl: 'https://mcp.bad.example/admin/*' }, { serverUrl: 'https://tools.example/mcp' }] });
      const policy = { layers: [deny] };
      for (const url of [
        'https://mcp.bad.example./admin/x', 'https://MCP.bad.example./admin/x', 'https://mcp.bad.example/%61dmin/x', 'https://mcp.bad.example//admin/x',
        'https://mcp.bad.example/admin//x', 'https://tools.example./mcp', 'https://tools.example/%6dcp', 'https://tools.example//mcp',
      ]) assert.equal(dshPolicyBlock(policy, { name: 'a', url })?.code, 'policy-denied', url);
      for (const url of ['https://mcp.bad.example/public/x', 'https://tools.example/mcp2', 'https://other.example/admin/x']) assert.equal(dshPolicyBlock(policy, { name: 'a', url }), undefined, url);
      // VS Code's matching (the editor's policy check) takes these as other servers: docs/policy.md says so.
      assert.equal(checkServer(undefined, deny.deny, { name: 'a', url: 'https://mcp.bad.example./admin/x' }).outcome, 'allowed');
    });

    it('an administrator file must be root\'s alone; the user\'s file lives in the DSH home; a workspace file is never read', async function () {
      if (process.getuid?.() !== 0) this.skip(); // ownership checks need root to create a root-owned file
      const dir = tempDir('admin-policy-');
      const file = path.join(dir, 'policy.json');
      writeFileSync(file, JSON.stringify({ deniedServers: [{ serverName: 'x' }] }));
      // The administrator's layer as the DSH side reads it, from the file the variable names.
      const readAdminPolicy = async (f: string) => (await readDshPolicy(tempDir('dsh-home-'), { DSH_BRIDGE_ADMIN_POLICY: f })).layers.find((l) => l.file === f);
      chmodSync(file, 0o644);
      assert.deepEqual((await readAdminPolicy(file))?.deny, [{ serverName: 'x' }]);
      chmodSync(file, 0o666);
      assert.match((await readAdminPolicy(file))!.refused!, /mode 0666/);
      chmodSync(file, 0o644);
      chmodSync(dir, 0o777);
      assert.match((await readAdminPolicy(file))!.refused!, /folder .* lets others than root replace it/);
      chmodSync(dir, 0o755);
      const dshHome = tempDir('dsh-home-');
      mkdirSync(path.dirname(userPolicyFile(dshHome)), { recursive: true });
      writeFileSync(userPolicyFile(dshHome), '{"deniedServers": [{"serverName": "y"}]}');
      const policy = await readDshPolicy(dshHome, { DSH_BRIDGE_ADMIN_POLICY: file });
      assert.deepEqual(policy.layers.map((l) => [l.origin, l.deny]), [['admin', [{ serverName: 'x' }]], ['user', [{ serverName: 'y' }]]]);
    });

    it('a file that is not JSON withholds every server, and its layer is frozen like a parsed one (it is kept and shared between reads)', async () => {
      const dshHome = tempDir('dsh-home-');
      mkdirSync(path.dirname(userPolicyFile(dshHome)), { recursive: true });
      writeFileSync(userPolicyFile(dshHome), '{ not json');
      const [layer] = (await readDshPolicy(dshHome, {})).layers;
      assert.deepEqual([layer.refused, Object.isFrozen(layer), Object.isFrozen(layer.deny)], ['it is not valid JSON', true, true]);
      assert.equal((await readDshPolicy(dshHome, {})).layers[0], layer, 'read again: the kept layer');
    });
  });
});
