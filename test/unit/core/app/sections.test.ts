import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DeclarationSchema } from '../../../../src/core/declaration/declarationModel';
import { HostStore } from '../../../../src/core/node/hostStore';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';
import { analyzeSections } from '../../../../src/core/app/sections';
import { lspSectionPinMatches } from '../../../../src/core/lsp/lspSection';
import { exportFolder, folderIdentityOf, testPorts } from '../../helpers';

const resolveCommand: CommandResolver = (command) => (command === 'tsserver' ? '/usr/bin/tsserver' : undefined);

describe('sections: analyzeSections on a real folder', () => {
  let dir: string;
  let folder: string;
  let dshHome: string;
  let agentsHome: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dsh-sections-'));
    folder = path.join(dir, 'repo');
    dshHome = path.join(dir, 'dsh-home');
    agentsHome = path.join(dir, 'agents-home');
    await mkdir(path.join(folder, '.git'), { recursive: true });
    await mkdir(path.join(folder, '.dsh/skills/review'), { recursive: true });
    await writeFile(path.join(folder, '.dsh/skills/review/SKILL.md'), '---\nname: review\ndescription: Reviews code.\n---\nBody\n');
    await writeFile(path.join(folder, '.dsh/skills/broken.md'), '---\nname: Broken\ndescription: x\n---\n');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const servers = {
    ts: { command: 'tsserver', extensions: { TS: 'typescript' }, args: ['--stdio'] },
  };
  /** The real ports with the agents home in the environment and a PATH that has only tsserver. */
  const ports = () => testPorts(dshHome, { env: { DSH_AGENTS_HOME: agentsHome }, resolveCommand });
  const sectionsOf = async (request: Omit<Parameters<typeof analyzeSections>[1], 'folder'> = {}) => (await analyzeSections(ports(), { folder, ...request })).sections;

  it('gives the normalized servers, registersAll and the pin; skills with trust state and pin', async () => {
    const sections = await sectionsOf({ lspServers: servers });
    assert.deepEqual(Object.keys(sections).sort(), ['lsp', 'skills']);
    assert.equal(sections.lsp!.registersAll, true);
    assert.deepEqual(sections.lsp!.servers.ts.extensionToLanguage, { '.ts': 'typescript' });
    assert.equal(sections.lsp!.servers.ts.maxMessageBytes, 16_000_000);
    assert.ok(lspSectionPinMatches(sections.lsp!));
    assert.ok(sections.skills && DeclarationSchema.shape.skills.safeParse(sections.skills).success);
    const roots = sections.skills!.roots;
    assert.equal(roots.length, 1, 'only existing roots are listed');
    assert.equal(roots[0].path, path.join(folder, '.dsh/skills'));
    assert.equal(roots[0].trust, 'untrusted');
    assert.match(roots[0].pin!, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(roots[0].skills, ['review'], 'the dropped skill is not listed');
  });

  it('an invalid entry: the section says DSH registers none and keeps only the valid entries', async () => {
    const analysis = await analyzeSections(ports(), {
      folder,
      lspServers: { ...servers, bad: { command: 'nope', extensions: { '.d.ts': 'typescript' } } },
    });
    assert.equal(analysis.sections.lsp!.registersAll, false);
    assert.deepEqual(Object.keys(analysis.sections.lsp!.servers), ['ts']);
    assert.deepEqual(analysis.lsp.problems.map((p) => p.code).sort(), ['lsp-command-not-found', 'lsp-invalid-extension', 'lsp-none-registered']);
  });

  it('no lsp section without the setting; trust recorded host-side turns the root trusted, a change turns it changed', async () => {
    const first = await sectionsOf();
    assert.equal(first.lsp, undefined);
    const root = first.skills!.roots[0];
    await new HostStore(dshHome).trustSkillRoot(root.path, root.pin!);
    const trusted = await sectionsOf();
    assert.equal(trusted.skills!.roots[0].trust, 'trusted');
    await writeFile(path.join(folder, '.dsh/skills/review/helper.sh'), 'echo changed\n');
    const changed = await sectionsOf();
    assert.equal(changed.skills!.roots[0].trust, 'changed');
    assert.notEqual(changed.skills!.roots[0].pin, root.pin);
  });

  it('custom roots resolve against the folder; user roots come from the DSH and agents homes', async () => {
    await mkdir(path.join(folder, 'my-skills/x'), { recursive: true });
    await writeFile(path.join(folder, 'my-skills/x/SKILL.md'), '---\nname: x\ndescription: d\n---\n');
    await mkdir(path.join(agentsHome, 'skills'), { recursive: true });
    await writeFile(path.join(agentsHome, 'skills/review.md'), '---\nname: review\ndescription: shadowed by the project\n---\n');
    const analysis = await analyzeSections(ports(), { folder, customSkillRoots: ['my-skills'] });
    assert.deepEqual(analysis.sections.skills!.roots.map((r) => [r.kind, r.path]), [
      ['project-dsh', path.join(folder, '.dsh/skills')],
      ['custom', path.join(folder, 'my-skills')],
      ['user-agents', path.join(agentsHome, 'skills')],
    ]);
    assert.ok(analysis.skills.problems.some((p) => p.code === 'skill-shadowed' && p.file === path.join(agentsHome, 'skills/review.md')));
  });

  it('the export hashes the sections into the digest (a changed section changes the declaration)', async () => {
    await mkdir(path.join(folder, '.vscode'), { recursive: true });
    await writeFile(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "node"}}}');
    const sections = await sectionsOf({ lspServers: servers });
    const a = JSON.parse((await exportFolder(ports(), folderIdentityOf(folder, { 'dsh.lsp.servers': servers }), { dryRun: true })).text!) as Record<string, unknown>;
    assert.deepEqual(a.lsp, sections.lsp);
    assert.deepEqual(a.skills, sections.skills);
    const b = JSON.parse((await exportFolder(ports(), folderIdentityOf(folder, { 'dsh.lsp.servers': { ts: { ...servers.ts, args: [] } } }), { dryRun: true })).text!) as Record<string, unknown>;
    assert.notEqual(a.digest, b.digest);
  });
});
