import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir, workspace } from './helpers';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/mcp-servers/tool-fixture.mjs');

function cli(args: string[], home: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DSH_HOME: home }, encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI: dsh-bridge probe', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  const source = JSON.stringify({ servers: { fx: { command: process.execPath, args: [FIXTURE] }, bad: { command: process.execPath, args: [FIXTURE, '--exit-early'] } } });

  it('prints a table per server (DSH names, tokens, dsh.tools), errors with stderr; the export then pins the tools', () => {
    const folder = workspace(source, { '.vscode/settings.json': '{"dsh.tools": {"fx": {"exclude": ["danger"]}}}' });
    const home = tempDir('cli-home-');
    const r = cli(['probe', '--workspace', folder], home);
    assert.equal(r.code, 1, 'one server failed');
    assert.match(r.stdout, /^fx \(stdio\): started in \d+ ms; 3 tools \(2 offered to DSH\), 1 prompt, 0 resources; offered tools add ~\d+ tokens to every request$/m);
    assert.match(r.stdout, /^ {2}danger +mcp__fx__danger +~\d+ +no \(dsh\.tools\) +Deletes everything/m);
    assert.match(r.stdout, /^ {2}echo +mcp__fx__echo +~\d+ +yes +Echoes the text back\.$/m);
    assert.match(r.stdout, /^bad \(stdio\): did not start: .*\[did-not-start\]$/m);
    assert.match(r.stdout, /^ {4}fixture: cannot start: missing configuration$/m);
    assert.match(r.stdout, /Recorded 1 probe on this machine/);
    assert.equal(cli(['probe', 'fx', '--workspace', folder], home).code, 0, 'a named probe of the good server only');
    assert.equal(cli(['export', '--workspace', folder], home).code, 0);
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    const fx = declaration.servers.find((s: { name: string }) => s.name === 'fx');
    assert.deepEqual(fx.tools.choice, { exclude: ['danger'] });
    assert.deepEqual(Object.keys(fx.tools.pins), ['echo', 'add', 'danger']);
    assert.equal(declaration.servers.find((s: { name: string }) => s.name === 'bad').tools, undefined);
  });

  it('consent as an export: refused in pinned mode without the approval, runs once approved; nothing in deny', () => {
    const folder = workspace(source);
    const home = tempDir('cli-home-');
    assert.equal(cli(['trust', 'pinned'], home).code, 0);
    const refused = cli(['probe', 'fx', '--workspace', folder, '--json'], home);
    assert.equal(refused.code, 1);
    const [notApproved] = JSON.parse(refused.stdout).servers;
    assert.equal(notApproved.outcome, 'not-approved');
    assert.equal(cli(['export', '--workspace', folder], home).code, 0, 'approval is of an exported pin, as for DSH');
    const approve = cli(['approve', 'fx', '--workspace', folder, '--yes', notApproved.pin], home);
    assert.equal(approve.code, 0, approve.stderr + approve.stdout);
    const approved = JSON.parse(cli(['probe', 'fx', '--workspace', folder, '--json'], home).stdout);
    assert.equal(approved.servers[0].outcome, 'ok');
    assert.equal(approved.servers[0].tools[0].publicName, 'mcp__fx__echo');
    assert.equal(cli(['trust', 'deny'], home).code, 0);
    const denied = cli(['probe', '--workspace', folder], home);
    assert.equal(denied.code, 1);
    assert.match(denied.stdout, /fx \(stdio\): trust mode is "deny" on this machine: nothing is started \[trust-deny\]/);
  });

  it('a bad --timeout is a usage error', () => {
    assert.equal(cli(['probe', '--timeout', 'soon', '--workspace', workspace(source)], tempDir('cli-home-')).code, 2);
  });
});
