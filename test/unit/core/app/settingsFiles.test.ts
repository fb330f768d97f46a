// Freshness: every input that changes what a session gets is pinned by the export, and an edit of
// one after the export makes the declaration stale everywhere. Real temp workspaces, real settings
// files given to the real CLI entry (export, verify --json), the plugin's plan and mount rule.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../../src/cli/main';
import { planSession } from '../../../../src/core/app/plan';
import { definingSettingLayer, layersWithHiddenValues, mergedSettingValue, staleSettingProblems } from '../../../../src/core/app/settingsFiles';
import { toolChoiceChange, verifyFolder } from '../../../../src/core/app/verify';
import { analyzeToolChoice } from '../../../../src/core/tools/toolChoice';
import { choiceIsNarrowing } from '../../../../src/core/declaration/toolsModel';
import { toolPin } from '../../../../src/core/tools/toolDefinitions';
import { decideMount } from '../../../../src/dsh-plugin/mountDecision';
import { freshSession, testPorts, tempDir, workspace } from '../../helpers';

const NODE = process.execPath;
const SOURCE = JSON.stringify({ servers: { fx: { command: NODE, args: ['fx.js'] } } });

async function runCli(argv: string[]): Promise<{ code: number; json: any }> {
  const out: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: () => undefined });
  return { code, json: out.length ? JSON.parse(out.join('\n')) : undefined };
}

type Layer = 'user' | 'code-workspace' | 'folder';
const SETTINGS: Record<string, { before: unknown; after: unknown }> = {
  'dsh.tools': { before: { fx: { exclude: ['add'] } }, after: { fx: { exclude: ['add', 'echo'] } } },
  'dsh.lsp.servers': { before: { ts: { command: NODE, extensions: { '.ts': 'typescript' } } }, after: { ts: { command: NODE, args: ['--x'], extensions: { '.ts': 'typescript' } } } },
  'dsh.skills.customRoots': { before: ['/tmp/a'], after: ['/tmp/a', '/tmp/b'] },
  'dsh.export.toolCallTimeoutMs': { before: 1000, after: 2000 },
};

/** A git project with one server; its settings in the given layer's file; exported by the CLI with every layer's file given. */
async function exported(layer: Layer, settings: Record<string, unknown>) {
  const folder = workspace(SOURCE, { '.git/HEAD': 'ref: refs/heads/main\n' });
  const home = tempDir('fresh-home-');
  const outside = tempDir('fresh-files-');
  const files: Record<Layer, string> = {
    user: path.join(outside, 'settings.json'),
    'code-workspace': path.join(outside, 'w.code-workspace'),
    folder: path.join(folder, '.vscode/settings.json'),
  };
  const write = (which: Layer, values: Record<string, unknown>) => writeFileSync(files[which], JSON.stringify(which === 'code-workspace' ? { folders: [{ path: folder }], settings: values } : values));
  write('user', {});
  write('code-workspace', {});
  write(layer, settings);
  const cli = ['--workspace', folder, '--dsh-home', home, '--user-settings', files.user, '--code-workspace', files['code-workspace']];
  const exportRun = await runCli(['export', ...cli, '--json']);
  assert.equal(exportRun.code, 0, JSON.stringify(exportRun.json));
  return { folder, home, cli, files, write };
}

