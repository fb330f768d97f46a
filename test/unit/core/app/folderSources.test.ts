import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { covered, options, tempDir, exportFolder, FILE_PORTS, folderIdentityOf, testPorts } from '../../helpers';
import { HostStore } from '../../../../src/core/node/hostStore';
import { probeFolder } from '../../../../src/core/app/probe';
import { CLI, ROOT, cli, fixture, multiRoot } from '../mcp/sources.fixture';
import { analyzeFolder } from '../../../../src/core/app/folderSources';
import { verifyFolder } from '../../../../src/core/app/verify';

describe('sources: every file VS Code runs servers from (docs/sources.md)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  describe('a folder: merged in VS Code\'s order, pinned, stale on any change', () => {
    it('stale only when a session would get something else: a comment, whitespace or a trailing comma in mcp.json is not a change; a changed argument or reordered servers are (issue 35)', async () => {
      const home = tempDir('fresh-home-');
      const folder = tempDir('fresh-ws-');
      const mcp = path.join(folder, '.vscode/mcp.json');
      mkdirSync(path.dirname(mcp), { recursive: true });
      writeFileSync(mcp, '{"servers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}');
      assert.ok((await exportFolder(testPorts(home), folder)).written);
      const reasons = async () => (await verifyFolder(testPorts(home), folder)).reasons.map((x) => x.message);
      writeFileSync(mcp, '// my servers\r\n{\r\n  "servers": {\r\n    "a": { "command": "node", "args": ["a.js",] }, /* b next */\r\n    "b": {"command": "node", "args": ["b.js"]},\r\n  },\r\n}\r\n');
      assert.deepEqual(await reasons(), [], 'a comment, CRLF, whitespace and trailing commas');
      writeFileSync(mcp, '{"servers": {"a": {"command": "node", "args": ["a.js", "--verbose"]}, "b": {"command": "node", "args": ["b.js"]}}}');
      assert.deepEqual(await reasons(), ['the source .vscode/mcp.json changed since the export'], 'a changed argument');
      writeFileSync(mcp, '{"servers": {"b": {"command": "node", "args": ["b.js"]}, "a": {"command": "node", "args": ["a.js"]}}}');
      assert.deepEqual(await reasons(), ['the source .vscode/mcp.json changed since the export'], 'reordered servers');
      writeFileSync(mcp, '{"servers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}');
      assert.deepEqual(await reasons(), ['the source .vscode/mcp.json changed since the export'], 'a syntax error');
    });

    it('exports every source, names each server\'s file, and marks the shadowed definitions', async () => {
      const { folder, codeWorkspace } = multiRoot({
        vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json'), devcontainer: fixture('devcontainer.json'), codeWorkspace: fixture('multi.code-workspace'),
      });
      const a = await analyzeFolder(FILE_PORTS, { ...options({ folder }), codeWorkspaceFile: codeWorkspace });
      assert.ok(a.usable);
      assert.deepEqual(a.servers.map((s) => [s.name, s.source ?? a.sourcePath]), [
        ['github', '.vscode/mcp.json'], ['files', '.mcp.json'], ['docs', '.mcp.json'], ['bad-var', '.mcp.json'], ['time', codeWorkspace], ['postgres', '.devcontainer/devcontainer.json'],
      ]);
      const shadowed = a.problems.filter((p) => p.code === 'shadowed-server');
      assert.deepEqual(shadowed.map((p) => [p.file, p.args.name, p.related?.[0].file]), [
        ['.mcp.json', 'github', '.vscode/mcp.json'], [codeWorkspace, 'docs', '.mcp.json'],
      ]);
      const dotMcp = fixture('dot-mcp.json');
      assert.equal(covered(dotMcp, shadowed[0].range), '"github"');
      assert.equal(covered(fixture('vscode-mcp.json'), shadowed[0].related![0].range), '"github"');
      assert.deepEqual(a.sources, [
        { path: '.mcp.json', sha256: a.sources![0].sha256, content: a.sources![0].content }, { path: codeWorkspace, sha256: a.sources![1].sha256 }, { path: '.devcontainer/devcontainer.json', sha256: a.sources![2].sha256 },
        { path: '.devcontainer.json', sha256: null },
      ]);
      assert.ok(a.sources!.slice(0, 3).every((s) => /^[0-9a-f]{64}$/.test(s.sha256!)));
      // .mcp.json: its bytes for the record, its content for freshness; the workspace and dev container pins are content pins already.
      assert.match(a.sources![0].content ?? '', /^[0-9a-f]{64}$/);
      assert.notEqual(a.sources![0].content, a.sources![0].sha256);
    });

    it('verify is stale after an edit, a removal or a creation of any source; the DSH side uses the same verify', async () => {
      const home = tempDir('dsh-home-');
      const { folder, codeWorkspace } = multiRoot({ vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json'), codeWorkspace: fixture('multi.code-workspace') });
      const exportNow = async () => {
        const r = await exportFolder(testPorts(home), folderIdentityOf(folder, {}, { codeWorkspaceFile: codeWorkspace }));
        assert.ok(r.written || r.unchanged, 'exported');
        assert.ok((await verifyFolder(testPorts(home), folder)).ok);
      };
      const staleAfter = async (change: () => void, why: RegExp) => {
        await exportNow();
        change();
        const v = await verifyFolder(testPorts(home), folder);
        assert.equal(v.ok, false);
        assert.ok(v.reasons.some((r) => r.code === 'stale' && why.test(r.message)), JSON.stringify(v.reasons));
      };
      await staleAfter(() => writeFileSync(path.join(folder, '.mcp.json'), fixture('dot-mcp.json').replace('D:\\\\work\\\\repo', 'D:\\\\work\\\\other')), /\.mcp\.json changed/);
      await staleAfter(() => writeFileSync(codeWorkspace, fixture('multi.code-workspace').replace('0.6.2', '0.6.3')), /multi\.code-workspace changed/);
      await staleAfter(() => {
        mkdirSync(path.join(folder, '.devcontainer'));
        writeFileSync(path.join(folder, '.devcontainer/devcontainer.json'), fixture('devcontainer.json'));
      }, /devcontainer\.json was created/);
      await staleAfter(() => rmSync(path.join(folder, '.mcp.json')), /\.mcp\.json was removed/);
    });

    it('a workspace or dev container file is pinned by its MCP section: an unrelated edit keeps the declaration fresh', async () => {
      const home = tempDir('dsh-home-');
      const { folder, codeWorkspace } = multiRoot({ devcontainer: fixture('devcontainer.json'), codeWorkspace: fixture('multi.code-workspace') });
      const r = await exportFolder(testPorts(home), folderIdentityOf(folder, {}, { codeWorkspaceFile: codeWorkspace }));
      assert.ok(r.written);
      // Neither .vscode/mcp.json nor .mcp.json: the workspace file (absolute) is the declaration's source.
      const decl = JSON.parse(r.text!);
      assert.equal(decl.source.path, codeWorkspace);
      assert.ok((await verifyFolder(testPorts(home), folder)).ok);
      const devcontainer = path.join(folder, '.devcontainer/devcontainer.json');
      writeFileSync(devcontainer, fixture('devcontainer.json').replace('"name": "app"', '"name": "app2", "forwardPorts": [3000]'));
      writeFileSync(codeWorkspace, fixture('multi.code-workspace').replace('// servers for every folder of the workspace', '"editor.tabSize": 2,'));
      assert.deepEqual((await verifyFolder(testPorts(home), folder)).reasons, [], 'edits outside the MCP sections');
      writeFileSync(codeWorkspace, fixture('multi.code-workspace').replace('0.6.2', '0.6.3'));
      const stale = await verifyFolder(testPorts(home), folder);
      assert.ok(stale.reasons.some((x) => x.code === 'stale' && x.message.includes(`${codeWorkspace} changed`)), JSON.stringify(stale.reasons));
      writeFileSync(codeWorkspace, '{ "settings": { "mcp": ');
      assert.ok((await verifyFolder(testPorts(home), folder)).reasons.some((x) => x.code === 'stale'), 'a file that no longer parses is a change');
    });

    it('with only .mcp.json, it is the declaration\'s source; one unusable source stops the export', async () => {
      const { folder } = multiRoot({ dotMcp: fixture('dot-mcp.json') });
      const a = await analyzeFolder(FILE_PORTS, options({ folder }));
      assert.ok(a.usable);
      assert.equal(a.sourcePath, '.mcp.json');
      assert.deepEqual(a.sources!.map((s) => [s.path, s.sha256]), [['.vscode/mcp.json', null], ['.devcontainer/devcontainer.json', null], ['.devcontainer.json', null]]);
      assert.ok(a.servers.every((s) => s.source === undefined));
      mkdirSync(path.join(folder, '.devcontainer'));
      writeFileSync(path.join(folder, '.devcontainer/devcontainer.json'), '{ "customizations": { "vscode": { "mcp": { "servers": { ');
      const broken = await analyzeFolder(FILE_PORTS, options({ folder }));
      assert.equal(broken.usable, false);
      assert.ok(broken.problems.some((p) => p.code === 'invalid-json' && p.file === '.devcontainer/devcontainer.json'));
    });

    it('every place a dev container configuration can be: .devcontainer/devcontainer.json, .devcontainer.json, .devcontainer/<name>/devcontainer.json', async () => {
      const home = tempDir('dsh-home-');
      const { folder } = multiRoot({ vscode: '{ "servers": {} }' });
      const server = (name: string, script: string, extra = '') => `// ${name}\n{ "image": "x", "customizations": { "vscode": { "mcp": { "servers": { "${name}": { "command": "node", "args": ["${script}"]${extra} } } } } } }\n`;
      writeFileSync(path.join(folder, '.devcontainer.json'), server('root', 'root.js'));
      for (const [sub, text] of [['python', server('py', 'py.js', ', "type": "sse"')], ['node', server('root', 'other.js')], ['empty', '']] as const) {
        mkdirSync(path.join(folder, '.devcontainer', sub), { recursive: true });
        if (text) writeFileSync(path.join(folder, '.devcontainer', sub, 'devcontainer.json'), text);
      }
      const a = await analyzeFolder(FILE_PORTS, options({ folder }));
      assert.ok(a.usable);
      // The spec's order of precedence: the root file before the subfolders (sorted by name).
      assert.deepEqual(a.servers.map((s) => [s.name, s.source]), [['root', '.devcontainer.json']]);
      assert.deepEqual(a.sources!.map((s) => [s.path, s.sha256 !== null]), [
        ['.mcp.json', false], ['.devcontainer/devcontainer.json', false], ['.devcontainer.json', true], ['.devcontainer/node/devcontainer.json', true], ['.devcontainer/python/devcontainer.json', true],
      ]);
      // Problems in their own file: the same name in a later configuration is shadowed; sse is refused there.
      assert.deepEqual(a.problems.filter((p) => p.severity !== 'info').map((p) => [p.file, p.code, p.related?.[0]?.file ?? null]), [
        ['.devcontainer/node/devcontainer.json', 'shadowed-server', '.devcontainer.json'], ['.devcontainer/python/devcontainer.json', 'unsupported-transport', null],
      ]);
      const sse = a.problems.find((p) => p.code === 'unsupported-transport')!;
      assert.equal(covered(server('py', 'py.js', ', "type": "sse"'), sse.range), '"sse"');

      const r = await exportFolder(testPorts(home), folder);
      assert.ok(r.written);
      assert.ok((await verifyFolder(testPorts(home), folder)).ok);
      // An edit of a subfolder's configuration, and a new one in another subfolder, make it stale.
      writeFileSync(path.join(folder, '.devcontainer/python/devcontainer.json'), server('py', 'py2.js'));
      assert.deepEqual((await verifyFolder(testPorts(home), folder)).reasons.map((x) => x.message), ['the source .devcontainer/python/devcontainer.json changed since the export']);
      await exportFolder(testPorts(home), folder);
      writeFileSync(path.join(folder, '.devcontainer/empty/devcontainer.json'), server('e', 'e.js'));
      assert.deepEqual((await verifyFolder(testPorts(home), folder)).reasons.map((x) => x.message), ['the source .devcontainer/empty/devcontainer.json was created since the export']);
      await exportFolder(testPorts(home), folder);
      rmSync(path.join(folder, '.devcontainer.json'));
      assert.deepEqual((await verifyFolder(testPorts(home), folder)).reasons.map((x) => x.message), ['the source .devcontainer.json was removed since the export']);
    });

    it('an input is prompted with the definition of the file whose server uses it, not a same id of an earlier file', async () => {
      const { folder } = multiRoot({
        vscode: '{ "inputs": [{ "type": "promptString", "id": "tok", "description": "unused here" }], "servers": {} }',
        devcontainer: '{ "customizations": { "vscode": { "mcp": { "inputs": [{ "type": "promptString", "id": "tok", "description": "DB token", "password": true }], "servers": { "db": { "command": "node", "args": ["db.js"], "env": { "DB_TOKEN": "${input:tok}" } } } } } } }',
      });
      const a = await analyzeFolder(FILE_PORTS, options({ folder }));
      assert.deepEqual(a.servers.map((s) => [s.name, s.source]), [['db', '.devcontainer/devcontainer.json']]);
      assert.deepEqual(a.inputs, [{ id: 'tok', type: 'promptString', description: 'DB token', password: true }]);
      // What the editor prompts with: masked, as the devcontainer's definition says.
      assert.deepEqual(a.inputDefinitions.tok, { type: 'promptString', id: 'tok', description: 'DB token', password: true });
    });

    it('probe lists (and would start) a name exported from one file and shadowed in another once', async () => {
      const dshHome = tempDir('dsh-home-');
      const { folder } = multiRoot({ vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json') });
      await new HostStore(dshHome).setTrustMode('deny');
      const result = await probeFolder(testPorts(dshHome), { folder, folderName: 'app', userHome: '/home/dev', settings: () => undefined, record: false });
      const names = result.servers.map((s) => s.name);
      assert.equal(names.filter((n) => n === 'github').length, 1, JSON.stringify(names));
      assert.deepEqual([...new Set(names)], names);
      const missing = await probeFolder(testPorts(dshHome), { folder, folderName: 'app', userHome: '/home/dev', settings: () => undefined, record: false, names: ['nope'] });
      assert.equal(missing.servers[0].message, 'no server "nope" in this folder\'s MCP files');
    });

    describe('a name belongs to the file VS Code takes it from (chat.mcp.collisionBehavior), refused or not', () => {
      const SSE = '{\n  "servers": {\n    "shared": { "type": "sse", "url": "https://mcp.example.com/sse" }\n  }\n}\n';
      const STDIO = '{\n  "mcpServers": {\n    "shared": { "command": "node", "args": ["other.js"] }\n  }\n}\n';
      const collision = (value: unknown) => (key: string) => (key === 'chat.mcp.collisionBehavior' ? value : undefined);

      it('a higher server DSH refuses (sse) still owns its name: the lower one is shadowed, located on it and linked to the owner, and not exported', async () => {
        const { folder } = multiRoot({ vscode: SSE, dotMcp: STDIO });
        const a = await analyzeFolder(FILE_PORTS, options({ folder }));
        assert.ok(a.usable);
        assert.deepEqual(a.servers, []);
        assert.deepEqual(a.rejected, [{ name: 'shared', codes: ['unsupported-transport'] }, { name: 'shared', codes: ['shadowed-server'] }]);
        const shadowed = a.problems.find((p) => p.code === 'shadowed-server')!;
        assert.equal(shadowed.file, '.mcp.json');
        assert.equal(covered(STDIO, shadowed.range), '"shared"');
        assert.deepEqual(shadowed.args, { name: 'shared', file: '.vscode/mcp.json' });
        assert.equal(shadowed.related![0].file, '.vscode/mcp.json');
        assert.equal(covered(SSE, shadowed.related![0].range), '"shared"');
        // Unset, "disable" and a value of the wrong shape act alike.
        for (const value of [null, 'disable']) assert.deepEqual((await analyzeFolder(FILE_PORTS, options({ folder, resolveConfig: collision(value) }))).rejected, a.rejected);
      });

      it('names are compared as VS Code compares them, ignoring case, across files and inside one; the first in VS Code\'s order owns it', async () => {
        const { folder } = multiRoot({
          vscode: '{"servers": {"Docs": {"command": "a"}, "docs": {"command": "b"}, "x": {"command": "c"}}, "mcpServers": {"DOCS": {"command": "d"}, "x": {"command": "e"}}}',
          dotMcp: '{"mcpServers": {"X": {"command": "f"}, "other": {"command": "g"}}}',
          devcontainer: '{"customizations": {"vscode": {"mcp": {"servers": {"OTHER": {"command": "h"}, "Docs": {"type": "sse", "url": "https://e.x/sse"}}}}}}',
        });
        const a = await analyzeFolder(FILE_PORTS, options({ folder }));
        assert.deepEqual(a.servers.map((s) => [s.name, s.transport === 'stdio' && s.command, s.source ?? null]), [['Docs', 'a', null], ['x', 'e', null], ['other', 'g', '.mcp.json']]);
        const shadowed = a.problems.filter((p) => p.code === 'shadowed-server').map((p) => [p.file, p.args.name, p.related![0].file]);
        assert.deepEqual(shadowed, [
          ['.devcontainer/devcontainer.json', 'OTHER', '.mcp.json'], ['.devcontainer/devcontainer.json', 'Docs', '.vscode/mcp.json'],
          ['.mcp.json', 'X', '.vscode/mcp.json'],
          // In file order: "docs" after "Docs"; the "servers" x that the "mcpServers" x replaces (VS Code's merge); "DOCS".
          ['.vscode/mcp.json', 'docs', '.vscode/mcp.json'], ['.vscode/mcp.json', 'x', '.vscode/mcp.json'], ['.vscode/mcp.json', 'DOCS', '.vscode/mcp.json'],
        ]);
      });

      it('"suffix": VS Code runs both, DSH still one per name: the same export, duplicate-server instead of shadowed-server; the CLI reads it from the settings it is given', async () => {
        const { folder } = multiRoot({ vscode: SSE, dotMcp: STDIO });
        for (const value of ['suffix', 'anything else']) {
          const a = await analyzeFolder(FILE_PORTS, options({ folder, resolveConfig: collision(value) }));
          assert.deepEqual(a.servers, []);
          assert.deepEqual(a.rejected, [{ name: 'shared', codes: ['unsupported-transport'] }, { name: 'shared', codes: ['duplicate-server'] }]);
          assert.equal(a.problems.find((p) => p.code === 'duplicate-server')!.file, '.mcp.json');
        }
        const home = tempDir('cli-home-');
        const user = path.join(tempDir('cli-user-'), 'settings.json');
        writeFileSync(user, '{"chat.mcp.collisionBehavior": "suffix"}');
        const r = cli(['check', '--workspace', folder, '--user-settings', user, '--json'], home);
        assert.deepEqual(r.json().problems.map((p: { code: string; file: string }) => [p.code, p.file]), [['duplicate-server', '.mcp.json'], ['unsupported-transport', '.vscode/mcp.json']]);
        // Window scope: a folder's own settings file cannot set it in a multi-root workspace.
        writeFileSync(path.join(folder, '.vscode/settings.json'), '{"chat.mcp.collisionBehavior": "suffix"}');
        const codeWorkspace = path.join(path.dirname(folder), 'multi.code-workspace');
        writeFileSync(codeWorkspace, '{ "folders": [{ "path": "app" }] }');
        assert.ok(cli(['check', '--workspace', folder, '--code-workspace', codeWorkspace, '--json'], home).json().problems.some((p: { code: string }) => p.code === 'shadowed-server'));
      });

      it('server names that name Object.prototype members keep their own locations', async () => {
        const { folder } = multiRoot({ vscode: '{"servers": {"constructor": {"command": "a"}}}', dotMcp: '{"mcpServers": {"__proto__": {"command": "b"}, "toString": {"command": "c"}}}' });
        const a = await analyzeFolder(FILE_PORTS, options({ folder }));
        assert.deepEqual(a.servers.map((s) => s.name), ['constructor', '__proto__', 'toString']);
        assert.deepEqual(Object.keys(a.serverKeys!), ['constructor', '__proto__', 'toString']);
        assert.equal(Object.getPrototypeOf(a.serverKeys), Object.prototype);
        assert.deepEqual(a.serverKeys!['__proto__'].file, '.mcp.json');
        assert.equal(a.problems.filter((p) => p.code === 'shadowed-server').length, 0);
      });
    });

    it('.mcp.json is skipped when chat.mcp.access turns VS Code\'s discovery of it off', async () => {
      const { folder } = multiRoot({ vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json') });
      const off = await analyzeFolder(FILE_PORTS, options({ folder, resolveConfig: (key) => (key === 'chat.mcp.access' ? 'registry' : undefined) }));
      // registry runs only gallery servers: github (from .vscode/mcp.json) is refused by the policy, .mcp.json not read at all.
      assert.deepEqual(off.servers.map((s) => s.name), []);
      assert.deepEqual(off.rejected.map((r) => [r.name, r.codes]), [['github', ['policy-access']]]);
      assert.ok(!off.sources!.some((s) => s.path === '.mcp.json'));
    });

    it('a change of chat.mcp.access makes the declaration stale for the faces that see the settings, not for DSH', async () => {
      const { folder } = multiRoot({ vscode: fixture('vscode-mcp.json'), dotMcp: fixture('dot-mcp.json') });
      const dshHome = tempDir('dsh-home-');
      const access = (value: unknown) => (key: string) => (key === 'chat.mcp.access' ? value : undefined);
      const staleReasons = async (value: unknown) => (await verifyFolder(testPorts(dshHome), folder, { settings: access(value) })).reasons;

      // Exported with the default (all): .mcp.json was read, and the value is not written.
      await exportFolder(testPorts(dshHome), folderIdentityOf(folder, {}, { settings: access(undefined) }));
      assert.equal(JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8')).mcpAccess, undefined);
      assert.deepEqual(await staleReasons('all'), []);
      const off = await staleReasons('registry');
      assert.deepEqual(off, [{ code: 'stale', editorOnly: true, setting: 'chat.mcp.access', message: 'chat.mcp.access is "registry" now ("all" at the export): VS Code no longer reads .mcp.json' }]);
      // DSH's own verify (no settings) still accepts it: it cannot see VS Code's settings.
      assert.equal((await verifyFolder(testPorts(dshHome), folder)).ok, true);

      // Exported with registry: pinned in the declaration; none reads the same files, all does not.
      await exportFolder(testPorts(dshHome), folderIdentityOf(folder, {}, { settings: access('registry') }));
      const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
      assert.equal(declaration.mcpAccess, 'registry');
      assert.ok(!declaration.sources?.some((s: { path: string }) => s.path === '.mcp.json'));
      assert.deepEqual(await staleReasons('registry'), []);
      assert.deepEqual(await staleReasons('none'), []);
      assert.deepEqual((await staleReasons(undefined)).map((r) => r.message), ['chat.mcp.access is "all" now ("registry" at the export): VS Code now reads .mcp.json']);

      // The CLI reads the setting from the folder's settings files, as the editor would.
      writeFileSync(path.join(folder, '.vscode/settings.json'), '{ "chat.mcp.access": "all" }');
      const r = cli(['verify', '--workspace', folder, '--json'], dshHome);
      assert.equal(r.code, 1, r.stderr);
      const out = r.json();
      assert.deepEqual(out.verify.reasons.map((x: { code: string }) => x.code), ['stale']);
      assert.match(out.verify.reasons[0].message, /chat\.mcp\.access is "all" now/);
      assert.equal(out.dsh.mounts, true, 'DSH, which cannot see the setting, still mounts the declaration');
      writeFileSync(path.join(folder, '.vscode/settings.json'), '{ "chat.mcp.access": "none" }');
      assert.equal(cli(['verify', '--workspace', folder], dshHome).code, 0);
      // In a multi-root workspace only the workspace file can set it (window scope), not the folder.
      const codeWorkspace = path.join(path.dirname(folder), 'multi.code-workspace');
      writeFileSync(codeWorkspace, '{ "folders": [{ "path": "app" }] }');
      assert.equal(cli(['verify', '--workspace', folder, '--code-workspace', codeWorkspace], dshHome).code, 1, 'the folder\'s value is ignored: "all"');
      writeFileSync(codeWorkspace, '{ "folders": [{ "path": "app" }], "settings": { "chat.mcp.access": "registry" } }');
      assert.equal(cli(['verify', '--workspace', folder, '--code-workspace', codeWorkspace], dshHome).code, 0);
    });
  });
});
