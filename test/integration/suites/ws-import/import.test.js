// Session on test/fixtures/ws-import: DSH: Import MCP Servers... in the real editor. The preview is
// a diff editor of .vscode/mcp.json before anything is written; applying keeps the file's comments,
// puts the literal credential into secret storage (checked through the export, which mirrors
// stored values into the host store of DSH_HOME), and importing again adds nothing.
'use strict';
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const TOKEN = 'ghp_R8x2Kq9ZtW4mLp7VbN3cYd6Fh1Js5Ga0QeUo';
const folderPath = () => workspaceFolder().uri.fsPath;
const mcpPath = () => path.join(folderPath(), '.vscode', 'mcp.json');
const sha256 = (x) => crypto.createHash('sha256').update(x).digest('hex');
const folderRecord = () => path.join(process.env.DSH_HOME, 'bridge', 'folders', `${sha256(path.resolve(folderPath()))}.json`);

/** The open diff editors' (original, modified) URIs. */
function diffTabs() {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs)
    .flatMap((t) => (t.input instanceof vscode.TabInputTextDiff ? [{ label: t.label, original: t.input.original, modified: t.input.modified }] : []));
}

describe('ws-import: DSH: Import MCP Servers...', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let original;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    original = fs.readFileSync(mcpPath(), 'utf8');
  });

  it('shows the new .vscode/mcp.json in a diff editor first; cancelling writes nothing', async () => {
    /** @type {{ label: string, original: string, after: string } | undefined} */
    let seen;
    const summary = await vscode.commands.executeCommand('dsh.importMcpServers', {
      client: 'cursor',
      apply: async () => {
        const tab = await waitFor(() => diffTabs().find((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview diff editor');
        const after = (await vscode.workspace.openTextDocument(tab.modified)).getText();
        seen = { label: tab.label, original: tab.original.fsPath, after };
        return false;
      },
    });
    assert.strictEqual(summary.outcome, 'cancelled');
    assert.strictEqual(seen.original, mcpPath(), 'the left side is the file as it is');
    assert.match(seen.label, /mcp\.json/);
    assert.match(seen.after, /\/\/ Team servers: this comment stays/);
    assert.match(seen.after, /"GITHUB_PERSONAL_ACCESS_TOKEN": "\$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}"/);
    assert.ok(!seen.after.includes(TOKEN), 'the preview must not hold the credential');
    assert.strictEqual(fs.readFileSync(mcpPath(), 'utf8'), original, 'cancel wrote the file');
    await waitFor(() => !diffTabs().some((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview to close');
  });

  it('a value the CLI stored in the host store under the same id is the user\'s: the import takes another id', async () => {
    // As `dsh-bridge import --yes` or an export leaves it: a stored value whose input is no longer in mcp.json.
    fs.mkdirSync(path.dirname(folderRecord()), { recursive: true });
    fs.writeFileSync(folderRecord(), JSON.stringify({ version: 1, folder: path.resolve(folderPath()), inputs: { 'github-GITHUB_PERSONAL_ACCESS_TOKEN': 'users-own-value' }, approvals: [] }));
    try {
      let after = '';
      const summary = await vscode.commands.executeCommand('dsh.importMcpServers', {
        client: 'cursor',
        apply: async () => {
          const tab = await waitFor(() => diffTabs().find((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview diff editor');
          after = (await vscode.workspace.openTextDocument(tab.modified)).getText();
          return false;
        },
      });
      assert.strictEqual(summary.outcome, 'cancelled');
      assert.match(after, /"\$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN-2\}"/);
      assert.strictEqual(JSON.parse(fs.readFileSync(folderRecord(), 'utf8')).inputs['github-GITHUB_PERSONAL_ACCESS_TOKEN'], 'users-own-value');
    } finally {
      fs.rmSync(folderRecord(), { force: true });
      await waitFor(() => !diffTabs().some((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview to close');
    }
  });

  it('applies: servers added after the existing ones, comments kept, the credential in secret storage, the report in the summary', async () => {
    const summary = await vscode.commands.executeCommand('dsh.importMcpServers', { client: 'cursor', apply: true });
    assert.strictEqual(summary.outcome, 'imported');
    assert.deepStrictEqual(summary.servers, ['github', 'docs', 'events']);
    assert.deepStrictEqual(summary.secretsStored, ['github-GITHUB_PERSONAL_ACCESS_TOKEN']);
    assert.deepStrictEqual(summary.notes.map((n) => `${n.server} ${n.code}`), ['github secret-to-input', 'docs field-dropped', 'events sse-transport']);
    const text = fs.readFileSync(mcpPath(), 'utf8');
    assert.ok(text.startsWith(original.slice(0, original.lastIndexOf('\t},'))), 'the existing lines were changed');
    assert.match(text, /\/\/ Team servers: this comment stays/);
    assert.ok(!text.includes(TOKEN), 'the credential was written into the workspace');
    assert.match(text, /"id": "github-GITHUB_PERSONAL_ACCESS_TOKEN",[\s\S]*"password": true/);

    // The export finds the value in secret storage without asking, and mirrors it to the host store.
    const exported = await vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri);
    assert.strictEqual(exported.outcome, 'exported', JSON.stringify(exported));
    const record = JSON.parse(fs.readFileSync(folderRecord(), 'utf8'));
    assert.strictEqual(record.inputs['github-GITHUB_PERSONAL_ACCESS_TOKEN'], TOKEN);
    const declaration = fs.readFileSync(path.join(folderPath(), '.dsh', 'declaration.json'), 'utf8');
    assert.ok(!declaration.includes(TOKEN), 'the declaration holds a value');
    assert.deepStrictEqual(JSON.parse(declaration).servers.map((s) => s.name).sort(), ['docs', 'github', 'memory']);
  });

  it('importing again adds nothing', async () => {
    const before = fs.readFileSync(mcpPath(), 'utf8');
    const summary = await vscode.commands.executeCommand('dsh.importMcpServers', { client: 'cursor', apply: true });
    assert.strictEqual(summary.outcome, 'nothing');
    assert.deepStrictEqual(summary.notes.map((n) => n.code), ['already-present', 'already-present', 'already-present']);
    assert.strictEqual(fs.readFileSync(mcpPath(), 'utf8'), before);
  });

  it('a Claude Code file with credentials in args and a URL: the preview shows references only, the values go to secret storage', async () => {
    const LINEAR = 'lin_api_Zq8Wm2Xr5Ty9Lp3Kd7Hv1Nb4Gc6Fj0';
    const PG = 'Pg-PASSWORD-7d1e';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-'));
    const file = path.join(dir, 'claude.json');
    fs.writeFileSync(file, JSON.stringify({ mcpServers: {
      linear: { command: 'npx', args: ['-y', 'mcp-remote@0.1.29', 'https://mcp.linear.app/mcp', '--header', `Authorization: Bearer ${LINEAR}`] },
      pg: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres@0.6.2', `postgresql://app:${PG}@db.internal/app`] },
      basic: { type: 'http', url: 'https://deploy:hp-PASS-b7@mcp.example.com/mcp' },
    } }));
    try {
      let after = '';
      const summary = await vscode.commands.executeCommand('dsh.importMcpServers', {
        client: 'claude', files: [file],
        apply: async () => {
          const tab = await waitFor(() => diffTabs().find((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview diff editor');
          after = (await vscode.workspace.openTextDocument(tab.modified)).getText();
          return true;
        },
      });
      assert.strictEqual(summary.outcome, 'imported', JSON.stringify(summary));
      assert.match(after, /"Authorization: Bearer \$\{input:linear-Authorization\}"/);
      assert.match(after, /"postgresql:\/\/app:\$\{input:pg-postgresql-password\}@db\.internal\/app"/);
      assert.match(after, /"Authorization": "Basic \$\{input:basic-Authorization\}"/);
      assert.deepStrictEqual(summary.secretsStored, ['linear-Authorization', 'pg-postgresql-password', 'basic-Authorization']);
      // The credentials in args stay in args as inputs: the summary carries the editor's warning (issue 35).
      assert.deepStrictEqual(summary.warnings, [{ server: 'linear', code: 'secret-in-args' }, { server: 'pg', code: 'secret-in-args' }]);
      assert.deepStrictEqual(summary.writes, ['.vscode/mcp.json'], 'the folder keeps its servers in .vscode/mcp.json');
      const text = fs.readFileSync(mcpPath(), 'utf8');
      for (const secret of [LINEAR, PG, 'hp-PASS-b7']) assert.ok(!after.includes(secret) && !text.includes(secret), `${secret} in the preview or the file`);
      // The export takes the values from secret storage (mirrored into the host store) and refuses none of the three.
      const exported = await vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri);
      assert.strictEqual(exported.outcome, 'exported', JSON.stringify(exported));
      const record = JSON.parse(fs.readFileSync(folderRecord(), 'utf8'));
      assert.strictEqual(record.inputs['linear-Authorization'], LINEAR);
      assert.strictEqual(record.inputs['pg-postgresql-password'], PG);
      assert.strictEqual(Buffer.from(record.inputs['basic-Authorization'], 'base64').toString(), 'deploy:hp-PASS-b7');
      const names = JSON.parse(fs.readFileSync(path.join(folderPath(), '.dsh', 'declaration.json'), 'utf8')).servers.map((s) => s.name);
      for (const name of ['linear', 'pg', 'basic']) assert.ok(names.includes(name), `${name} not exported: ${names}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await waitFor(() => !diffTabs().some((t) => t.modified.scheme === 'dsh-bridge-import'), 10000, 'the preview to close');
    }
  });

  it('dsh.import.target ".mcp.json" writes the portable file, and the summary names it; .vscode/mcp.json untouched', async () => {
    const before = fs.readFileSync(mcpPath(), 'utf8');
    const dotMcp = path.join(folderPath(), '.mcp.json');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-'));
    const file = path.join(dir, 'config.toml');
    fs.writeFileSync(file, '[mcp_servers.portable-one]\ncommand = "node"\nargs = ["p.js"]\n');
    const config = () => vscode.workspace.getConfiguration(undefined, workspaceFolder().uri);
    await config().update('dsh.import.target', '.mcp.json', vscode.ConfigurationTarget.WorkspaceFolder);
    try {
      await waitFor(() => config().get('dsh.import.target') === '.mcp.json', 10000, 'the setting');
      const summary = await vscode.commands.executeCommand('dsh.importMcpServers', { client: 'codex', files: [file], apply: true, removeOriginals: false });
      assert.strictEqual(summary.outcome, 'imported', JSON.stringify(summary));
      assert.deepStrictEqual(summary.writes, ['.mcp.json']);
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(dotMcp, 'utf8')).mcpServers['portable-one'], { type: 'stdio', command: 'node', args: ['p.js'] });
      assert.strictEqual(fs.readFileSync(mcpPath(), 'utf8'), before);
    } finally {
      await config().update('dsh.import.target', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(dotMcp, { force: true });
    }
  });

  it('an import past the export\'s 512 servers is refused and writes nothing', async () => {
    const before = fs.readFileSync(mcpPath(), 'utf8');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-'));
    const file = path.join(dir, 'config.toml');
    fs.writeFileSync(file, Array.from({ length: 520 }, (_, i) => `[mcp_servers.t${i}]\ncommand = "node"\n`).join('\n'));
    try {
      const summary = await vscode.commands.executeCommand('dsh.importMcpServers', { client: 'codex', files: [file], apply: true });
      assert.strictEqual(summary.outcome, 'failed', JSON.stringify(summary));
      assert.deepStrictEqual(summary.notes.filter((n) => n.kind === 'error').map((n) => n.code), ['too-many-servers']);
      assert.strictEqual(fs.readFileSync(mcpPath(), 'utf8'), before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
