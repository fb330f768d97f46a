// UI flow with the PACKAGED extension: `vsce package` (offline, the .vscodeignore allow-list)
// into the run dir, installed into a fresh code-server, then a user's first minutes on
// test/fixtures/ws-basic: the extension activates from the .vsix, the Problems panel shows its
// diagnostic with the README link code, and the export command works from the palette.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEditor } from '../harness/e2e-driver.mjs';
import { REPO, createRun, log } from '../harness/lib.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

describe('e2e: the packaged .vsix installs and works (ws-basic)', function () {
  let editor;
  let vsix;

  before(async function () {
    const run = createRun('vsix');
    vsix = path.join(run.dir, 'dsh-bridge.vsix');
    const r = spawnSync('npx', ['vsce', 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', vsix],
      { cwd: REPO, encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
    const listed = spawnSync('npx', ['vsce', 'ls', '--no-dependencies'], { cwd: REPO, encoding: 'utf8', timeout: 120000 }).stdout.trim().split('\n').sort();
    log(`vsix ${vsix}: ${fs.statSync(vsix).size} bytes; files: ${listed.join(' ')}`);
    // The allow-list: nothing but the bundle, the manifest and its strings, the icon, the schema and the docs.
    for (const f of listed) {
      assert.match(f, /^(dist\/extension\.js|package\.json|package\.nls(\.[\w-]+)?\.json|l10n\/.+\.json|media\/icon\.png|schemas\/.+|README\.md|CHANGELOG\.md|LICENSE)$/, `unexpected file in the package: ${f}`);
    }
    assert.ok(fs.statSync(vsix).size < 200 * 1024, `the .vsix is ${fs.statSync(vsix).size} bytes`);
    run.cleanup();
    editor = await startEditor({ vsix });
  });

  screenshotFailuresAndClose(() => editor);

  it('activates from the .vsix: Problems shows the refused server; export writes the declaration', async function () {
    const ws = await editor.openWorkspace('ws-basic');
    const problems = await editor.readProblems({ timeout: 60000 });
    const row = problems.find((p) => p.code === 'unsupported-transport');
    assert.ok(row, `no unsupported-transport row: ${JSON.stringify(problems.map((p) => p.text))}`);
    assert.equal(row.source, 'dsh-bridge');
    await editor.runCommand('DSH: Export MCP Servers');
    const decl = JSON.parse(fs.readFileSync(await editor.waitForWorkspaceFile('.dsh/declaration.json'), 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.name), ['files']);
    assert.ok(fs.existsSync(path.join(ws, '.vscode/mcp.json')));
    console.log(`      screenshot: ${await editor.screenshot('vsix-export')}`);
  });
});
