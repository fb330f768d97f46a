import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LSP_APPROVAL_NAME } from '../../../src/core/lsp/lspRow';
import { project, put } from '../core/skills/skillProject.fixture';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');

describe('CLI: skills, verify\'s DSH outlook, approve lsp (dist/cli.js)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });
  const run = (p: ReturnType<typeof project>, args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args, '--workspace', p.folder], { env: { ...process.env, DSH_HOME: p.home, DSH_AGENTS_HOME: p.agentsHome }, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('list, trust (showing skills and pin, --pin must still match), distrust; user roots need no trust', async () => {
    const p = project();
    const list = JSON.parse(run(p, ['skills', 'list', '--json']).stdout);
    assert.deepEqual(list.roots.map((r: { kind: string; trust: string }) => [r.kind, r.trust]), [['project-dsh', 'untrusted'], ['project-agents', 'untrusted'], ['user-dsh', 'not-gated']]);
    assert.deepEqual(list.withheld, [
      { name: 'alpha', root: p.dsh, why: 'root', offeredFrom: null },
      { name: 'beta', root: p.agents, why: 'root', offeredFrom: null },
      { name: 'shared', root: p.agents, why: 'root', offeredFrom: p.user },
    ]);
    const pin = list.roots[1].pin;
    assert.equal(run(p, ['skills', 'trust', p.agents, '--pin', `sha256:${'0'.repeat(64)}`]).code, 1, 'a pin that is not the current one');
    const trusted = run(p, ['skills', 'trust', p.agents, '--pin', pin]);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /skills: beta, shared/);
    assert.ok(trusted.stdout.includes(`pin:    ${pin}`));
    const human = run(p, ['skills', 'list']).stdout;
    assert.match(human, /project-agents\s+trusted/);
    assert.match(human, /withheld: "alpha" from /);
    assert.equal(run(p, ['skills', 'trust', p.user]).code, 1, 'user root: not gated');
    assert.equal(run(p, ['skills', 'trust', path.join(p.folder, 'elsewhere')]).code, 1, 'not a root of the folder');
    assert.equal(run(p, ['skills', 'distrust', p.agents]).code, 0);
    const after = JSON.parse(run(p, ['skills', 'list', '--json']).stdout);
    assert.equal(after.roots[1].trust, 'untrusted');
    assert.equal(run(p, ['skills']).code, 2);
  });

  it('a relative root is the workspace folder\'s (--workspace), not one of the directory the CLI runs in', () => {
    const p = project();
    assert.equal(path.relative(p.folder, p.agents), path.join('.agents', 'skills'));
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'dshb-cwd-'));
    try {
      const inElsewhere = (args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--workspace', p.folder], { cwd: elsewhere, env: { ...process.env, DSH_HOME: p.home, DSH_AGENTS_HOME: p.agentsHome }, encoding: 'utf8' });
      // No terminal, no --pin: the review, the command with the pin, nothing trusted (issue 35).
      const unasked = inElsewhere(['skills', 'trust', '.agents/skills']);
      assert.equal(unasked.status, 1, unasked.stderr);
      const withPin = /\n {2}(dsh-bridge skills trust .* --pin (sha256:[0-9a-f]{64}))$/m.exec(unasked.stderr);
      assert.ok(withPin, unasked.stderr);
      assert.equal(JSON.parse(run(p, ['skills', 'list', '--json']).stdout).roots[1].trust, 'untrusted');
      const trusted = inElsewhere(['skills', 'trust', '.agents/skills', '--pin', withPin[2]]);
      assert.equal(trusted.status, 0, trusted.stderr);
      assert.ok(trusted.stdout.includes(`Skill root ${p.agents} (project-agents)`), trusted.stdout);
      assert.equal(JSON.parse(run(p, ['skills', 'list', '--json']).stdout).roots[1].trust, 'trusted');
      const distrusted = inElsewhere(['skills', 'distrust', '.agents/skills']);
      assert.equal(distrusted.status, 0, distrusted.stderr);
      assert.match(distrusted.stdout, /is no longer trusted/);
      assert.equal(JSON.parse(run(p, ['skills', 'list', '--json']).stdout).roots[1].trust, 'untrusted');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('verify says what a DSH session in the folder gets (MCP servers, language servers, skills); approve lsp records the section pin', () => {
    const p = project();
    put(path.join(p.folder, '.vscode/mcp.json'), JSON.stringify({ servers: { echo: { command: 'node', args: ['x.js'] } } }));
    put(path.join(p.folder, '.vscode/settings.json'), JSON.stringify({ 'dsh.lsp.servers': { ts: { command: process.execPath, args: ['--stdio'], extensions: { '.ts': 'typescript' } } } }));
    assert.equal(run(p, ['export']).code, 0);
    const v = run(p, ['verify', '--json']);
    assert.equal(v.code, 0, v.stderr);
    const dsh = JSON.parse(v.stdout).dsh;
    // Trust mode "ask": nothing starts without DSH asking first.
    assert.deepEqual([dsh.servers, dsh.asks], [[], ['echo']]);
    assert.deepEqual([dsh.languageServers, dsh.languageServersOutcome], [[], 'asks']);
    assert.deepEqual(dsh.plan.languageServers.servers, [{ id: 'ts', extensions: ['.ts'] }]);
    assert.deepEqual(dsh.skills.withheld.map((w: { name: string }) => w.name), ['alpha', 'beta', 'shared']);
    const human = run(p, ['verify']).stdout;
    assert.match(human, /MCP servers:\n\s+asks\s+echo\s+Trust mode "ask": DSH asks before it starts\. Fix: dsh-bridge trust pinned && dsh-bridge approve echo --workspace /);
    assert.match(human, /Language servers: asks ts \(\.ts\)/);
    assert.match(human, /a headless run has no one to answer, so it does not start there/);

    // approve lsp: the exact launch first; without a terminal only --yes with the section's pin approves.
    const pin = JSON.parse(readFileSync(path.join(p.folder, '.dsh/declaration.json'), 'utf8')).lsp.pin;
    const asked = run(p, ['approve', 'lsp']);
    assert.equal(asked.code, 1);
    assert.ok(asked.stdout.includes(`${process.execPath} --stdio`), asked.stdout);
    assert.ok(asked.stderr.includes(`--yes ${pin}`));
    const approved = run(p, ['approve', 'lsp', '--yes', pin, '--json']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).languageServers.outcome, 'approved');
    const recordFile = path.join(p.home, 'bridge/folders', `${createHash('sha256').update(p.folder).digest('hex')}.json`);
    // A record left with no input and no approval is removed.
    const record = () => (existsSync(recordFile) ? JSON.parse(readFileSync(recordFile, 'utf8')) : { approvals: [] });
    assert.deepEqual(record().approvals, [{ serverName: LSP_APPROVAL_NAME, pin }]);
    // A later export of the same section keeps the approval; a changed section revokes it.
    assert.equal(run(p, ['export']).code, 0);
    assert.deepEqual(record().approvals, [{ serverName: LSP_APPROVAL_NAME, pin }]);
    put(path.join(p.folder, '.vscode/settings.json'), JSON.stringify({ 'dsh.lsp.servers': { ts: { command: process.execPath, args: ['--stdio', '--x'], extensions: { '.ts': 'typescript' } } } }));
    assert.equal(run(p, ['export']).code, 0);
    assert.deepEqual(record().approvals, []);
  });
});
