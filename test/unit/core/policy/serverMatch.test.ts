import { strict as assert } from 'node:assert';
import { checkServer, serverMatchers, type ServerIdentity, type ServerMatcher } from '../../../../src/core/policy/serverMatch';
import { policyValueOf } from '../../../../src/core/policy/editorPolicy';

const name = (n: string) => ({ name: n });
const url = (u: string) => ({ name: 's', url: u });
const command = (...c: string[]) => ({ name: 's', command: c });
/** Whether a list admits the server (a list that is not configured admits nothing here). */
const matched = (matchers: ServerMatcher[] | undefined, identity: ServerIdentity) => !!matchers && checkServer(matchers, undefined, identity).outcome === 'allowed';

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
});
