// A kept session plan (the DSH plugin's model step, core/node/keptWhileUnchanged.ts) over real temp
// workspaces and host stores (its stamps read again at each step, no file events): an unchanged step computes nothing; an
// edit of each input the plan reads (files edited in place with their size and mtime kept,
// created, moved, linked; store records; environment variables) makes the next step plan again,
// and what it returns is what a plan without keeping returns.
import { strict as assert } from 'node:assert';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { planSession, type PlannedSession } from '../../../../src/core/app/plan';
import { defaultSkillRoots, gateSessionSkills, skillGateBasis } from '../../../../src/core/app/sessionSkills';
import type { SkillGateResult } from '../../../../src/core/skills/skillGate';
import { hashSkillRoot } from '../../../../src/core/skills/rootPins';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';
import { project as skillProject, put, skill } from '../skills/skillProject.fixture';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';
import { userPolicyFile } from '../../../../src/core/node/policyFiles';
import { fs } from '../../../../src/core/node/fsReads';
import { journaledEnv } from '../../../../src/core/node/readJournal';
import { KeptWhileUnchanged } from '../../../../src/core/node/keptWhileUnchanged';
import { toolPin } from '../../../../src/core/tools/toolDefinitions';
import { memoryMapped } from '../../../fixtures/memoryMapped.mjs';
import { editInPlace, exportFolder, folderIdentityOf, testPorts, tempDir, workspace } from '../../helpers';

const NODE = process.execPath;
const ECHO = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } };
const SOURCE = JSON.stringify({
  inputs: [{ id: 'tok', type: 'promptString', description: 'token', password: true }],
  servers: {
    fx: { command: NODE, args: ['fx.js'], envFile: '${workspaceFolder}/.env' },
    keyed: { command: NODE, args: ['k.js'], env: { TOKEN: '${input:tok}', HOME_DIR: '${env:KEPT_HOME_DIR}' } },
  },
});

type Project = Awaited<ReturnType<typeof project>>;

/**
 * A git project, exported, trust mode pinned with "fx" approved; its session plan as the plugin's
 * step asks it, kept, and the same plan asked without keeping (`direct`).
 */
async function project(options: { linkedSource?: boolean; sub?: boolean } = {}) {
  const files: Record<string, string> = { '.git/HEAD': 'ref: refs/heads/main\n', '.env': 'A=1\n', 'src/main.ts': 'export {};\n' };
  const folder = workspace(options.linkedSource ? undefined : SOURCE, files);
  if (options.linkedSource) {
    mkdirSync(path.join(folder, 'config'));
    writeFileSync(path.join(folder, 'config/mcp.json'), SOURCE);
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    symlinkSync('../config/mcp.json', path.join(folder, '.vscode/mcp.json'));
  }
  const home = tempDir('kept-home-');
  const env: Record<string, string | undefined> = {};
  // One set of ports for every step, as the plugin builds them once.
  // As the plugin builds them: the environment read through a journaled view.
  const ports = testPorts(home, { env: journaledEnv(env), resolveCommand: (command) => command });
  const exported = await exportFolder(ports, folderIdentityOf(folder));
  const pinOf = (name: string) => exported.analysis.servers.find((s) => s.serverName === name)!.pin;
  await ports.store.setTrustMode('pinned');
  await ports.store.approve(folder, 'fx', pinOf('fx'));
  const cwd = options.sub ? path.join(folder, 'sub') : folder;
  if (options.sub) mkdirSync(cwd);
  const kept = new KeptWhileUnchanged<PlannedSession>(ports.env);
  const request = { cwd, skills: false, tools: false, policyWithoutDeclaration: false } as const;
  return {
    folder, home, env, ports, cwd, kept, pinOf,
    step: () => kept.get(cwd, () => planSession(ports, request)),
    direct: () => planSession(ports, request),
  };
}

/** Steps before and after an edit: kept while unchanged, planned again after it, equal to a plan without keeping. */
async function seenAfter(p: Project, edit: () => unknown, changed = true): Promise<PlannedSession> {
  const first = await p.step();
  assert.equal(p.kept.keeping(), true, 'the plan is kept');
  assert.equal(await p.step(), first, 'an unchanged step keeps the plan');
  assert.equal(p.kept.computed, 1);
  await edit();
  const after = await p.step();
  assert.equal(p.kept.computed, 2, 'the step after the edit plans again');
  assert.deepEqual(after.plan, (await p.direct()).plan);
  if (changed) assert.notDeepEqual(after.plan, first.plan, 'the edit changes what the session gets');
  // And it is kept again.
  assert.equal(p.kept.keeping(), true);
  assert.equal(await p.step(), after);
  assert.equal(p.kept.computed, 2);
  return after;
}