describe('freshness: every settings layer of every session setting, and the probed tool pins', function () {
  this.timeout(120000);

  for (const layer of ['user', 'code-workspace', 'folder'] as const) {
    for (const [key, { before, after }] of Object.entries(SETTINGS)) {
      // dsh.skills.customRoots is a user-only setting: VS Code ignores it in workspace files, and so does the pin.
      const userOnly = key === 'dsh.skills.customRoots' && layer !== 'user';
      it(`${key} edited in the ${layer} settings after the export: ${userOnly ? 'not stale (VS Code ignores it there)' : 'stale, with the file, the setting and the fix'}`, async () => {
        const p = await exported(layer, { [key]: before });
        assert.equal((await runCli(['verify', ...p.cli, '--json'])).code, 0, 'fresh after the export');
        p.write(layer, { [key]: after, 'editor.fontSize': 14 });
        const verify = await runCli(['verify', ...p.cli, '--json']);
        if (userOnly) {
          assert.equal(verify.code, 0, JSON.stringify(verify.json.verify.reasons));
          return;
        }
        assert.equal(verify.code, 1);
        const stale = verify.json.verify.reasons.filter((r: { code: string }) => r.code === 'stale');
        const file = layer === 'folder' ? '.vscode/settings.json' : p.files[layer];
        assert.deepEqual(stale.map((r: { message: string }) => r.message), [`${key} in ${file} changed since the export`]);
        // The plan (verify --json's dsh.plan): the declaration is stale, every server withheld, the fix is the export.
        const { plan } = verify.json.dsh;
        assert.deepEqual(plan.blocked.map((r: { code: string }) => r.code), ['declaration-stale']);
        assert.equal(plan.blocked[0].fix.command, `dsh-bridge export --workspace ${p.folder}`);
        assert.deepEqual(plan.servers.map((s: { outcome: string }) => s.outcome), ['withheld']);
        // The DSH plugin (no editor settings): the same plan, and its mount rule withholds the server.
        const ports = testPorts(p.home, { env: {} });
        const { plan: pluginPlan, declaration } = await planSession(ports, { cwd: p.folder, skills: false, tools: false });
        assert.deepEqual(pluginPlan.blocked.map((r) => r.code), ['declaration-stale']);
        const [server] = pluginPlan.servers;
        const decision = decideMount({ name: server.serverName, pin: server.pin!, outcome: server.outcome, reason: server.reason }, freshSession(), { digest: declaration?.digest ?? '', turn: '1', now: 0 });
        assert.equal(decision.kind, 'withheld');
        // Exported again: fresh.
        assert.equal((await runCli(['export', ...p.cli, '--json'])).code, 0);
        assert.equal((await runCli(['verify', ...p.cli, '--json'])).code, 0);
      });
    }
  }

  describe('staleSettingProblems: the Problem on the key of the setting that changed, in the file that changed', () => {
    /** The range of the first occurrence of `needle` in `text`, by lines (independent of the JSON parser). */
    const rangeOf = (text: string, needle: string) => {
      const offset = text.indexOf(needle);
      assert.ok(offset >= 0, `${needle} in ${text}`);
      const at = (o: number) => ({ line: text.slice(0, o).split('\n').length - 1, character: o - text.lastIndexOf('\n', o - 1) - 1 });
      return { start: at(offset), end: at(offset + needle.length) };
    };
    const problemsOf = async (home: string, folder: string) => {
      const ports = testPorts(home, { env: {} });
      const { plan } = await planSession(ports, { cwd: folder, skills: false, tools: false });
      return staleSettingProblems(ports, plan.declaration);
    };

    for (const layer of ['user', 'code-workspace', 'folder'] as const) {
      it(`dsh.tools unchecked in the ${layer} settings: one warning on its key there, none once exported again`, async () => {
        const p = await exported(layer, { 'dsh.tools': { fx: { exclude: ['add'] } } });
        assert.deepEqual(await problemsOf(p.home, p.folder), [], 'fresh after the export');
        // Comments, a CRLF line end and another setting before it: the range is the key's, as written.
        const settings = `// team settings\r\n{\n  "editor.tabSize": 2,\n    "dsh.tools": { "fx": { "exclude": ["add", "echo"] } }\n}\n`;
        const text = layer === 'code-workspace' ? `{ "folders": [{ "path": ${JSON.stringify(p.folder)} }],\n  "settings": ${settings} }` : settings;
        writeFileSync(p.files[layer], text);
        const problems = await problemsOf(p.home, p.folder);
        assert.deepEqual(problems.map((x) => ({ code: x.code, severity: x.severity, file: x.file, range: x.range, args: x.args })), [
          { code: 'declaration-stale-setting', severity: 'warning', file: p.files[layer], range: rangeOf(text, '"dsh.tools"'), args: { setting: 'dsh.tools' } },
        ]);
        assert.equal(problems[0].message, 'dsh.tools changed in this file since the export, so the declaration is stale: DSH sessions get nothing from it until you export again.');
        assert.equal((await runCli(['export', ...p.cli, '--json'])).code, 0);
        assert.deepEqual(await problemsOf(p.home, p.folder), []);
      });
    }

    it('a setting written as nested objects ("dsh": {"tools": ...}, as VS Code also reads it) gets its Problem on its key', async () => {
      const p = await exported('folder', { 'dsh.tools': { fx: { exclude: ['add'] } } });
      const text = '{\n  "editor.tabSize": 2,\n  "dsh": {\n    "lsp.servers": {},\n    "tools": { "fx": { "exclude": ["add", "echo"] } }\n  }\n}\n';
      writeFileSync(p.files.folder, text);
      const problems = await problemsOf(p.home, p.folder);
      assert.deepEqual(problems.map((x) => [x.args.setting, x.range]), [['dsh.tools', rangeOf(text, '"tools"')]]);
    });

    it('each changed setting of a file gets its own; a removed one is marked at the file\'s start', async () => {
      const p = await exported('folder', { 'dsh.tools': { fx: { exclude: ['add'] } }, 'dsh.export.toolCallTimeoutMs': 1000 });
      const text = '{\n  "editor.tabSize": 2,\n  "dsh.lsp.servers": {}\n}\n';
      writeFileSync(p.files.folder, text);
      const problems = await problemsOf(p.home, p.folder);
      assert.deepEqual(problems.map((x) => [x.args.setting, x.range]), [
        ['dsh.tools', { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }],
        ['dsh.lsp.servers', rangeOf(text, '"dsh.lsp.servers"')],
        ['dsh.export.toolCallTimeoutMs', { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }],
      ]);
    });
  });

  it('dsh.export.auto (when the editor exports, not what) is not pinned', async () => {
    const p = await exported('folder', { 'dsh.export.auto': 'off' });
    p.write('folder', { 'dsh.export.auto': 'onSave' });
    assert.equal((await runCli(['verify', ...p.cli, '--json'])).code, 0);
  });

  it('a folder .vscode/settings.json created after the export with a session setting makes it stale; one with other settings does not', async () => {
    const folder = workspace(SOURCE, { '.git/HEAD': 'ref: refs/heads/main\n' });
    const home = tempDir('fresh-home-');
    const cli = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await runCli(['export', ...cli, '--json'])).code, 0);
    writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify({ 'editor.tabSize': 2 }));
    assert.equal((await runCli(['verify', ...cli, '--json'])).code, 0);
    writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify({ 'editor.tabSize': 2, dsh: { tools: { fx: { only: ['echo'] } } } }));
    const verify = await runCli(['verify', ...cli, '--json']);
    assert.equal(verify.code, 1);
    assert.deepEqual(verify.json.verify.reasons.map((r: { message: string }) => r.message), ['dsh.tools in .vscode/settings.json changed since the export']);
  });

  it('a probe recorded after the export (other tool pins) stales nothing: DSH mounts the signed pins, a note says the next export takes the new ones, and it does', async () => {
    const folder = workspace(SOURCE, { '.git/HEAD': 'ref: refs/heads/main\n' });
    const home = tempDir('fresh-home-');
    const cli = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await runCli(['export', ...cli, '--json'])).code, 0);
    const ports = testPorts(home, { env: {} });
    const { declaration } = await planSession(ports, { cwd: folder, skills: false, tools: false });
    const entry = declaration!.servers[0];
    const tool = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } };
    await ports.store.recordProbes(folder, { fx: { name: 'fx', pin: entry.pin, probedAt: '2026-01-01T00:00:00.000Z', tools: [{ ...tool, pin: toolPin(tool) }] } });
    const verify = await runCli(['verify', ...cli, '--json']);
    assert.equal(verify.code, 0);
    assert.deepEqual(verify.json.verify.reasons, []);
    const { plan } = await planSession(ports, { cwd: folder, skills: false, tools: false });
    assert.deepEqual(plan.blocked, []);
    assert.deepEqual(plan.notes.map((r) => [r.code, r.args.server, r.fix?.command]), [['probed-since-export', 'fx', `dsh-bridge export --workspace ${folder}`]]);
    assert.deepEqual(Object.keys(declaration!.servers[0].tools?.pins ?? {}), [], 'the declaration on disk still carries the pins of its export');
    assert.equal((await runCli(['export', ...cli, '--json'])).code, 0);
    assert.equal((await runCli(['verify', ...cli, '--json'])).code, 0);
    const again = await planSession(ports, { cwd: folder, skills: false, tools: false });
    assert.deepEqual(again.plan.notes, [], 'the export took the new pins');
    assert.deepEqual(Object.keys(again.declaration!.servers[0].tools!.pins!), ['echo']);
  });

  it('toolChoiceChange: a dsh.tools that leaves out more is a narrowing (the editor may export it by itself), one that brings a tool back a widening, another stale reason neither', async () => {
    const p = await exported('folder', { 'dsh.tools': { fx: { exclude: ['add'] } } });
    const change = async (tools: unknown, extra: Record<string, unknown> = {}) => {
      p.write('folder', { 'dsh.tools': tools, ...extra });
      const verified = await verifyFolder(testPorts(p.home, { env: {} }), p.folder);
      return toolChoiceChange(verified, analyzeToolChoice([{ level: 'folder', value: tools }]));
    };
    assert.equal(await change({ fx: { exclude: ['add'] } }), undefined, 'fresh');
    assert.equal(await change({ fx: { exclude: ['add', 'echo'] } }), 'narrowed');
    assert.equal(await change({ fx: { exclude: [] } }), 'widened');
    assert.equal(await change({ fx: { exclude: ['add', 'echo'] } }, { 'dsh.export.toolCallTimeoutMs': 5 }), undefined, 'stale by another setting too');
  });

  it('choiceIsNarrowing: leaving more out narrows; bringing a tool back or dropping an only list widens', () => {
    assert.equal(choiceIsNarrowing({ exclude: ['a', 'b'] }, { exclude: ['a'] }), true);
    assert.equal(choiceIsNarrowing({ exclude: ['a'] }, undefined), true);
    assert.equal(choiceIsNarrowing(undefined, { exclude: ['a'] }), false);
    assert.equal(choiceIsNarrowing({ only: ['a'], exclude: [] }, undefined), true);
    assert.equal(choiceIsNarrowing({ exclude: [] }, { only: ['a'], exclude: [] }), false);
    assert.equal(choiceIsNarrowing({ only: ['a', 'b'], exclude: [] }, { only: ['a'], exclude: [] }), false);
    assert.equal(choiceIsNarrowing({ exclude: [] }, { exclude: ['x'] }, ['x']), false);
  });
});

