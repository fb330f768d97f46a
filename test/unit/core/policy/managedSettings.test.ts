import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { managedBag, managedRules, parseManagedSettingsJson, parsePlistXml, parseRegQuery } from '../../../../src/core/policy/managedSettings';
import { dshPolicyBlock, managedLayer } from '../../../../src/core/policy/dshPolicy';
import { managedSettingsFile, managedSettingsPaths, readManagedSettings } from '../../../../src/core/node/managedSettingsFiles';
import { readDshPolicy } from '../../../../src/core/node/policyFiles';
import { tempDir } from '../../helpers';

// The OS-specific channels are fed output captured in the documented formats (the OS is not here):
// `reg query HKLM\SOFTWARE\Policies\GitHubCopilot /s` (CRLF, four-space columns) and the XML
// property list `plutil -convert xml1 -o - /Library/Managed Preferences/com.github.copilot.plist` prints.
const FIXTURES = path.join(__dirname, 'fixtures');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

describe('policy: GitHub Copilot managed settings', () => {
  describe('the file channel (managed-settings.json)', () => {
    it('reads the MCP keys: lists as arrays or as JSON strings, sandbox nested or dotted; other keys are ignored', () => {
      const rules = managedRules('file', '/etc/github-copilot/managed-settings.json', parseManagedSettingsJson(JSON.stringify({
        allowedMcpServers: [{ serverName: 'github' }, { serverName: 'a', serverUrl: 'https://x' }],
        deniedMcpServers: '[{"serverUrl": "https://*.bad.example/*"}]',
        sandbox: { enabled: true }, model: 'auto', enabledPlugins: { x: true },
      })));
      assert.deepEqual(rules.allow, [{ serverName: 'github' }], 'an entry with two fields is dropped, as VS Code drops it');
      assert.deepEqual(rules.deny, [{ serverUrl: 'https://*.bad.example/*' }]);
      assert.equal(rules.sandboxForced, true, 'sandbox.enabled without allowBypass');
      assert.equal(rules.refused, undefined);
      const dotted = managedRules('file', 'f', parseManagedSettingsJson('{"sandbox.enabled": true, "sandbox.allowBypass": true}'));
      assert.equal(dotted.sandboxForced, false, 'an explicit allowBypass lets local servers run');
      assert.equal(managedRules('file', 'f', parseManagedSettingsJson('{}')).allow, undefined, 'absent list: no restriction');
      assert.deepEqual(managedRules('file', 'f', parseManagedSettingsJson('{"allowedMcpServers": []}')).allow, [], '[]: block all');
      assert.deepEqual(managedRules('file', 'f', parseManagedSettingsJson('{"allowManagedMcpServersOnly": true}')).allow, [], 'managed-only without a managed list: nothing allowed');
    });

    it('a malformed file fails closed with the place of the fault (VS Code logs it and applies none of it)', () => {
      const trailing = managedRules('file', 'f', parseManagedSettingsJson('{\n  "deniedMcpServers": [{"serverName": "x"}],\n}'));
      assert.match(trailing.refused!, /^line 3, column 1: /);
      const comment = managedRules('file', 'f', parseManagedSettingsJson('// admins\n{}'));
      assert.match(comment.refused!, /^line 1, column 1: /, 'JSON.parse takes no comments');
      assert.match(managedRules('file', 'f', parseManagedSettingsJson('[1]')).refused!, /not a JSON object/);
      const wrongType = managedRules('file', 'f', parseManagedSettingsJson('{\n  "deniedMcpServers": {"serverName": "x"}\n}'));
      assert.equal(wrongType.refused, 'line 2, column 23: deniedMcpServers is not a list');
      assert.match(managedRules('file', 'f', parseManagedSettingsJson('{"sandbox": {"enabled": "yes"}}')).refused!, /sandbox\.enabled is not true or false/);
      assert.match(managedRules('file', 'f', parseManagedSettingsJson('{"allowedMcpServers": "[oops"}')).refused!, /allowedMcpServers is a string that is not JSON/);
      // Refused: every server is withheld, whatever its name.
      assert.equal(dshPolicyBlock({ layers: [managedLayer(trailing)] }, { name: 'anything' })?.code, 'managed-unreadable');
    });
  });

  describe('native MDM', () => {
    it('Windows: reg query output (REG_SZ lists of JSON, REG_DWORD flags, a subkey for sandbox)', () => {
      const values = parseRegQuery(fixture('reg-query-hklm.txt'), 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\GitHubCopilot');
      assert.deepEqual(Object.keys(values).sort(), ['allowManagedMcpServersOnly', 'allowedMcpServers', 'deniedMcpServers', 'forceRemoteSettingsRefresh', 'sandbox.allowBypass', 'sandbox.enabled']);
      const rules = managedRules('mdm', 'HKLM\\SOFTWARE\\Policies\\GitHubCopilot', managedBag(values));
      assert.deepEqual(rules.allow, [{ serverUrl: 'https://*.githubcopilot.com/*' }, { serverName: 'github' }]);
      assert.deepEqual(rules.deny, [{ serverCommand: ['npx', '-y', 'some-server'] }]);
      assert.equal(rules.managedOnly, true);
      assert.equal(rules.sandboxForced, true);
      assert.deepEqual(parseRegQuery('\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Other\r\n    deniedMcpServers    REG_SZ    []\r\n', 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\GitHubCopilot'), {}, 'another key\'s values are not read');
    });

    it('macOS: the managed preferences as an XML property list', () => {
      const bag = parsePlistXml(fixture('managed-preferences.plist'));
      assert.ok(bag.ok);
      assert.equal(bag.values.Comment, 'R&D <fleet>', 'entities decoded');
      const rules = managedRules('mdm', '/Library/Managed Preferences/com.github.copilot.plist', bag);
      assert.deepEqual(rules.deny, [{ serverName: 'filesystem' }]);
      assert.deepEqual(rules.allow, [{ serverUrl: 'https://*.githubcopilot.com/*' }, { serverName: 'github' }]);
      assert.equal(rules.sandboxForced, true);
      assert.equal(parsePlistXml('<plist><dict><key>a</key><bogus/></dict></plist>').ok, false, 'an unknown element is a fault');
      assert.equal(parsePlistXml('<plist><array/></plist>').ok, false, 'the top must be a dictionary');
    });
  });

  describe('at mount: a layer of the DSH policy', () => {
    const layer = (settings: object) => managedLayer(managedRules('file', '/etc/github-copilot/managed-settings.json', parseManagedSettingsJson(JSON.stringify(settings))));
    it('deny first, then the forced sandbox (local servers only), then the allowlist; each block names its channel', () => {
      const policy = { layers: [layer({ deniedMcpServers: [{ serverName: 'bad' }], allowedMcpServers: [{ serverUrl: 'https://*.corp.example/*' }] })] };
      assert.deepEqual(dshPolicyBlock(policy, { name: 'bad', url: 'https://a.corp.example/x' }), { code: 'managed-denied', file: '/etc/github-copilot/managed-settings.json', origin: 'managed', rule: '{"serverName":"bad"}', channel: 'file' });
      assert.equal(dshPolicyBlock(policy, { name: 'ok', url: 'https://a.corp.example/x' }), undefined);
      assert.equal(dshPolicyBlock(policy, { name: 'ok', url: 'https://corp.example/x' })?.code, 'managed-not-allowed');
      const sandboxed = { layers: [layer({ sandbox: { enabled: true, allowBypass: false } })] };
      assert.equal(dshPolicyBlock(sandboxed, { name: 'local', command: ['node', 'server.js'] })?.code, 'managed-sandbox');
      assert.equal(dshPolicyBlock(sandboxed, { name: 'remote', url: 'https://mcp.example.com/' }), undefined, 'a remote server is not run by DSH: the sandbox does not concern it');
    });

    it('reads the machine\'s file where VS Code does, and one more file (env or --managed-settings) that only narrows', async () => {
      assert.equal(managedSettingsFile('linux'), '/etc/github-copilot/managed-settings.json');
      assert.equal(managedSettingsFile('darwin'), '/Library/Application Support/GitHubCopilot/managed-settings.json');
      assert.equal(managedSettingsFile('win32', { ProgramFiles: 'D:\\Programs' }), 'D:\\Programs\\GitHubCopilot\\managed-settings.json');
      const dir = tempDir('managed-');
      const file = path.join(dir, 'managed-settings.json');
      assert.deepEqual(await readManagedSettings({ env: { DSH_BRIDGE_MANAGED_SETTINGS: file }, platform: 'linux' }), [], 'no file: nothing');
      writeFileSync(file, '{"theme": "dark"}');
      assert.deepEqual(await readManagedSettings({ env: { DSH_BRIDGE_MANAGED_SETTINGS: file }, platform: 'linux' }), [], 'no MCP key: no layer');
      writeFileSync(file, '{"deniedMcpServers": [{"serverName": "x"}]}');
      const [channel] = await readManagedSettings({ extraFile: file, env: {}, platform: 'linux' });
      assert.deepEqual([channel.channel, channel.location, channel.deny], ['file', file, [{ serverName: 'x' }]]);
      const policy = await readDshPolicy(tempDir('dsh-home-'), { DSH_BRIDGE_MANAGED_SETTINGS: file });
      assert.deepEqual(policy.layers.map((l) => [l.origin, l.channel, l.file]), [['managed', 'file', file]], 'the plugin\'s policy read has it as a layer');
      assert.deepEqual(await readManagedSettings({ env: { DSH_BRIDGE_MANAGED_SETTINGS: 'relative.json' }, platform: 'linux' }), [], 'only an absolute path is taken');
    });

    it('names the files it reads, for a face to read their stamps again (the same list the reads open)', () => {
      assert.deepEqual(managedSettingsPaths({ env: {}, platform: 'linux' }), ['/etc/github-copilot/managed-settings.json']);
      assert.deepEqual(managedSettingsPaths({ env: { DSH_BRIDGE_MANAGED_SETTINGS: '/tmp/m.json' }, extraFile: '/tmp/m.json', platform: 'linux' }), ['/etc/github-copilot/managed-settings.json', '/tmp/m.json'], 'the extra file once');
      assert.deepEqual(managedSettingsPaths({ env: { DSH_BRIDGE_MANAGED_SETTINGS: 'relative.json' }, platform: 'linux' }), ['/etc/github-copilot/managed-settings.json'], 'only an absolute path');
      const mac = managedSettingsPaths({ env: {}, platform: 'darwin' });
      assert.equal(mac[0], '/Library/Managed Preferences/com.github.copilot.plist');
      assert.equal(mac.at(-1), '/Library/Application Support/GitHubCopilot/managed-settings.json');
    });
  });
});
