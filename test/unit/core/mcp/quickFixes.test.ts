import { strict as assert } from 'node:assert';
import { detectFormatting, quickFixesFor, type QuickFix } from '../../../../src/core/mcp/quickFixes';
import type { Problem } from '../../../../src/core/problems/problems';
import { analyze, applyQuickFix, options } from '../../helpers';
import { analyzeSource } from '../../../../src/core/mcp/analyze';
import { DOT_MCP_SOURCE } from '../../../../src/core/mcp/sources';

/** The problems the real analyzer reports for `text`, with the given code. */
function problems(text: string, code: string): Problem[] {
  return analyze(text).problems.filter((p) => p.code === code);
}

function onlyFix(text: string, code: string): QuickFix {
  const found = problems(text, code);
  assert.equal(found.length, 1, `expected one ${code} problem, got ${found.length}`);
  const fixes = quickFixesFor(text, found[0]);
  assert.equal(fixes.length, 1, `expected one fix for ${code}`);
  return fixes[0];
}

/** After the fix, the analyzer no longer reports `code`. */
function assertFixed(after: string, code: string) {
  assert.deepEqual(problems(after, code), [], `${code} still reported after the fix:\n${after}`);
}

describe('quickFixes', () => {
  it('sse -> http: changes only the type value and keeps comments', () => {
    const text = '{\n  // my servers\n  "servers": {\n    "events": { "type": "sse", /* legacy */ "url": "https://x.example/sse" }\n  }\n}\n';
    const fix = onlyFix(text, 'unsupported-transport');
    assert.equal(fix.id, 'sse-to-http');
    const after = applyQuickFix(text, fix);
    assert.equal(after, text.replace('"sse"', '"http"'));
    assertFixed(after, 'unsupported-transport');
  });

  it('offers no transport fix for ws:// or unix: URLs (http would be wrong)', () => {
    const text = '{ "servers": { "w": { "type": "http", "url": "unix:///tmp/s.sock" } } }';
    const [p] = problems(text, 'unsupported-transport');
    assert.ok(p);
    assert.deepEqual(quickFixesFor(text, p), []);
  });

  it('removes sandboxEnabled and keeps the comment and the other fields', () => {
    const text = '{\n  "servers": {\n    "s": {\n      "command": "node", // the runtime\n      "sandboxEnabled": true,\n      "args": ["a.js"]\n    }\n  }\n}\n';
    const after = applyQuickFix(text, onlyFix(text, 'unsupported-sandbox'));
    assert.ok(!after.includes('sandboxEnabled'));
    assert.ok(after.includes('// the runtime'));
    assert.deepEqual(JSON.parse(after.replace('// the runtime', '')), { servers: { s: { command: 'node', args: ['a.js'] } } });
    assertFixed(after, 'unsupported-sandbox');
  });

  it('removes a last sandboxEnabled with the comma before it, keeping the comment in between', () => {
    const text = '{ "servers": { "s": { "command": "x", // why\n  "sandboxEnabled": true } } }';
    const after = applyQuickFix(text, onlyFix(text, 'unsupported-sandbox'));
    assert.equal(after, '{ "servers": { "s": { "command": "x" // why\n   } } }');
    assertFixed(after, 'unsupported-sandbox');
  });

  it('renames mcpServers to servers, keeping everything else byte for byte', () => {
    const text = '{\r\n  /* copied from Claude */\r\n  "mcpServers": {\r\n    "a": { "command": "x" },\r\n  },\r\n}\r\n';
    const after = applyQuickFix(text, onlyFix(text, 'wrong-root-key'));
    assert.equal(after, text.replace('"mcpServers"', '"servers"'));
    assertFixed(after, 'wrong-root-key');
  });

  it('moves the mcpServers entries into an existing servers instead of renaming (that would duplicate a key), as VS Code does', () => {
    const text = '{ "servers": {}, "mcpServers": { "a": { "command": "x" } } }';
    const [p] = problems(text, 'wrong-root-key');
    const [fix] = quickFixesFor(text, p);
    assert.equal(fix.id, 'merge-mcpServers');
    assert.deepEqual(JSON.parse(applyQuickFix(text, fix)), { servers: { a: { command: 'x' } } });
    assertFixed(applyQuickFix(text, fix), 'wrong-root-key');
  });

  it('adds password: true to an unmasked credential input', () => {
    const text = '{\n  "inputs": [\n    { "type": "promptString", "id": "other", "description": "x" },\n    { "type": "promptString", "id": "api-key", "description": "API key" } // keep\n  ],\n  "servers": { "s": { "command": "x", "env": { "API_KEY": "${input:api-key}" } } }\n}\n';
    const fix = onlyFix(text, 'unmasked-secret-input');
    assert.deepEqual(fix.args, { id: 'api-key' });
    const after = applyQuickFix(text, fix);
    assert.ok(after.includes('// keep'));
    const parsed = JSON.parse(after.replace('// keep', ''));
    assert.equal(parsed.inputs[1].password, true);
    assert.equal(parsed.inputs[0].password, undefined);
    assertFixed(after, 'unmasked-secret-input');
  });

  it('defines a missing credential input as a masked prompt, creating "inputs"', () => {
    const text = '{\n  // no inputs yet\n  "servers": { "s": { "command": "x", "env": { "GH": "${input:gh-token}" } } }\n}\n';
    const fix = onlyFix(text, 'undefined-input');
    assert.equal(fix.title, 'Define input "{id}" (masked prompt)');
    const after = applyQuickFix(text, fix);
    assert.ok(after.includes('// no inputs yet'));
    const parsed = JSON.parse(after.replace('// no inputs yet', ''));
    assert.deepEqual(parsed.inputs, [{ type: 'promptString', id: 'gh-token', description: 'gh-token', password: true }]);
    assertFixed(after, 'undefined-input');
    // The new input is then used by an exported server.
    assert.equal(analyze(after).servers.length, 1);
  });

  it('defines a non-credential input unmasked, appended to existing inputs, with the given description', () => {
    const text = '{ "inputs": [ { "type": "promptString", "id": "a", "description": "A" } ],\n  "servers": { "s": { "command": "x", "args": ["--region", "${input:region}"] } } }';
    const [p] = problems(text, 'undefined-input');
    const [fix] = quickFixesFor(text, p, { inputDescription: (id) => `Value of ${id}` });
    const parsed = JSON.parse(applyQuickFix(text, fix));
    assert.deepEqual(parsed.inputs[1], { type: 'promptString', id: 'region', description: 'Value of region' });
  });

  it('has no automatic fix for secret-in-args', () => {
    const text = '{ "inputs": [ { "type": "promptString", "id": "token", "description": "t", "password": true } ],\n  "servers": { "s": { "command": "x", "args": ["--token", "${input:token}"] } } }';
    const found = problems(text, 'secret-in-args');
    assert.equal(found.length, 1);
    assert.deepEqual(quickFixesFor(text, found[0]), []);
  });

  it('keeps CRLF and tab indentation in inserted text', () => {
    const text = '{\r\n\t"servers": {\r\n\t\t"s": { "command": "x", "env": { "T": "${input:tok}" } }\r\n\t}\r\n}\r\n';
    assert.deepEqual(detectFormatting(text), { insertSpaces: false, tabSize: 4, eol: '\r\n' });
    const after = applyQuickFix(text, onlyFix(text, 'undefined-input'));
    assert.ok(!/[^\r]\n/.test(after), 'a bare LF was inserted into a CRLF file');
    assert.ok(after.includes('\t"inputs"'));
  });

  describe('in .mcp.json, its dialect (mcpServers, no inputs)', () => {
    const dotMcp = (text: string) => analyzeSource(Buffer.from(text, 'utf8'), options(), DOT_MCP_SOURCE).problems;
    const fixOf = (text: string, code: string) => {
      const found = dotMcp(text).filter((p) => p.code === code);
      assert.equal(found.length, 1, `one ${code} in .mcp.json: ${dotMcp(text).map((p) => p.code)}`);
      return quickFixesFor(text, found[0]);
    };

    it('sse -> http and "remove sandboxEnabled" edit the entry under mcpServers (and in a flat file), comments kept', () => {
      for (const [text, code, id, expected] of [
        ['{\n  // ours\n  "mcpServers": {\n    "e": { "type": "sse", "url": "https://x.example/sse" }\n  }\n}\n', 'unsupported-transport', 'sse-to-http', '{\n  // ours\n  "mcpServers": {\n    "e": { "type": "http", "url": "https://x.example/sse" }\n  }\n}\n'],
        ['{ "e": { "type": "sse", "url": "https://x.example/sse" } }', 'unsupported-transport', 'sse-to-http', '{ "e": { "type": "http", "url": "https://x.example/sse" } }'],
        ['{\n  "mcpServers": {\n    "s": {\n      "command": "node", // the server\n      "sandboxEnabled": true\n    }\n  }\n}\n', 'unsupported-sandbox', 'remove-sandbox', '{\n  "mcpServers": {\n    "s": {\n      "command": "node" // the server\n    }\n  }\n}\n'],
      ] as const) {
        const fixes = fixOf(text, code);
        assert.deepEqual(fixes.map((f) => f.id), [id]);
        const after = applyQuickFix(text, fixes[0]);
        assert.equal(after, expected);
        assert.deepEqual(dotMcp(after).filter((p) => p.code === code), []);
      }
    });

    it('VS Code\'s format pasted into .mcp.json: wrong-dialect, fixed by the rename to mcpServers', () => {
      const text = '{\n  "servers": { "a": { "command": "node" } }\n}\n';
      const fixes = fixOf(text, 'wrong-dialect');
      assert.deepEqual(fixes.map((f) => f.id), ['rename-servers']);
      assert.deepEqual(dotMcp(applyQuickFix(text, fixes[0])), []);
    });

    it('the input fixes of .vscode/mcp.json have no counterpart: .mcp.json has no inputs (not-resolved-here, no fix)', () => {
      const text = '{ "mcpServers": { "i": { "command": "node", "env": { "K": "${input:k}" } } } }';
      const codes = dotMcp(text).map((p) => p.code);
      assert.deepEqual(codes, ['not-resolved-here']);
      assert.deepEqual(quickFixesFor(text, dotMcp(text)[0]), []);
      // The same problem code .vscode/mcp.json fixes by defining the input gets no fix here.
      assert.deepEqual(quickFixesFor(text, { ...dotMcp(text)[0], code: 'undefined-input', args: { id: 'k' } }), []);
    });
  });
});
