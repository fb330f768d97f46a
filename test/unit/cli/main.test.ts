import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { settingLayersFromFiles } from '../../../src/core/settings/folderSettings';
import { checkToolChoice, TOOLS_SETTING } from '../../../src/core/tools/toolChoice';
import { FOLDER_SETTINGS, USER_SETTINGS, at } from '../core/tools/toolChoice.fixture';
import { rawHidden, tempDir, workspace } from '../helpers';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const DEMO = path.join(ROOT, 'examples/demo');

function cli(args: string[], opts: { home?: string; input?: string; cwd?: string; timeout?: number } = {}) {
  const env = { ...process.env, DSH_HOME: opts.home ?? tempDir('cli-home-') };
  const r = spawnSync(process.execPath, [CLI, ...args], { env, input: opts.input ?? '', encoding: 'utf8', cwd: opts.cwd ?? ROOT, ...(opts.timeout ? { timeout: opts.timeout } : {}) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

describe('CLI (dist/cli.js)', function () {
  this.timeout(60000); // each test spawns several node processes; CI machines are shared
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  it('exports a workspace and reports one JSON object', () => {
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const r = cli(['export', '--workspace', folder, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = r.json();
    assert.equal(out.declaration, '.dsh/declaration.json');
    assert.deepEqual(out.servers.map((s: { serverName: string }) => s.serverName), ['everything', 'GitHub_Copilot_MCP']);
    assert.deepEqual(out.rejected, [{ name: 'legacy-events', codes: ['unsupported-transport'] }]);
    const sse = out.problems.find((p: { code: string }) => p.code === 'unsupported-transport');
    assert.deepEqual(Object.keys(sse).sort(), ['code', 'file', 'message', 'range', 'severity']);
    assert.equal(sse.file, '.vscode/mcp.json');
    assert.ok(existsSync(path.join(folder, '.dsh/declaration.json')));
  });

  it('says counts with real plural forms and no clause about nothing', () => {
    const one = workspace('{"servers": {"a": {"command": "node", "args": ["a.js"]}}}');
    const home = tempDir('cli-home-');
    const r = cli(['export', '--workspace', one], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Exported 1 server to \S+\.$/m);
    assert.doesNotMatch(r.stdout, /\(s\)|0 refused/);
    assert.match(cli(['verify', '--workspace', one], { home }).stdout, /fresh \(1 server\)\./);
    const demo = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    assert.match(cli(['export', '--workspace', demo, '--dry-run']).stdout, /^Dry run: 2 servers would be exported/m);
    assert.match(cli(['export', '--workspace', demo]).stdout, /^Exported 2 servers to \S+ \(1 refused\)\.$/m);
  });

  it('verify: 0 when fresh, 1 after tampering, after an edit of the source, or with another key', () => {
    const home = tempDir('cli-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    assert.equal(cli(['export', '--workspace', folder], { home }).code, 0);
    assert.equal(cli(['verify', '--workspace', folder], { home }).code, 0);
    assert.equal(cli(['verify', '--workspace', folder]).code, 1, 'another user (another key)');

    const file = path.join(folder, '.dsh/declaration.json');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('"-y"', '"--yes"'));
    const tampered = cli(['verify', '--workspace', folder, '--json'], { home });
    assert.equal(tampered.code, 1);
    assert.deepEqual(tampered.json().verify.reasons.map((r: { code: string }) => r.code), ['tampered', 'tampered']);

    writeFileSync(file, original);
    const source = readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8');
    // A comment is no change for a session (issue 35): still fresh. A changed value is stale.
    writeFileSync(path.join(folder, '.vscode/mcp.json'), `${source}\n// edited\n`);
    assert.equal(cli(['verify', '--workspace', folder], { home }).code, 0, 'a comment made the declaration stale');
    writeFileSync(path.join(folder, '.vscode/mcp.json'), source.replace('"-y"', '"--yes"'));
    const stale = cli(['verify', '--workspace', folder, '--json'], { home });
    assert.equal(stale.code, 1);
    assert.deepEqual(stale.json().verify.reasons.map((r: { code: string }) => r.code), ['stale']);
  });

  it('check writes nothing; exit 1 when the source is unusable; 2 for usage errors; never a stack trace', () => {
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const check = cli(['check', '--workspace', folder, '--json']);
    assert.equal(check.code, 0);
    assert.equal(check.json().declaration, null);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);

    const cases: Array<[string | undefined, string]> = [
      [undefined, 'missing-source'],
      ['{"servers": {', 'invalid-json'],
      [`{"servers": {${Array.from({ length: 600 }, (_, i) => `"s${i}": {"command": "x"}`).join(',')}}}`, 'too-many-servers'],
    ];
    for (const [text, code] of cases) {
      const r = cli(['export', '--workspace', workspace(text), '--json']);
      assert.equal(r.code, 1, code);
      const out = r.json();
      assert.equal(out.declaration, null);
      assert.ok(out.problems.some((p: { code: string }) => p.code === code), code);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    for (const args of [['frobnicate'], ['export', '--nope'], [], ['export', 'extra'], ['inputs', 'set']]) {
      const r = cli(args);
      assert.equal(r.code, 2, args.join(' '));
      // One line and where to read more; the whole usage only when no command was named.
      if (args[0] === 'export' || args[0] === 'inputs') assert.match(r.stderr, new RegExp(`^dsh-bridge: [^\\n]+\\nRun "dsh-bridge ${args[0]} --help" for its usage\\.\\n$`));
      else assert.match(r.stderr, /Usage: dsh-bridge/);
      const withJson = cli([...args, '--json']);
      assert.equal(withJson.code, 2);
      assert.equal(withJson.json().declaration, null, 'one JSON object in every case');
    }
  });

  it('a --workspace that is missing, a file or unreadable is said as such, exit 1', () => {
    const file = path.join(tempDir('cli-file-'), 'notes.txt');
    writeFileSync(file, 'x');
    for (const [given, said] of [[path.join(file, '..', 'gone'), 'no such folder'], [file, 'a file, not a folder']] as const) {
      const r = cli(['export', '--workspace', given]);
      assert.equal(r.code, 1, given);
      assert.equal(r.stderr, `dsh-bridge: --workspace ${path.resolve(given)}: ${said}\n`);
      assert.equal(cli(['export', '--workspace', given, '--json']).json().error, `--workspace ${path.resolve(given)}: ${said}`);
    }
  });

  it('export names each input with no value on this machine and the servers it keeps from starting, until it is stored', () => {
    const home = tempDir('cli-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const first = cli(['export', '--workspace', folder], { home });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`^Input "github-token" has no value on this machine: everything, GitHub_Copilot_MCP do not start in DSH until you store it: dsh-bridge inputs set github-token --workspace ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.deepEqual(cli(['export', '--workspace', folder, '--json'], { home }).json().missingInputs.map((m: { id: string; servers: string[] }) => [m.id, m.servers]), [['github-token', ['everything', 'GitHub_Copilot_MCP']]]);
    assert.equal(cli(['inputs', 'set', 'github-token', '--workspace', folder], { home, input: 'v\n' }).code, 0);
    const after = cli(['export', '--workspace', folder], { home });
    assert.doesNotMatch(after.stdout, /has no value/);
    assert.deepEqual(cli(['export', '--workspace', folder, '--json'], { home }).json().missingInputs, []);
  });

  it('inputs set/list/forget keep values on the host, read from stdin, never in the workspace', () => {
    const home = tempDir('cli-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const canary = 'canary-7f3a9c';
    assert.equal(cli(['inputs', 'set', 'github-token', '--workspace', folder], { home, input: `${canary}\n` }).code, 0);
    const list = cli(['inputs', 'list', '--workspace', folder, '--json'], { home });
    assert.deepEqual(list.json().inputs, [{ id: 'github-token', stored: true, referenced: true }]);
    assert.ok(!list.stdout.includes(canary));
    assert.equal(cli(['export', '--workspace', folder], { home }).code, 0);
    const stored = readdirSync(path.join(home, 'bridge/folders')).map((f) => readFileSync(path.join(home, 'bridge/folders', f), 'utf8'));
    assert.ok(stored.some((t) => t.includes(canary)));
    assert.equal(statSync(path.join(home, 'bridge/folders', readdirSync(path.join(home, 'bridge/folders'))[0])).mode & 0o777, 0o600);
    for (const f of walk(folder)) assert.ok(!readFileSync(f, 'utf8').includes(canary), f);
    assert.equal(cli(['inputs', 'forget', 'github-token', '--workspace', folder], { home }).code, 0);
    assert.deepEqual(cli(['inputs', 'list', '--workspace', folder, '--json'], { home }).json().inputs, [{ id: 'github-token', stored: false, referenced: true }]);
    assert.equal(cli(['inputs', 'set', 'x', '--workspace', folder], { home, input: '' }).code, 1, 'an empty value is refused');
  });

  it('export carries the lsp section from the folder settings and the skill roots; verify checks the lsp pin', () => {
    const home = tempDir('cli-home-');
    const folder = workspace('{"servers": {"a": {"command": "node"}}}', {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.vscode/settings.json': '{\n  // language servers for DSH\n  "dsh.lsp.servers": {"ts": {"command": "node", "extensions": {"TS": "typescript"}}},\n}',
      '.dsh/skills/review/SKILL.md': '---\nname: review\ndescription: Reviews a change\n---\nRead the diff.\n',
    });
    assert.equal(cli(['export', '--workspace', folder], { home }).code, 0);
    const file = path.join(folder, '.dsh/declaration.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(doc.lsp.servers), ['ts']);
    assert.deepEqual(doc.lsp.servers.ts.extensionToLanguage, { '.ts': 'typescript' });
    assert.equal(doc.lsp.registersAll, true);
    assert.deepEqual(doc.skills.roots.map((r: { path: string; trust: string; skills: string[] }) => [path.relative(folder, r.path), r.trust, r.skills]), [['.dsh/skills', 'untrusted', ['review']]]);
    assert.equal(cli(['verify', '--workspace', folder], { home }).code, 0);
    doc.lsp.servers.ts.command = '/bin/sh';
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const v = cli(['verify', '--workspace', folder, '--json'], { home });
    assert.ok(v.json().verify.reasons.some((r: { message: string }) => /lsp section/.test(r.message)));
  });

  it('inputs whose ids are Object.prototype names (__proto__, constructor, ...) are stored, listed, used by the probe and forgotten, and a later set keeps them', () => {
    const home = tempDir('cli-home-');
    const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const inputs = ids.map((id) => ({ id, type: 'promptString', description: id, password: true }));
    const env = Object.fromEntries(ids.map((id, i) => [`V${i}`, `\${input:${id}}`]));
    const fixture = path.join(ROOT, 'test/fixtures/mcp-servers/tool-fixture.mjs');
    // The server is named so too (its DSH serverName is "_proto": a serverName never holds "__").
    const folder = workspace(`{"inputs": ${JSON.stringify(inputs)}, "servers": {"__proto__": ${JSON.stringify({ command: process.execPath, args: [fixture], env })}}}`);
    const list = () => cli(['inputs', 'list', '--workspace', folder, '--json'], { home }).json().inputs.map((r: { id: string; stored: boolean }) => `${r.id} ${r.stored ? 'stored' : 'missing'}`);
    for (const [i, id] of ids.entries()) {
      const set = cli(['inputs', 'set', id, '--workspace', folder], { home, input: `value-${i}\n` });
      assert.equal(set.code, 0, set.stderr);
    }
    // Each later set kept the earlier ones (the first was __proto__).
    assert.deepEqual(list(), ['__proto__ stored', 'constructor stored', 'hasOwnProperty stored', 'toString stored']);
    const probe = cli(['probe', '__proto__', '--workspace', folder, '--json'], { home });
    assert.equal(JSON.parse(probe.stdout).servers[0].outcome, 'ok', probe.stdout);
    assert.equal(cli(['export', '--workspace', folder], { home }).code, 0);
    const [exported] = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8')).servers;
    assert.deepEqual([exported.name, exported.serverName], ['__proto__', '_proto']);
    assert.deepEqual(Object.keys(exported.tools?.pins ?? {}), ['echo', 'add', 'danger'], 'the probe was recorded and pinned');
    assert.equal(cli(['inputs', 'forget', '__proto__', '--workspace', folder], { home }).code, 0);
    assert.deepEqual(list(), ['__proto__ missing', 'constructor stored', 'hasOwnProperty stored', 'toString stored']);
    const refused = JSON.parse(cli(['probe', '__proto__', '--workspace', folder, '--json'], { home }).stdout).servers[0];
    assert.equal(refused.outcome, 'refused', 'without the value of __proto__ the server is not started');
    assert.match(refused.message, /__proto__/);
  });

  it('a repository\'s .dsh/.gitignore that lets git commit the declaration: export and check warn declaration-committable (git agrees); with the rule added, no warning', () => {
    const home = tempDir('cli-home-');
    const folder = workspace('{"servers": {"a": {"command": "node"}}}', { '.dsh/.gitignore': '# ours\n*\n!declaration.json\n' });
    execFileSync('git', ['init', '-q'], { cwd: folder });
    const r = cli(['export', '--workspace', folder, '--json'], { home });
    assert.equal(r.code, 0, r.stderr);
    const warning = r.json().problems.find((p: { code: string }) => p.code === 'declaration-committable');
    assert.ok(warning, r.stdout);
    assert.equal(warning.file, '.dsh/.gitignore');
    assert.equal(warning.severity, 'warning');
    assert.deepEqual(warning.range, { start: { line: 2, character: 0 }, end: { line: 2, character: 17 } }, 'on the line that re-includes it');
    const status = () => execFileSync('git', ['-c', 'core.excludesFile=/dev/null', 'status', '--porcelain', '--untracked-files=all'], { cwd: folder, encoding: 'utf8' });
    assert.match(status(), /\?\? \.dsh\/declaration\.json/, 'git would commit it');
    assert.match(cli(['check', '--workspace', folder], { home }).stdout, /\.dsh\/\.gitignore:3:1 warning declaration-committable: /);
    writeFileSync(path.join(folder, '.dsh/.gitignore'), `${readFileSync(path.join(folder, '.dsh/.gitignore'), 'utf8')}declaration.json\n`);
    assert.ok(!cli(['export', '--workspace', folder, '--json'], { home }).json().problems.some((p: { code: string }) => p.code === 'declaration-committable'));
    assert.doesNotMatch(status(), /declaration\.json/);
  });

  it('reads the settings layers the editor merges: --user-settings, --code-workspace, then the folder', () => {
    const home = tempDir('cli-home-');
    const parent = tempDir('cli-multi-');
    const folder = path.join(parent, 'app');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "node", "args": ["${config:app.flag}", "${workspaceFolder:Main App}"]}}}');
    writeFileSync(path.join(folder, '.vscode/settings.json'), '{"dsh.export.toolCallTimeoutMs": 4321}');
    const user = path.join(tempDir('cli-user-'), 'settings.json');
    writeFileSync(user, '{\n  "dsh.export.reconnect": {"maxAttempts": 4},\n  "dsh.export.toolCallTimeoutMs": 1,\n  "dsh.lsp.servers": {"js": {"command": "node", "extensions": {".js": "javascript"}}},\n}');
    const ws = path.join(parent, 'both.code-workspace');
    writeFileSync(ws, JSON.stringify({ folders: [{ path: 'app', name: 'Main App' }], settings: { 'app.flag': '--from-workspace', 'dsh.export.failOnStartupError': true, 'dsh.skills.customRoots': ['/ignored'] } }));
    const r = cli(['export', '--workspace', folder, '--code-workspace', ws, '--user-settings', user, '--json'], { home });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    const [server] = doc.servers;
    assert.deepEqual(server.args, ['--from-workspace', folder], '${config:} from the workspace file, the folder name from its entry');
    assert.equal(server.toolCallTimeoutMs, 4321, 'the folder settings win over the user settings');
    assert.equal(server.failOnStartupError, true);
    assert.equal(server.reconnect.maxAttempts, 4);
    assert.deepEqual(Object.keys(doc.lsp.servers), ['js'], 'dsh.lsp.servers from the user settings');
    assert.equal(r.stderr, '');
    const missing = cli(['export', '--workspace', folder, '--user-settings', path.join(parent, 'nope.json')], { home });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--user-settings .*nope\.json cannot be read/);
    const elsewhere = cli(['check', '--workspace', parent, '--code-workspace', ws], { home });
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /does not list the folder/);
  });

  it('--user-settings and --code-workspace naming a FIFO, a device or a huge file: refused at once (exit 2, the option and the reason named), for every command', function () {
    if (process.platform === 'win32') this.skip();
    const folder = workspace('{"servers": {"a": {"command": "node"}}}');
    const fifo = path.join(tempDir('cli-fifo-'), 'settings.json');
    execFileSync('mkfifo', [fifo]);
    const huge = path.join(tempDir('cli-huge-'), 'settings.json');
    writeFileSync(huge, `{"x": "${'a'.repeat(1024 * 1024)}"}`);
    const cases: Array<[string, string, RegExp]> = [
      ['--user-settings', fifo, /not a regular file/], ['--code-workspace', fifo, /not a regular file/],
      ['--user-settings', '/dev/zero', /not a regular file/], ['--code-workspace', '/dev/zero', /not a regular file/],
      ['--user-settings', huge, /larger than 1048576 bytes/],
    ];
    for (const command of [['export'], ['check'], ['verify'], ['inputs', 'list'], ['trust']]) {
      for (const [option, file, why] of cases) {
        const started = Date.now();
        const r = cli([...command, '--workspace', folder, option, file, '--json'], { timeout: 10000 });
        const took = Date.now() - started;
        assert.equal(r.code, 2, `${command.join(' ')} ${option} ${file}: exit ${r.code} after ${took} ms`);
        assert.ok(took < 2500, `${command.join(' ')} ${option} ${file} took ${took} ms`);
        const { error } = r.json();
        assert.ok(error.startsWith(`${option} ${file} cannot be read (`), error);
        assert.match(error, why);
      }
    }
    assert.ok(!existsSync(path.join(folder, '.dsh')), 'nothing was exported');
  });

  it('an invalid setting is named on stderr and its default is used', () => {
    const folder = workspace('{"servers": {"a": {"command": "node"}}}', { '.vscode/settings.json': '{"dsh.export.toolCallTimeoutMs": -1}' });
    const r = cli(['export', '--workspace', folder]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /setting dsh\.export\.toolCallTimeoutMs has an invalid value; its default is used/);
    assert.equal(JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8')).servers[0].toolCallTimeoutMs, 60000);
  });

  it('the trust mode "deny" exports nothing', () => {
    const home = tempDir('cli-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    mkdirSync(path.join(home, 'bridge'), { recursive: true });
    writeFileSync(path.join(home, 'bridge/settings.json'), '{"version": 1, "trustMode": "deny"}');
    const r = cli(['export', '--workspace', folder], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /deny/);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
  });

  it('finishes with its own exit code when its reader stops early (check | head -1)', () => {
    // The shell's pipe, for real: head exits after one line while the CLI still has ~120 KB to
    // write (more than a pipe holds), so it writes on into a closed pipe. Unpinned npx: warnings only.
    const many = workspace(JSON.stringify({ servers: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`s${i}`, { command: 'npx', args: [`pkg-${i}`] }])) }));
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" check --workspace "${many}" | head -1; echo "cli=\${PIPESTATUS[0]}" >&2`], { encoding: 'utf8' });
    assert.match(r.stdout, /^SERVER\s+DSH NAME/);
    assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|internal error/, r.stderr);
    assert.match(r.stderr, /cli=0/);
  });

  it('check and export show a server name that clears the screen and reverses the line escaped; --json keeps it as JSON escapes', () => {
    const name = 'evil\u001b[2J\u202egnp.exe';
    const home = tempDir('cli-home-');
    const folder = workspace(JSON.stringify({ servers: { [name]: { command: 'node', args: ['x.js'], 'x\u0007\u202eq': 1 } } }));
    for (const command of ['check', 'export']) {
      const r = cli([command, '--workspace', folder], { home });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(rawHidden(r.stdout + r.stderr), undefined, `${command}: nothing reaches the terminal raw`);
      assert.match(r.stdout, /^evil\\x1b\[2J\\u\{202e\}gnp\.exe {2}evil_2J_gnp_exe {2}stdio/m, r.stdout);
      assert.match(r.stdout, /warning unknown-field: Unknown field "x\\x07\\u\{202e\}q" is ignored\.$/m);
      const json = cli([command, '--workspace', folder, '--json'], { home });
      assert.equal(rawHidden(json.stdout), undefined, `${command} --json`);
      assert.ok(json.stdout.includes('evil\\u001b[2J\\u202egnp.exe'), json.stdout);
      assert.equal(JSON.parse(json.stdout).servers[0].name, name, 'the same value for a JSON reader');
    }
  });

  it('check: dsh.tools problems with the codes, files and ranges the editor shows, in JSON and for people', () => {
    const folder = workspace('{"servers": {"github": {"command": "node", "args": ["gh.js"]}}}');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(path.join(folder, '.vscode/settings.json'), FOLDER_SETTINGS);
    const user = path.join(tempDir(), 'settings.json');
    writeFileSync(user, USER_SETTINGS);
    const json = cli(['check', '--workspace', folder, '--user-settings', user, '--json']);
    assert.equal(json.code, 0, json.stderr); // the source is usable; the choice fails closed
    const layers = settingLayersFromFiles([
      { level: 'user', kind: 'settings', text: USER_SETTINGS, file: path.resolve(user) },
      { level: 'workspace', kind: 'settings', text: FOLDER_SETTINGS, file: '.vscode/settings.json' },
    ])(TOOLS_SETTING);
    const expected = checkToolChoice(layers).problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range }));
    assert.equal(expected.length, 5);
    assert.deepEqual(json.json().problems, expected);

    const human = cli(['check', '--workspace', folder]);
    assert.equal(human.code, 0, human.stderr);
    const line = at(FOLDER_SETTINGS, ['github', 'exclude']).start;
    assert.ok(human.stdout.includes(`.vscode/settings.json:${line.line + 1}:${line.character + 1} error tools-invalid-list: "exclude" of server "github" must be a list of tool names`), human.stdout);
    assert.match(human.stdout, / warning tools-unknown-key: "bogus" is not a tool-choice option/);
  });

  it('runs the demo workspace shipped in the repo, human-readable', () => {
    const r = cli(['check', '--workspace', DEMO], { cwd: ROOT });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /everything\s+everything\s+stdio/);
    assert.match(r.stdout, /examples\/demo\/\.vscode\/mcp\.json:\d+:\d+ error unsupported-transport/);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}