describe('core/app/settingsFiles: a setting\'s layers as a face reads them', () => {
  it('fills the workspace values Restricted Mode hides from the files (one file read once in a single folder), merges the layers and finds the file that defines a path', () => {
    const FOLDER = 'file:///w/.vscode/settings.json';
    const text = '{\n  // mine\n  "dsh.lsp.servers": { "ts": { "command": "tsls" } },\n}\n';
    const layers = [
      { name: 'default' as const, value: undefined, kind: 'settings' as const },
      { name: 'user' as const, value: { py: { command: 'pyls' } }, file: 'file:///u/settings.json', kind: 'settings' as const },
      { name: 'workspace' as const, value: undefined, file: FOLDER, kind: 'settings' as const },
      { name: 'folder' as const, value: undefined, file: FOLDER, kind: 'settings' as const },
    ];
    const texts = new Map([[FOLDER, text], ['file:///u/settings.json', '{}']]);
    const filled = layersWithHiddenValues(layers, texts, 'dsh.lsp.servers');
    assert.deepEqual(filled.map((l) => l.value), [undefined, { py: { command: 'pyls' } }, undefined, { ts: { command: 'tsls' } }]);
    assert.equal(layers[3].value, undefined, 'the layers given are left as they are');
    assert.deepEqual(mergedSettingValue(filled), { py: { command: 'pyls' }, ts: { command: 'tsls' } });
    assert.equal(definingSettingLayer(filled, texts, ['dsh.lsp.servers', 'ts', 'command'])?.layer.name, 'folder');
    assert.equal(definingSettingLayer(filled, texts, ['dsh.lsp.servers', 'py'])?.text, '{}');
    assert.equal(definingSettingLayer(filled, texts, ['dsh.lsp.servers', 'go']), undefined);
  });
});
