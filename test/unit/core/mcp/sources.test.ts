import { strict as assert } from 'node:assert';
import { quickFixesFor } from '../../../../src/core/mcp/quickFixes';
import { DEVCONTAINER_SOURCE, DOT_MCP_SOURCE } from '../../../../src/core/mcp/sources';
import { applyQuickFix, codes, covered, options } from '../../helpers';
import type { StdioDeclaredServer } from '../../../../src/core/declaration/declarationModel';
import { analyzeAs, fixture } from './sources.fixture';

describe('sources: every file VS Code runs servers from (docs/sources.md)', function () {
  describe('one file at a time, with exact ranges in that file', () => {
    it('.mcp.json: JSONC with comments, trailing commas and Windows paths, the default cwd is the folder', () => {
      const text = fixture('dot-mcp.json');
      const a = analyzeAs(text, DOT_MCP_SOURCE);
      assert.ok(a.usable);
      assert.equal(a.sourcePath, '.mcp.json');
      assert.deepEqual(a.servers.map((s) => s.name), ['files', 'docs', 'github', 'bad-var']);
      const files = a.servers[0];
      assert.ok(files.transport === 'stdio');
      assert.equal(files.command, 'C:\\Program Files\\nodejs\\node.exe');
      assert.deepEqual(files.args, ['C:\\tools\\mcp\\files-server.js', '--root', 'D:\\work\\repo']);
      assert.equal(files.cwd, options().folder);
      // VS Code starts .mcp.json servers without resolving variables: Claude Code's ${HOME} reaches
      // the server as written, so it is exported as written, with a warning located in this file.
      const literal = a.problems.find((p) => p.code === 'not-resolved-here')!;
      assert.equal(literal.file, '.mcp.json');
      assert.equal(literal.severity, 'warning');
      assert.equal(covered(text, literal.range), '${HOME}');
      assert.deepEqual(a.rejected, []);
      assert.deepEqual((a.servers[3] as StdioDeclaredServer).args, ['${HOME}/srv.js']);
    });

    it('.mcp.json: ${input:} and ${workspaceFolder} are not resolved (no "inputs" to point to), as VS Code runs them', () => {
      const text = '{ "mcpServers": { "a": { "command": "node", "args": ["${workspaceFolder}/a.js"], "env": { "TOKEN": "${input:tok}" } } } }';
      const a = analyzeAs(text, DOT_MCP_SOURCE);
      assert.deepEqual(codes(a), ['not-resolved-here', 'not-resolved-here']);
      const input = a.problems.find((p) => covered(text, p.range) === '${input:tok}')!;
      assert.equal(input.message, 'VS Code resolves no variable in .mcp.json: the server receives ${input:tok} as written, and so does DSH. To use an input or a variable, define the server in .vscode/mcp.json.');
      assert.ok(!a.problems.some((p) => /"inputs"/.test(p.message)), 'no advice to add an input .mcp.json cannot have');
      const server = a.servers[0] as StdioDeclaredServer;
      assert.deepEqual([server.args, server.env, server.inputRefs], [['${workspaceFolder}/a.js'], { TOKEN: '${input:tok}' }, []]);
      assert.deepEqual(a.inputs, []);
    });

    it('.mcp.json: the flat map newer VS Code builds read', () => {
      const a = analyzeAs('{ "a": { "command": "node", "args": ["a.js"] }, }', DOT_MCP_SOURCE);
      assert.deepEqual(a.servers.map((s) => s.name), ['a']);
    });

    it('.mcp.json in VS Code\'s format: wrong-dialect on the key, nothing exported, a fix to mcpServers', () => {
      const text = fixture('wrong-dialect.mcp.json');
      const a = analyzeAs(text, DOT_MCP_SOURCE);
      const wrong = a.problems.filter((p) => p.code === 'wrong-dialect');
      assert.deepEqual(wrong.map((p) => covered(text, p.range)), ['"servers"', '"inputs"']);
      assert.equal(wrong[0].severity, 'error');
      assert.deepEqual(a.servers, []);
      const [fix] = quickFixesFor(text, wrong[0]);
      const after = applyQuickFix(text, fix);
      assert.equal(after, text.replace('"servers"', '"mcpServers"'));
      assert.deepEqual(analyzeAs(after, DOT_MCP_SOURCE).servers.map((s) => s.name), ['a']);
      assert.deepEqual(quickFixesFor(text, wrong[1]), [], 'inputs have no place in .mcp.json');
    });

    it('.vscode/mcp.json with mcpServers: exported as VS Code runs them, a warning with the rename', () => {
      const text = '{\n  // pasted from another client\n  "mcpServers": {\n    "a": { "command": "node", "args": ["a.js"] },\n  },\n}\n';
      const a = analyzeAs(text, { path: '.vscode/mcp.json', dialect: 'vscode' });
      assert.deepEqual(a.servers.map((s) => s.name), ['a']);
      const p = a.problems.find((x) => x.code === 'wrong-root-key')!;
      assert.equal(p.severity, 'warning');
      assert.match(p.message, /VS Code runs these servers/);
      assert.equal(applyQuickFix(text, quickFixesFor(text, p)[0]), text.replace('"mcpServers"', '"servers"'));
    });

    it('.vscode/mcp.json with servers and mcpServers: mcpServers wins a name (VS Code\'s merge), the fix moves the entries', () => {
      const text = '{\n  "servers": {\n    "a": { "command": "old" },\n    "b": { "command": "b" }\n  },\n  "mcpServers": {\n    "a": { "command": "new" }\n  }\n}\n';
      const a = analyzeAs(text, { path: '.vscode/mcp.json', dialect: 'vscode' });
      assert.deepEqual(a.servers.map((s) => [s.name, s.transport === 'stdio' && s.command]), [['b', 'b'], ['a', 'new']]);
      const shadowed = a.problems.find((p) => p.code === 'shadowed-server')!;
      assert.equal(covered(text, shadowed.range), '"a"');
      assert.equal(shadowed.range.start.line, 2, 'on the servers entry, the one VS Code drops');
      assert.equal(covered(text, shadowed.related![0].range), '"a"');
      assert.equal(shadowed.related![0].range.start.line, 6);
      assert.deepEqual(a.rejected, [{ name: 'a', codes: ['shadowed-server'] }]);
      const [fix] = quickFixesFor(text, a.problems.find((p) => p.code === 'wrong-root-key')!);
      assert.equal(fix.id, 'merge-mcpServers');
      const after = JSON.parse(applyQuickFix(text, fix));
      assert.deepEqual(after, { servers: { a: { command: 'new' }, b: { command: 'b' } } });
    });

    it('.code-workspace: settings.mcp, with ranges in the workspace file', () => {
      const text = fixture('multi.code-workspace');
      const a = analyzeAs(text, { path: '/ws/multi.code-workspace', dialect: 'code-workspace' });
      assert.deepEqual(a.servers.map((s) => s.name), ['time', 'docs']);
      const unpinned = analyzeAs(text.replace('mcp-server-time==0.6.2', 'mcp-server-time'), { path: '/ws/multi.code-workspace', dialect: 'code-workspace' })
        .problems.find((p) => p.code === 'unpinned-package')!;
      assert.equal(unpinned.file, '/ws/multi.code-workspace');
      assert.equal(covered(text.replace('mcp-server-time==0.6.2', 'mcp-server-time'), unpinned.range), '"mcp-server-time"');
      assert.deepEqual(analyzeAs('{ "folders": [], "settings": { "editor.tabSize": 2 } }', { path: '/ws/x.code-workspace', dialect: 'code-workspace' }).servers, []);
    });

    it('devcontainer.json: customizations.vscode.mcp with its inputs; quick fixes edit inside the section', () => {
      const text = fixture('devcontainer.json');
      const a = analyzeAs(text, DEVCONTAINER_SOURCE);
      assert.deepEqual(a.servers.map((s) => s.name), ['postgres']);
      assert.deepEqual(a.inputs.map((i) => [i.id, i.password]), [['db-password', true]]);
      const unmasked = text.replace(', "password": true', '');
      const p = analyzeAs(unmasked, DEVCONTAINER_SOURCE).problems.find((x) => x.code === 'unmasked-secret-input')!;
      assert.equal(p.file, '.devcontainer/devcontainer.json');
      assert.equal(covered(unmasked, p.range), '"db-password"');
      const fixed = applyQuickFix(unmasked, quickFixesFor(unmasked, p)[0]);
      assert.ok(!codes(analyzeAs(fixed, DEVCONTAINER_SOURCE)).includes('unmasked-secret-input'), fixed);
      assert.ok(fixed.includes('// A dev container with its own MCP server'));
    });
  });
});
