import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { shownPath } from '../../../src/cli/output';
import { runCli, tempDir, workspace } from '../helpers';

describe('cli output: a printed path is relative only inside the current folder', () => {
  const cwd = path.resolve('/home/me/project');

  it('inside the current folder: relative; the folder itself: "."', () => {
    assert.equal(shownPath(cwd, '.vscode/mcp.json', cwd), path.join('.vscode', 'mcp.json'));
    assert.equal(shownPath(path.join(cwd, 'sub'), '.dsh/declaration.json', cwd), path.join('sub', '.dsh', 'declaration.json'));
    assert.equal(shownPath(cwd, path.join(cwd, 'a.json'), cwd), 'a.json');
    assert.equal(shownPath(cwd, '.', cwd), '.');
  });

  it('outside it: absolute, never ../../', () => {
    const other = path.resolve('/home/me/other');
    assert.equal(shownPath(other, '.vscode/mcp.json', cwd), path.join(other, '.vscode', 'mcp.json'));
    assert.equal(shownPath(cwd, path.resolve('/etc/mcp.json'), cwd), path.resolve('/etc/mcp.json'));
    assert.equal(shownPath(path.resolve('/home/me'), 'x.json', cwd), path.resolve('/home/me/x.json'));
    // A sibling whose name starts with the folder's is outside it.
    assert.equal(shownPath(path.resolve('/home/me/project-2'), 'x.json', cwd), path.resolve('/home/me/project-2/x.json'));
  });

  it('export and verify of a folder outside the current one print its absolute paths', function () {
    this.timeout(60000);
    const folder = workspace(JSON.stringify({ servers: { fx: { command: process.execPath, args: ['x.js'] } } }));
    const home = tempDir('output-home-');
    const exported = runCli(['export', '--workspace', folder], home); // the CLI runs in the checkout, not above the folder
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`to ${escape(path.join(folder, '.dsh', 'declaration.json'))}\\.`));
    assert.doesNotMatch(exported.stdout, /\.\.\//);
    const verified = runCli(['verify', '--workspace', folder], home);
    assert.ok(verified.stdout.startsWith(`${path.join(folder, '.dsh', 'declaration.json')}: signed`), verified.stdout);
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
