import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { covered, tempDir } from '../helpers';
import { CLI, ROOT, cli, fixture, multiRoot } from '../core/mcp/sources.fixture';

describe('sources: every file VS Code runs servers from (docs/sources.md)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  describe('through the CLI (dist/cli.js)', () => {
    it('a folder with only .mcp.json: check, export, verify and the help work from it as from .vscode/mcp.json', () => {
      const home = tempDir('cli-home-');
      const folder = tempDir('only-dot-mcp-');
      const dotMcp = '{\n  // portable\n  "mcpServers": {\n    "notes": { "command": "node", "args": ["notes.js"] },\n    "docs": { "type": "http", "url": "https://mcp.example.com/mcp" }\n  }\n}\n';
      writeFileSync(path.join(folder, '.mcp.json'), dotMcp);
      const check = cli(['check', '--workspace', folder, '--json'], home);
      assert.equal(check.code, 0, check.stderr);
      assert.deepEqual(check.json().problems, []);
      const exported = cli(['export', '--workspace', folder, '--json'], home);
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(exported.json().servers.map((s: { name: string; transport: string }) => [s.name, s.transport]), [['notes', 'stdio'], ['docs', 'streamable-http']]);
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.equal(declaration.source.path, '.mcp.json');
      assert.equal(cli(['verify', '--workspace', folder], home).code, 0);
      writeFileSync(path.join(folder, '.mcp.json'), dotMcp.replace('notes.js', 'other.js'));
      const stale = cli(['verify', '--workspace', folder], home);
      assert.equal(stale.code, 1);
      assert.match(stale.stdout, /\.mcp\.json changed since the export/);
      assert.match(cli(['--help'], home).stdout, /export {3}Write \.dsh\/declaration\.json from the folder's MCP files \(\.mcp\.json, \.vscode\/mcp\.json, \.\.\.\)/);
    });

    it('the issue\'s two files: .vscode/mcp.json "shared" as sse, .mcp.json "shared" as stdio: nothing of "shared" is exported, shadowed-server on the .mcp.json entry', () => {
      const home = tempDir('cli-home-');
      const vscode = '{\n  "servers": {\n    "shared": { "type": "sse", "url": "https://mcp.example.com/sse" }\n  }\n}\n';
      const dotMcp = '{\n  "mcpServers": {\n    "shared": { "command": "node", "args": ["./not-what-vscode-runs.js"] }\n  }\n}\n';
      const { folder } = multiRoot({ vscode, dotMcp });
      const r = cli(['export', '--workspace', folder, '--json'], home);
      assert.equal(r.code, 0, r.stderr);
      const out = r.json();
      assert.deepEqual(out.servers, []);
      const shadowed = out.problems.find((p: { code: string }) => p.code === 'shadowed-server');
      assert.equal(shadowed.file, '.mcp.json');
      assert.equal(covered(dotMcp, shadowed.range), '"shared"');
      assert.equal(shadowed.related[0].file, '.vscode/mcp.json');
      assert.equal(covered(vscode, shadowed.related[0].range), '"shared"');
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.deepEqual(declaration.servers, []);
      assert.ok(!readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8').includes('not-what-vscode-runs'));
      const human = cli(['check', '--workspace', folder], home);
      assert.match(human.stdout, /\.mcp\.json:3:5 warning shadowed-server: Server "shared" is also defined in \.vscode\/mcp\.json/);
    });

    it('export --code-workspace: servers with their files, problems located in their files, verify stale after an edit', () => {
      const home = tempDir('cli-home-');
      const { folder, codeWorkspace } = multiRoot({
        vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json'), devcontainer: fixture('devcontainer.json'), codeWorkspace: fixture('multi.code-workspace'),
      });
      const r = cli(['export', '--workspace', folder, '--code-workspace', codeWorkspace, '--json'], home);
      assert.equal(r.code, 0, r.stderr);
      const out = r.json();
      assert.deepEqual(out.servers.map((s: { name: string; source?: string }) => [s.name, s.source ?? null]), [
        ['github', null], ['files', '.mcp.json'], ['docs', '.mcp.json'], ['bad-var', '.mcp.json'], ['time', codeWorkspace], ['postgres', '.devcontainer/devcontainer.json'],
      ]);
      const variable = out.problems.find((p: { code: string }) => p.code === 'not-resolved-here');
      assert.equal(variable.file, '.mcp.json');
      assert.equal(covered(fixture('dot-mcp.json'), variable.range), '${HOME}');
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.deepEqual(declaration.sources.map((s: { path: string }) => s.path), ['.mcp.json', codeWorkspace, '.devcontainer/devcontainer.json', '.devcontainer.json']);
      assert.equal(declaration.servers[1].source, '.mcp.json');

      const human = cli(['check', '--workspace', folder, '--code-workspace', codeWorkspace], home);
      assert.match(human.stdout, /^SERVER\s+DSH NAME\s+TRANSPORT\s+FROM\s+PIN$/m);
      assert.match(human.stdout, /\.mcp\.json:\d+:\d+ warning shadowed-server: Server "github" is also defined in \.vscode\/mcp\.json/);

      assert.equal(cli(['verify', '--workspace', folder], home).code, 0);
      writeFileSync(path.join(folder, '.devcontainer/devcontainer.json'), fixture('devcontainer.json').replace('0.6.2', '0.6.3'));
      const stale = cli(['verify', '--workspace', folder, '--json'], home);
      assert.equal(stale.code, 1);
      assert.match(stale.stdout, /devcontainer\.json changed since the export/);
    });
  });
});
