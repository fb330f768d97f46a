import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultSkillRoots, gateSessionSkills } from '../../src/core/app/sessionSkills';
import { hashSkillRoot, skillBody } from '../../src/core/skills/skills';
import { nodeSkillFs } from '../../src/core/node/skillFs';
import { LSP_APPROVAL_NAME, toLspStdioConfig } from '../../src/core/lsp/lspRow';
import { lspDeclarationSection } from '../../src/core/lsp/lspSection';
import { testPorts, tempDir } from './helpers';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli.js');

const skill = (name: string, body = `${name} body`) => `---\nname: ${name}\ndescription: ${name} does things\n---\n\n${body}\n`;
function put(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A git project with skills in both project roots, and a user root sharing one name. */
function project() {
  const base = tempDir('skill-gate-');
  const folder = path.join(base, 'project');
  const home = path.join(base, 'dsh-home');
  const agentsHome = path.join(base, 'agents-home');
  mkdirSync(path.join(folder, '.git'), { recursive: true });
  put(path.join(folder, '.dsh/skills/alpha/SKILL.md'), skill('alpha'));
  put(path.join(folder, '.agents/skills/beta.md'), skill('beta'));
  put(path.join(folder, '.agents/skills/shared/SKILL.md'), skill('shared', 'PROJECT'));
  put(path.join(home, 'skills/shared/SKILL.md'), skill('shared', 'USER'));
  return { folder, home, agentsHome, dsh: path.join(folder, '.dsh/skills'), agents: path.join(folder, '.agents/skills'), user: path.join(home, 'skills') };
}

/** What a session in the project gets, with these roots trusted in the real host store (the function the plugin's gate runs). */
async function gateFolderSkills(p: ReturnType<typeof project>, recorded: Record<string, string>, customRoots: string[] = []) {
  const ports = testPorts(p.home, { env: { DSH_AGENTS_HOME: p.agentsHome } });
  for (const [root, pin] of Object.entries(recorded)) await ports.store.trustSkillRoot(root, pin);
  return gateSessionSkills(ports, { cwd: p.folder, roots: defaultSkillRoots(ports, customRoots) });
}

describe('skill-root gate (core)', () => {
  it('withholds untrusted and changed project roots, offers a lower-rank trusted skill of the same name, never gates user roots', async () => {
    const p = project();
    const dshPin = (await hashSkillRoot({ path: p.dsh, skipSystem: false }, nodeSkillFs)).pin!;
    let gate = await gateFolderSkills(p, { [p.dsh]: dshPin });
    assert.deepEqual(gate.roots.map((r) => [r.kind, r.gate]), [['project-dsh', 'trusted'], ['project-agents', 'untrusted'], ['user-dsh', 'not-gated']]);
    assert.deepEqual(gate.trusted.map((c) => c.analysis.skill!.name), ['alpha']);
    assert.deepEqual(gate.shadows.map((s) => [s.name, s.withheldRoot, s.fallback?.root.path]), [['beta', p.agents, undefined], ['shared', p.agents, p.user]]);
    assert.deepEqual(gate.withheld.map((r) => r.path), [p.agents]);

    appendFileSync(path.join(p.dsh, 'alpha/SKILL.md'), 'edited\n');
    gate = await gateFolderSkills(p, { [p.dsh]: dshPin });
    assert.equal(gate.roots[0].gate, 'changed');
    assert.equal(gate.roots[0].recordedPin, dshPin);
    assert.deepEqual(gate.shadows.map((s) => s.name), ['alpha', 'beta', 'shared']);
    assert.deepEqual(gate.trusted, []);
  });

  it('a trusted project skill that wins over the user root stays; a custom root is gated like a project root', async () => {
    const p = project();
    const custom = path.join(path.dirname(p.folder), 'custom-skills');
    put(path.join(custom, 'gamma/SKILL.md'), skill('gamma'));
    const agentsPin = (await hashSkillRoot({ path: p.agents, skipSystem: false }, nodeSkillFs)).pin!;
    const gate = await gateFolderSkills(p, { [p.agents]: agentsPin }, [custom]);
    assert.deepEqual(gate.roots.map((r) => [r.kind, r.gate]), [['project-dsh', 'untrusted'], ['project-agents', 'trusted'], ['custom', 'untrusted'], ['user-dsh', 'not-gated']]);
    assert.deepEqual(gate.trusted.map((c) => c.analysis.skill!.name), ['beta', 'shared']);
    assert.deepEqual(gate.shadows.map((s) => s.name), ['alpha', 'gamma']);
  });

  it('the skill body is what dsh-skill-filesystem loads (after the closing line, trimmed)', () => {
    assert.equal(skillBody('---\nname: a\ndescription: b\n---\n\n  body text \n\n'), 'body text');
    assert.equal(skillBody('---\r\nname: a\r\n---\r\nx\r\n'), 'x');
    assert.equal(skillBody('no front matter'), undefined);
  });
});

describe('lsp row (core)', () => {
  const section = lspDeclarationSection({
    registersAll: true,
    servers: {
      ts: {
        command: '/usr/bin/tls', args: ['--stdio'], env: { LOG: 'x', API_TOKEN: 'never-copied' }, extensionToLanguage: { '.ts': 'typescript' },
        initializationOptions: { a: 1 }, configuration: null, maxMessageBytes: 1, maxStderrBytes: 2, maxDocumentBytes: 3, shutdownTimeoutMs: 4, killGraceMs: 5,
      },
    },
  });
  it('renders credential-named env from the DSH environment and keeps every other field', () => {
    const lookup = { input: () => undefined, env: (n: string) => (n === 'API_TOKEN' ? 'from-dsh-env' : undefined) };
    const row = toLspStdioConfig(section, lookup);
    assert.ok(row.ok);
    assert.deepEqual(row.config.servers.ts, {
      command: '/usr/bin/tls', args: ['--stdio'], env: { LOG: 'x', API_TOKEN: 'from-dsh-env' }, extensionToLanguage: { '.ts': 'typescript' },
      initializationOptions: { a: 1 }, configuration: null, maxMessageBytes: 1, maxStderrBytes: 2, maxDocumentBytes: 3, shutdownTimeoutMs: 4, killGraceMs: 5,
    });
  });
  it('refuses the whole row when a referenced variable is missing, naming it but no value', () => {
    const row = toLspStdioConfig(section, { input: () => undefined, env: () => undefined });
    assert.equal(row.ok, false);
    assert.match(!row.ok ? row.reason : '', /"ts" needs the environment variable API_TOKEN/);
  });
  it('approval name cannot collide with an MCP serverName', () => {
    assert.doesNotMatch(LSP_APPROVAL_NAME, /^[A-Za-z0-9_-]{1,32}$/);
  });
});

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
      const trusted = inElsewhere(['skills', 'trust', '.agents/skills']);
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
