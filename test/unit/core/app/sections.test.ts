import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { exportFolder } from '../../../../src/core/app/export';
import { SkillsSectionSchema } from '../../../../src/core/declaration/declarationModel';
import { HostStore } from '../../../../src/core/node/hostStore';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';
import { analyzeSections, computeDeclarationSections, skillTrustProblems } from '../../../../src/core/app/sections';
import { lspSectionPinMatches } from '../../../../src/core/lsp/lspSection';

const resolveCommand: CommandResolver = (command) => (command === 'tsserver' ? '/usr/bin/tsserver' : undefined);

describe('sections: computeDeclarationSections on a real folder', () => {
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

  it('gives the normalized servers, registersAll and the pin; skills with trust state and pin', async () => {
    const sections = await computeDeclarationSections({ folder, dshHome, agentsHome, lspServers: servers, resolveCommand, env: {} });
    assert.deepEqual(Object.keys(sections).sort(), ['lsp', 'skills']);
    assert.equal(sections.lsp!.registersAll, true);
    assert.deepEqual(sections.lsp!.servers.ts.extensionToLanguage, { '.ts': 'typescript' });
    assert.equal(sections.lsp!.servers.ts.maxMessageBytes, 16_000_000);
    assert.ok(lspSectionPinMatches(sections.lsp!));
    assert.ok(SkillsSectionSchema.safeParse(sections.skills).success);
    const roots = sections.skills!.roots;
    assert.equal(roots.length, 1, 'only existing roots are listed');
    assert.equal(roots[0].path, path.join(folder, '.dsh/skills'));
    assert.equal(roots[0].trust, 'untrusted');
    assert.match(roots[0].pin!, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(roots[0].skills, ['review'], 'the dropped skill is not listed');
  });

  it('an invalid entry: the section says DSH registers none and keeps only the valid entries', async () => {
    const analysis = await analyzeSections({
      folder, dshHome, agentsHome, resolveCommand, env: {},
      lspServers: { ...servers, bad: { command: 'nope', extensions: { '.d.ts': 'typescript' } } },
    });
    assert.equal(analysis.sections.lsp!.registersAll, false);
    assert.deepEqual(Object.keys(analysis.sections.lsp!.servers), ['ts']);
    assert.deepEqual(analysis.lsp.problems.map((p) => p.code).sort(), ['lsp-command-not-found', 'lsp-invalid-extension', 'lsp-none-registered']);
  });

  it('no lsp section without the setting; trust recorded host-side turns the root trusted, a change turns it changed', async () => {
    const first = await computeDeclarationSections({ folder, dshHome, agentsHome, env: {} });
    assert.equal(first.lsp, undefined);
    const root = first.skills!.roots[0];
    await new HostStore(dshHome).trustSkillRoot(root.path, root.pin!);
    const trusted = await computeDeclarationSections({ folder, dshHome, agentsHome, env: {} });
    assert.equal(trusted.skills!.roots[0].trust, 'trusted');
    await writeFile(path.join(folder, '.dsh/skills/review/helper.sh'), 'echo changed\n');
    const changed = await computeDeclarationSections({ folder, dshHome, agentsHome, env: {} });
    assert.equal(changed.skills!.roots[0].trust, 'changed');
    assert.notEqual(changed.skills!.roots[0].pin, root.pin);
  });

  it('custom roots resolve against the folder; user roots come from the DSH and agents homes', async () => {
    await mkdir(path.join(folder, 'my-skills/x'), { recursive: true });
    await writeFile(path.join(folder, 'my-skills/x/SKILL.md'), '---\nname: x\ndescription: d\n---\n');
    await mkdir(path.join(agentsHome, 'skills'), { recursive: true });
    await writeFile(path.join(agentsHome, 'skills/review.md'), '---\nname: review\ndescription: shadowed by the project\n---\n');
    const analysis = await analyzeSections({ folder, dshHome, agentsHome, customSkillRoots: ['my-skills'], env: {} });
    assert.deepEqual(analysis.sections.skills!.roots.map((r) => [r.kind, r.path]), [
      ['project-dsh', path.join(folder, '.dsh/skills')],
      ['custom', path.join(folder, 'my-skills')],
      ['user-agents', path.join(agentsHome, 'skills')],
    ]);
    assert.ok(analysis.skills.problems.some((p) => p.code === 'skill-shadowed' && p.file === path.join(agentsHome, 'skills/review.md')));
  });

  it('exportFolder hashes the sections into the digest (a changed section changes the declaration)', async () => {
    await mkdir(path.join(folder, '.vscode'), { recursive: true });
    await writeFile(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "node"}}}');
    const sections = await computeDeclarationSections({ folder, dshHome, agentsHome, lspServers: servers, resolveCommand, env: {} });
    const base = { folder, folderName: 'repo', userHome: dir, dshHome, dryRun: true };
    const a = JSON.parse((await exportFolder({ ...base, sections: { ...sections } })).text!) as Record<string, unknown>;
    assert.deepEqual(a.lsp, sections.lsp);
    assert.deepEqual(a.skills, sections.skills);
    const other = await computeDeclarationSections({ folder, dshHome, agentsHome, lspServers: { ts: { ...servers.ts, args: [] } }, resolveCommand, env: {} });
    const b = JSON.parse((await exportFolder({ ...base, sections: { ...other } })).text!) as Record<string, unknown>;
    assert.notEqual(a.digest, b.digest);
  });
});

describe('sections: skillTrustProblems', () => {
  const candidate = (file: string) => ({ file, entry: path.basename(file), analysis: { kept: true, nameRange: { start: { line: 1, character: 6 }, end: { line: 1, character: 9 } }, problems: [] } });
  const root = (p: string, pin: string | undefined, files: string[], extra: Record<string, unknown> = {}) => ({
    path: p, kind: 'project-dsh' as const, rank: 100, skipSystem: false, exists: true, pin, candidates: files.map(candidate), ...extra,
  }) as unknown as import('../../../../src/core/skills/discovery').SkillRootReport;

  it('flags every skill file of a trusted root whose pin changed, on its name; nothing for trusted or untrusted roots', () => {
    const discovery = { roots: [root('/a', 'sha256:new', ['/a/x/SKILL.md', '/a/y.md']), root('/b', 'sha256:b', ['/b/z/SKILL.md']), root('/c', 'sha256:c', ['/c/w.md'])] };
    const problems = skillTrustProblems(discovery, { '/a': 'sha256:old', '/b': 'sha256:b' });
    assert.deepEqual(problems.map((p) => [p.code, p.file, p.severity]), [
      ['skill-root-changed', '/a/x/SKILL.md', 'warning'],
      ['skill-root-changed', '/a/y.md', 'warning'],
    ]);
    assert.equal(problems[0].range.start.character, 6);
    assert.ok(problems[0].message.includes('/a'));
  });

  it('a root too large to pin is flagged as such, whether or not it was trusted', () => {
    const discovery = { roots: [root('/big', undefined, ['/big/s.md'], { tooLarge: true })] };
    assert.deepEqual(skillTrustProblems(discovery, {}).map((p) => p.code), ['skill-root-too-large']);
    assert.deepEqual(skillTrustProblems(discovery, { '/big': 'sha256:x' }).map((p) => p.code), ['skill-root-too-large']);
  });
});