const outcomes = (planned: PlannedSession) => Object.fromEntries(planned.plan.servers.map((s) => [s.serverName, `${s.outcome} ${s.reason.code}`]));
const blocked = (planned: PlannedSession) => planned.plan.blocked.map((r) => r.code);

describe('a kept session plan (the plugin\'s step): every input it read is read again', function () {
  this.timeout(30000);
  const projects: Project[] = [];
  const make = async (options?: Parameters<typeof project>[0]) => {
    const p = await project(options);
    projects.push(p);
    return p;
  };
  afterEach(() => {
    for (const p of projects.splice(0)) {
      p.kept.close();
      assert.equal(p.kept.keeping(), false, 'closing the kept plan forgets it');
    }
  });

  it('the declaration, edited in place with its size and mtime kept', async () => {
    const p = await make();
    const after = await seenAfter(p, () => editInPlace(path.join(p.folder, DECLARATION_PATH), (t) => t.replace('fx.js', 'fy.js')));
    assert.deepEqual([...new Set(blocked(after))], ['declaration-tampered']);
  });

  it('the source .vscode/mcp.json', async () => {
    const p = await make();
    const after = await seenAfter(p, () => editInPlace(path.join(p.folder, '.vscode/mcp.json'), (t) => t.replace('k.js', 'j.js')));
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('a folder settings file created with dsh.tools', async () => {
    const p = await make();
    const after = await seenAfter(p, () => writeFileSync(path.join(p.folder, '.vscode/settings.json'), JSON.stringify({ 'dsh.tools': { fx: { exclude: ['echo'] } } })));
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('an envFile, edited in place', async () => {
    const p = await make();
    const after = await seenAfter(p, () => editInPlace(path.join(p.folder, '.env'), (t) => t.replace('A=1', 'A=2')));
    assert.match(String(after.plan.blocked[0].args.message), /envFile of server "fx" changed/);
  });

  it('a devcontainer folder that adds a server', async () => {
    const p = await make();
    const after = await seenAfter(p, () => {
      mkdirSync(path.join(p.folder, '.devcontainer'));
      writeFileSync(path.join(p.folder, '.devcontainer/devcontainer.json'), '{ "customizations": { "vscode": { "mcp": { "servers": { "dc": { "command": "sh" } } } } } }');
    });
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('the trust mode', async () => {
    const p = await make();
    const after = await seenAfter(p, () => p.ports.store.setTrustMode('deny'));
    assert.deepEqual(blocked(after), ['trust-deny']);
  });

  it('an approval and an input value', async () => {
    const p = await make();
    p.env.KEPT_HOME_DIR = '/h';
    let after = await seenAfter(p, () => p.ports.store.setInput(p.folder, 'tok', 'v1'));
    assert.equal(outcomes(after).keyed, 'asks pin-not-approved');
    await p.ports.store.approve(p.folder, 'keyed', p.pinOf('keyed'));
    after = await p.step();
    assert.equal(p.kept.computed, 3);
    assert.equal(outcomes(after).keyed, 'starts approved');
  });

  it('an environment variable the plan read', async () => {
    const p = await make();
    await p.ports.store.setInput(p.folder, 'tok', 'v1');
    const after = await seenAfter(p, () => {
      p.env.KEPT_HOME_DIR = '/h';
    });
    assert.equal(outcomes(after).keyed, 'asks pin-not-approved');
  });

  it('the DSH user policy file, created', async () => {
    const p = await make();
    const after = await seenAfter(p, () => {
      const file = userPolicyFile(p.home);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ deniedServers: [{ serverName: 'fx' }] }));
    });
    assert.equal(outcomes(after).fx, 'withheld dsh-policy-denied');
  });

  it('a newer probe recorded in the host store', async () => {
    const p = await make();
    const after = await seenAfter(p, () => p.ports.store.recordProbes(p.folder, { fx: { name: 'fx', pin: p.pinOf('fx'), probedAt: new Date(0).toISOString(), tools: [{ ...ECHO, pin: toolPin(ECHO) }] } }));
    // Seen at once, and it withholds nothing: the new pins wait for the next export.
    assert.deepEqual(after.plan.blocked, []);
    assert.deepEqual(after.plan.notes.map((r) => r.code), ['probed-since-export']);
  });

  it('the signing key, edited in place', async () => {
    const p = await make();
    const key = path.join(p.ports.store.bridgeDir, 'signing.key');
    const after = await seenAfter(p, () => editInPlace(key, (t) => t.replace(/[A-Za-z0-9](?=\s*$)/, (c) => (c === 'A' ? 'B' : 'A'))));
    assert.equal(after.plan.declaration.state, 'refused');
  });

  it('the .dsh folder moved away', async () => {
    const p = await make();
    const after = await seenAfter(p, () => renameSync(path.join(p.folder, '.dsh'), path.join(p.folder, '.dsh-old')));
    assert.equal(after.plan.declaration.state, 'missing');
  });

  it('the target of a linked source file', async () => {
    const p = await make({ linkedSource: true });
    const after = await seenAfter(p, () => editInPlace(path.join(p.folder, 'config/mcp.json'), (t) => t.replace('k.js', 'j.js')));
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('the target of a linked policy file (the link itself unchanged)', async () => {
    const p = await make();
    const target = path.join(tempDir('kept-policy-'), 'policy.json');
    writeFileSync(target, JSON.stringify({ deniedServers: [{ serverName: 'fy' }] }));
    const file = userPolicyFile(p.home);
    mkdirSync(path.dirname(file), { recursive: true });
    symlinkSync(target, file);
    const after = await seenAfter(p, () => editInPlace(target, (t) => t.replace('"fy"', '"fx"')));
    assert.equal(outcomes(after).fx, 'withheld dsh-policy-denied');
  });

  it('the DSH user policy file as a hard link, edited in place through its other name (a dotfiles copy)', async () => {
    const p = await make();
    // inotify reports a write to the folder of the name it was made through: the policy file's folder hears nothing.
    const dotfiles = path.join(tempDir('kept-dotfiles-'), 'dsh-policy.json');
    writeFileSync(dotfiles, JSON.stringify({ deniedServers: [{ serverName: 'fy' }] }));
    const file = userPolicyFile(p.home);
    mkdirSync(path.dirname(file), { recursive: true });
    linkSync(dotfiles, file);
    const after = await seenAfter(p, () => editInPlace(dotfiles, (t) => t.replace('"fy"', '"fx"')));
    assert.equal(outcomes(after).fx, 'withheld dsh-policy-denied');
  });

  it('a linked folder on the way pointed elsewhere (.vscode a link, its files untouched)', async () => {
    const p = await make();
    const vscode = path.join(p.folder, '.vscode');
    renameSync(vscode, path.join(p.folder, 'cfg1'));
    mkdirSync(path.join(p.folder, 'cfg2'));
    writeFileSync(path.join(p.folder, 'cfg2/mcp.json'), readFileSync(path.join(p.folder, 'cfg1/mcp.json'), 'utf8').replace('k.js', 'j.js'));
    symlinkSync('cfg1', vscode);
    const after = await seenAfter(p, () => {
      rmSync(vscode);
      symlinkSync('cfg2', vscode);
    });
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('a session in a subfolder: a .git made there moves the project root below the declaration', async () => {
    const p = await make({ sub: true });
    const first = await p.step();
    assert.equal(first.plan.declaration.folder, p.folder);
    const after = await seenAfter(p, () => mkdirSync(path.join(p.cwd, '.git')));
    assert.equal(after.plan.declaration.state, 'missing');
  });

  it('a session through a linked folder: the link pointed elsewhere', async () => {
    const p = await make();
    const other = await make();
    const link = path.join(tempDir('kept-link-'), 'ws');
    symlinkSync(p.folder, link);
    const kept = new KeptWhileUnchanged<PlannedSession>(p.ports.env);
    const request = { cwd: link, skills: false, tools: false, policyWithoutDeclaration: false } as const;
    const step = () => kept.get(link, () => planSession(p.ports, request));
    const first = await step();
    assert.equal(kept.keeping(), true);
    assert.equal(await step(), first);
    rmSync(link);
    symlinkSync(other.folder, link);
    const after = await step();
    assert.equal(kept.computed, 2);
    // The other folder's declaration is signed with its own DSH home's key: refused here.
    assert.deepEqual([first.folder, first.plan.declaration.state, after.plan.declaration.state], [p.folder, 'verified', 'refused']);
    assert.deepEqual(after.plan, (await planSession(p.ports, request)).plan);
    kept.close();
  });

  // A long-lived shared memory map (an editor's or a sync tool's): its second write moves neither
  // mtime nor ctime and sends no inotify event; only the bytes say the file changed.
  for (const [what, file, from, to, expect] of [
    ['the declaration', DECLARATION_PATH, 'fx.js', 'fy.js', 'declaration-tampered'],
    ['the source .vscode/mcp.json', '.vscode/mcp.json', 'k.js', 'j.js', 'declaration-stale'],
    ['an envFile', '.env', 'A=1', 'A=2', 'envFile'],
  ] as const) {
    it(`${what}, written through a shared memory map that moves no time and sends no event`, async () => {
      const p = await make();
      const mapped = await memoryMapped(path.join(p.folder, file));
      try {
        const after = await seenAfter(p, () => mapped.write(from, to));
        assert.match(JSON.stringify(after.plan.blocked), new RegExp(expect));
      } finally {
        mapped.close();
      }
    });
  }

  it('the trust mode, written through a shared memory map', async () => {
    const p = await make();
    const mapped = await memoryMapped(p.ports.store.trustModeFile);
    try {
      const after = await seenAfter(p, () => mapped.write('"pinned"', '"deny"  '));
      assert.equal(outcomes(after).fx, 'withheld trust-deny');
    } finally {
      mapped.close();
    }
  });

  it('nothing it read: edits beside the inputs keep the plan, with no new computation', async () => {
    const p = await make();
    const first = await p.step();
    assert.equal(p.kept.keeping(), true);
    writeFileSync(path.join(p.folder, 'src/main.ts'), 'export const x = 1;\n');
    writeFileSync(path.join(p.folder, 'README.md'), '# app\n');
    writeFileSync(path.join(p.folder, '.vscode/extensions.json'), '{}');
    writeFileSync(path.join(p.ports.store.bridgeDir, 'unrelated.tmp'), 'x');
    writeFileSync(path.join(os.tmpdir(), `kept-churn-${process.pid}`), 'x');
    rmSync(path.join(os.tmpdir(), `kept-churn-${process.pid}`));
    for (let i = 0; i < 5; i++) assert.equal(await p.step(), first);
    assert.equal(p.kept.computed, 1);
  });

  it('a record the plugin writes into a store folder the plan only looked at (a slow start), also while the step runs, keeps the plan', async () => {
    const p = await make();
    const slow = (pin: string) => p.ports.store.recordSlowStarts(p.folder, new Map([['fx', { pin, at: new Date().toISOString(), startingMs: 1, waitMs: 1, headless: false }]]), []);
    await slow('first'); // the store's starts/ folder exists: the plan's folder check looks at it
    const first = await p.step();
    const written = slow('second'); // as the plugin's step does, beside the step
    assert.equal(p.kept.keeping(), true);
    await written;
    await slow('third');
    assert.equal(await p.step(), first);
    assert.equal(p.kept.computed, 1, 'a name coming into a folder looked at for itself changes nothing that was read');
  });

  it('a change between a read and its watch is seen (the stamps taken before each read)', async () => {
    const p = await make();
    const source = path.join(p.folder, '.vscode/mcp.json');
    let edits = 1;
    const request = { cwd: p.cwd, skills: false, tools: false, policyWithoutDeclaration: false } as const;
    // The computation edits the file it has just read, before any watch is set.
    const compute = async () => {
      const planned = await planSession(p.ports, request);
      if (edits-- > 0) editInPlace(source, (t) => t.replace('k.js', 'j.js'));
      return planned;
    };
    const first = await p.kept.get(p.cwd, compute);
    assert.deepEqual(blocked(first), []);
    p.kept.keeping();
    const after = await p.kept.get(p.cwd, compute);
    assert.equal(p.kept.computed, 2);
    assert.deepEqual(blocked(after), ['declaration-stale']);
  });

  it('another key (the session folder) is planned, not kept', async () => {
    const p = await make({ sub: true });
    const first = await p.step();
    const request = { cwd: p.folder, skills: false, tools: false, policyWithoutDeclaration: false } as const;
    const other = await p.kept.get(p.folder, () => planSession(p.ports, request));
    assert.equal(p.kept.computed, 2);
    assert.notEqual(other, first);
  });
});

describe('a kept skill gate result (the plugin\'s skill gate at each step)', function () {
  this.timeout(30000);

  /** The project of the skill tests (project, agents and user roots), gated as the plugin's skill gate does, kept and not. */
  async function skillsProject() {
    const p = skillProject();
    const ports = testPorts(p.home, { env: journaledEnv({ DSH_AGENTS_HOME: p.agentsHome }) });
    const dshPin = (await hashSkillRoot({ path: p.dsh, skipSystem: false }, nodeSkillFs)).pin!;
    await ports.store.trustSkillRoot(p.dsh, dshPin);
    const kept = new KeptWhileUnchanged<SkillGateResult>(ports.env);
    const roots = defaultSkillRoots(ports, []);
    const direct = () => gateSessionSkills(ports, { cwd: p.folder, roots });
    return { p, ports, kept, direct, step: () => kept.get(p.folder, direct) };
  }

  const trustOf = (r: SkillGateResult) => r.roots.map((root) => `${root.kind} ${root.gate}`);
  const shadowsOf = (r: SkillGateResult) => r.shadows.map((x) => `${x.name} from ${x.fallback?.root.path ?? '(none)'}`);
  const edits: Array<[string, (p: ReturnType<typeof skillProject>, ports: ReturnType<typeof testPorts>) => unknown]> = [
    ['a SKILL.md of a trusted root, edited in place', (p) => editInPlace(path.join(p.dsh, 'alpha/SKILL.md'), (t) => t.replace('alpha', 'alphz'))],
    ['a skill folder added to a trusted root', (p) => put(path.join(p.dsh, 'delta/SKILL.md'), skill('delta'))],
    ['a root trusted in the host store', async (p, ports) => ports.store.trustSkillRoot(p.agents, (await hashSkillRoot({ path: p.agents, skipSystem: false }, nodeSkillFs)).pin!)],
    ['the user root\'s skill that a withheld one falls back to, removed', (p) => rmSync(path.join(p.user, 'shared'), { recursive: true })],
  ];
  for (const [name, edit] of edits) {
    it(name, async () => {
      const k = await skillsProject();
      try {
        const first = await k.step();
        assert.equal(k.kept.keeping(), true);
        assert.equal(await k.step(), first);
        await edit(k.p, k.ports);
        const after = await k.step();
        assert.equal(k.kept.computed, 2);
        const direct = await k.direct();
        assert.equal(skillGateBasis(after), skillGateBasis(direct));
        assert.deepEqual([trustOf(after), shadowsOf(after)], [trustOf(direct), shadowsOf(direct)]);
        assert.notEqual(skillGateBasis(after) + shadowsOf(after).join(), skillGateBasis(first) + shadowsOf(first).join(), 'the edit changes what the session gets');
      } finally {
        k.kept.close();
        assert.equal(k.kept.keeping(), false);
      }
    });
  }
});

describe('a kept session plan where no time or event says a change', function () {
  before(function () {
    if (process.platform !== 'linux') this.skip(); // /proc and ulimit: Linux
  });

  it('a computation that read /proc (its bytes change, its times do not) is computed again when they changed', async () => {
    const kept = new KeptWhileUnchanged<string>({});
    // /proc/self/stat: the process's counters, new bytes at almost every read; its size says 0.
    const compute = async () => fs.readFile('/proc/self/stat', 'utf8');
    const first = await kept.get('k', compute);
    await new Promise((r) => setTimeout(r, 50));
    const second = await kept.get('k', compute);
    assert.notEqual(second, first, 'the bytes read again, not the kept ones');
    assert.equal(kept.computed, 2);
  });

  it('a computation whose read failed for a reason of the moment (EMFILE: out of descriptors) is computed again at the next step', function () {
    const fixture = path.join(__dirname, 'keptWhileUnchanged.transient.fixture.ts');
    const r = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" --import tsx "$1"', process.execPath, fixture], { encoding: 'utf8', cwd: path.resolve(__dirname, '../../../..'), timeout: 30000 });
    assert.equal(r.status, 0, r.stderr);
    const seen = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    assert.deepEqual(seen, { first: 'failed EMFILE', keeping: false, second: 'read {}', keepingAfter: true, third: 'read {}', computed: 2 });
  });
});
