import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { checkServer, matchesEntry, serverMatchers, type ServerMatcher } from '../../src/core/policy/serverMatch';
import { applyEditorPolicy, editorPolicyDigest, policyValueFromEffective, policyValueOf, readEditorPolicy, type PolicySettingsView } from '../../src/core/policy/editorPolicy';
import { dshPolicyBlock, dshPolicyLayer } from '../../src/core/policy/dshPolicy';
import { readAdminPolicy, readDshPolicy, readVscodePolicyFile, userPolicyFile } from '../../src/core/node/policyFiles';
import { analyzeFolder } from '../../src/core/app/folderSources';
import { verifyFolder } from '../../src/core/app/verify';
import { FIXABLE_CODES } from '../../src/core/mcp/quickFixes';
import { analyze, exportFolder, FILE_PORTS, folderIdentityOf, options, tempDir, testPorts, workspace } from './helpers';

const name = (n: string) => ({ name: n });
const url = (u: string) => ({ name: 's', url: u });
const command = (...c: string[]) => ({ name: 's', command: c });
const matched = (matchers: ServerMatcher[] | undefined, identity: Parameters<typeof matchesEntry>[1]) => !!matchers && matchers.some((m) => matchesEntry(m, identity));

// The cases of VS Code's own tests (src/vs/platform/mcp/test/common/allowedMcpServers.test.ts and
// allowedMcpServersService.test.ts), rewritten as tables, and the examples of its documentation.
describe('policy: VS Code\'s server rules', () => {
  describe('lists as VS Code reads them', () => {
    it('a value that is not an array is "not configured"; an empty array is a list', () => {
      for (const value of [null, undefined, true, '[]', { allowed: [] }]) assert.equal(serverMatchers(value), undefined, JSON.stringify(value));
      assert.deepEqual(serverMatchers([]), []);
    });
    it('keeps entries with exactly one well-formed field and drops the rest silently', () => {
      assert.deepEqual(serverMatchers([
        { serverName: 'github' }, { serverUrl: 'https://mcp.example.com/*' }, { serverCommand: ['npx', '-y', 'server'] },
        { serverName: '' }, { serverCommand: [] }, { serverCommand: ['ok', 5] }, { serverName: 'a', serverUrl: 'b' }, {}, 'string-entry', null, [],
      ]), [{ serverName: 'github' }, { serverUrl: 'https://mcp.example.com/*' }, { serverCommand: ['npx', '-y', 'server'] }]);
    });
    it('an array policy arrives as a JSON string (comments allowed; a syntax error, trailing comma or duplicate key leaves it unset)', () => {
      assert.deepEqual(policyValueOf('chat.mcp.allowedServers', '[{"serverName": "github"} /* ok */]'), [{ serverName: 'github' }]);
      assert.equal(policyValueOf('chat.mcp.allowedServers', '[{"serverName": "github"},]'), undefined);
      assert.equal(policyValueOf('chat.mcp.deniedServers', '[{"serverName": "a", "serverName": "b"}]'), undefined);
      assert.equal(policyValueOf('chat.mcp.deniedServers', '[{'), undefined);
      assert.equal(policyValueOf('chat.mcp.access', 'none'), 'none', 'a string setting takes the string');
      assert.deepEqual(policyValueOf('chat.mcp.allowedServers', [{ serverName: 'x' }]), [{ serverName: 'x' }]);
    });
  });

  describe('matching', () => {
    it('undefined and empty lists match nothing', () => {
      assert.equal(matched(undefined, name('x')), false);
      assert.equal(matched([], name('x')), false);
    });
    it('serverName: exact and case-sensitive', () => {
      const m = [{ serverName: 'github' }];
      assert.deepEqual([name('github'), name('gitlab'), name('GitHub')].map((i) => matched(m, i)), [true, false, false]);
    });
    it('serverUrl: whole string, case-insensitive, * in the authority stays in the authority', () => {
      const m = [{ serverUrl: 'https://*.example.com/*' }];
      const table: Array<[string, boolean]> = [
        ['https://mcp.example.com/api', true],
        ['https://MCP.EXAMPLE.COM/api', true],
        ['https://example.com/api', false], // the apex is not *.example.com
        ['https://mcp.evil.com/api', false],
        ['https://evil.test/.example.com/tool', false], // an authority * cannot swallow the path
        ['https://a.b.example.com/x', true],
        ['https://mcp.example.com', true], // empty path is /
        ['https://mcp.example.com:443/x', true], // default port dropped
        ['https://user:pw@mcp.example.com/x', true], // user info dropped
        ['https://mcp.example.com/x#frag', true], // fragment dropped
      ];
      assert.deepEqual(table.map(([u]) => matched(m, url(u))), table.map(([, ok]) => ok));
      assert.equal(matched(m, command('node', 'x.js')), false, 'a URL rule never matches a local server');
    });
    it('serverUrl: an exact URL matches only that URL', () => {
      const m = [{ serverUrl: 'https://mcp.example.com/mcp' }];
      assert.deepEqual(['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp/extra'].map((u) => matched(m, url(u))), [true, false]);
    });
    it('serverUrl: the destination fetch uses, not the spelling', () => {
      const m = [{ serverUrl: 'http://*127.0.0.2:*/*' }];
      const table: Array<[string, boolean]> = [
        ['http://127.0.0.2:63366/mcp', true],
        ['http://127.0.0.1:63365/mcp', false],
        ['http://127.0.0.1:63365/@127.0.0.2:63366/mcp', false],
        ['http://127.0.0.1:63365\\@127.0.0.2:63366/mcp', false],
        ['http://127.0.0.1:63365\\@127.0.0.2:63366\\mcp', false],
        ['http://127.0.0.2%5C@127.0.0.1:63365/mcp', false],
        ['http://127.0.0.2:80@127.0.0.1:63365/mcp', false],
        ['http://127.0.0.2:63366\\extra/mcp', true],
        ['http://127.0.0.1:63365%5C@127.0.0.2:63366/mcp', true],
        ['not a url', false],
      ];
      assert.deepEqual(table.map(([u]) => matched(m, url(u))), table.map(([, ok]) => ok));
    });
    it('serverCommand: the ordered invocation, element by element', () => {
      const m = [{ serverCommand: ['npx', '-y', 'server'] }];
      assert.deepEqual([command('npx', '-y', 'server'), command('npx', 'server'), command('npx', '-y', 'server', '--flag'), url('https://mcp.example.com')].map((i) => matched(m, i)), [true, false, false, false]);
    });
  });

  describe('deny first, then the allowlist', () => {
    it('nothing configured allows; an empty allowlist blocks; deny wins over allow; deny works without an allowlist', () => {
      assert.equal(checkServer(undefined, undefined, name('x')).outcome, 'allowed');
      assert.equal(checkServer([], undefined, name('x')).outcome, 'not-allowed');
      assert.deepEqual([name('github'), name('other')].map((i) => checkServer([{ serverName: 'github' }], undefined, i).outcome), ['allowed', 'not-allowed']);
      assert.deepEqual(checkServer([{ serverName: 'github' }], [{ serverName: 'github' }], name('github')), { outcome: 'denied', entry: { serverName: 'github' } });
      const deny = [{ serverUrl: 'https://*.untrusted.example.com/*' }];
      assert.equal(checkServer(undefined, deny, url('https://api.untrusted.example.com/mcp')).outcome, 'denied');
      assert.equal(checkServer(undefined, deny, url('https://api.trusted.example.com/mcp')).outcome, 'allowed');
    });
    it('an unresolved URL or command: name rules decide, URL and command rules cannot (fail closed)', () => {
      const templated = { name: 'templated', url: 'https://${input:environment}.example.com/mcp', unresolved: true };
      assert.equal(checkServer([{ serverName: 'templated' }], undefined, templated).outcome, 'allowed');
      assert.equal(checkServer(undefined, [{ serverName: 'templated' }], templated).outcome, 'denied');
      assert.equal(checkServer([{ serverName: 'different' }], undefined, templated).outcome, 'not-allowed');
      assert.equal(checkServer([{ serverUrl: 'https://allowed.example.com/*' }], undefined, templated).outcome, 'unresolved');
      assert.equal(checkServer(undefined, [{ serverUrl: 'https://denied.example.com/*' }], templated).outcome, 'unresolved');
      assert.equal(checkServer(undefined, [{ serverCommand: ['x'] }], templated).outcome, 'allowed', 'a command rule says nothing of a URL');
    });
  });

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

    it('an administrator file must be root\'s alone; the user\'s file lives in the DSH home; a workspace file is never read', async function () {
      if (process.getuid?.() !== 0) this.skip(); // ownership checks need root to create a root-owned file
      const dir = tempDir('admin-policy-');
      const file = path.join(dir, 'policy.json');
      writeFileSync(file, JSON.stringify({ deniedServers: [{ serverName: 'x' }] }));
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
  });

});
