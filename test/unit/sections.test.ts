import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { canonicalHash } from '../../src/core/json/canonicalJson';
import { LspSectionSchema, SkillsSectionSchema } from '../../src/core/declaration/declarationModel';
import { HostStore } from '../../src/core/node/hostStore';
import type { CommandResolver } from '../../src/core/lsp/lsp';
import { analyzeSections } from '../../src/core/app/sections';
import { skillTrustProblems } from '../../src/core/skills/skillTrustProblems';
import { lspConfigured, lspDeclarationSection, lspSectionPinMatches } from '../../src/core/lsp/lspSection';
import { exportFolder, folderIdentityOf, testPorts } from './helpers';
import { definingLayer, hasPath, mergeSettingLayers, settingValueInText } from '../../src/core/settings/settingLayers';

const resolveCommand: CommandResolver = (command) => (command === 'tsserver' ? '/usr/bin/tsserver' : undefined);

describe('sections: settings layers (VS Code object-setting merge)', () => {
  it('merges objects key by key, recursively; later layers win; arrays and scalars replace', () => {
    const user = { ts: { command: 'tsserver', args: ['--stdio'], extensions: { '.ts': 'typescript' } }, py: { command: 'pylsp' } };
    const workspace = { ts: { args: ['--x'], extensions: { '.tsx': 'typescriptreact' } } };
    const folder = { py: 'off' };
    assert.deepEqual(mergeSettingLayers([{}, user, workspace, folder]), {
      ts: { command: 'tsserver', args: ['--x'], extensions: { '.ts': 'typescript', '.tsx': 'typescriptreact' } },
      py: 'off',
    });
  });

  it('skips undefined layers, never aliases its inputs, and keeps a __proto__ key as data', () => {
    const user = { a: { b: 1 } };
    const merged = mergeSettingLayers([undefined, user, undefined]) as { a: { b: number } };
    assert.deepEqual(merged, { a: { b: 1 } });
    merged.a.b = 2;
    assert.equal(user.a.b, 1);
    assert.equal(mergeSettingLayers([undefined, undefined]), undefined);
    const evil = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const out = mergeSettingLayers([{}, evil]) as Record<string, unknown>;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('a non-object layer replaces, and an object after it starts afresh', () => {
    assert.equal(mergeSettingLayers([{ a: 1 }, 'x']), 'x');
    assert.deepEqual(mergeSettingLayers(['x', { a: 1 }]), { a: 1 });
  });

  it('property: merging one layer is a deep copy of it', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      assert.deepEqual(mergeSettingLayers([value]), value);
    }));
  });

  it('definingLayer: the highest layer that has the exact path', () => {
    const layers = [{}, { ts: { command: 'a', extensions: { '.ts': 't' } } }, { ts: { command: 'b' } }, undefined];
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts', 'command']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts', 'extensions', '.ts']), 1);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'py']), undefined);
    assert.equal(hasPath({ a: [1, 2] }, ['a', 1]), true);
    assert.equal(hasPath({ a: [1, 2] }, ['a', 2]), false);
    assert.equal(hasPath({ a: 1 }, ['toString']), false);
  });
});

describe('sections: settingValueInText (Restricted Mode reads the file itself)', () => {
  it('reads the last property of the setting, with comments and trailing commas, from settings.json and .code-workspace', () => {
    const settings = '{\n  // c\n  "dsh.lsp.servers": {"a": {}},\n  "dsh.lsp.servers": {"b": {"command": "x",},},\n}';
    assert.deepEqual(settingValueInText(settings, 'settings', 'dsh.lsp.servers'), { b: { command: 'x' } });
    const workspace = '{"folders": [], "settings": {"dsh.lsp.servers": {"c": {"args": ["-v"]}}}}';
    assert.deepEqual(settingValueInText(workspace, 'code-workspace', 'dsh.lsp.servers'), { c: { args: ['-v'] } });
    assert.equal(settingValueInText(workspace, 'settings', 'dsh.lsp.servers'), undefined);
    assert.equal(settingValueInText('{', 'settings', 'dsh.lsp.servers'), undefined);
    assert.equal(settingValueInText('[]', 'settings', 'dsh.lsp.servers'), undefined);
  });
});

describe('sections: the lsp section', () => {
  it('is configured only for a non-empty value', () => {
    assert.equal(lspConfigured(undefined), false);
    assert.equal(lspConfigured(null), false);
    assert.equal(lspConfigured({}), false);
    assert.equal(lspConfigured({ a: {} }), true);
    assert.equal(lspConfigured('x'), true);
  });

  it('pins {servers, registersAll} with the canonical hash, and the check sees any change', () => {
    const section = lspDeclarationSection({ servers: {}, registersAll: false });
    assert.equal(section.pin, canonicalHash({ servers: {}, registersAll: false }));
    assert.ok(lspSectionPinMatches(section));
    assert.ok(!lspSectionPinMatches({ ...section, registersAll: true }));
    assert.ok(!lspSectionPinMatches({ ...section, pin: 'sha256:00' }));
    assert.ok(LspSectionSchema.safeParse(section).success, 'the section is what the model types');
    assert.ok(!LspSectionSchema.safeParse(null).success);
    assert.ok(!LspSectionSchema.safeParse([section]).success);
    assert.ok(!LspSectionSchema.safeParse({ ...section, extra: 1 }).success, 'no field outside the model');
  });
});

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
    assert.ok(SkillsSectionSchema.safeParse(sections.skills).success);
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

describe('sections: skillTrustProblems', () => {
  const candidate = (file: string) => ({ file, entry: path.basename(file), analysis: { kept: true, nameRange: { start: { line: 1, character: 6 }, end: { line: 1, character: 9 } }, problems: [] } });
  const root = (p: string, pin: string | undefined, files: string[], extra: Record<string, unknown> = {}) => ({
    path: p, kind: 'project-dsh' as const, rank: 100, skipSystem: false, exists: true, pin, candidates: files.map(candidate), ...extra,
  }) as unknown as import('../../src/core/skills/skills').SkillRootReport;

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

describe('sections: no LSP secret is copied into the workspace', () => {
  it('credential-named env values become references to the DSH environment', () => {
    const section = lspDeclarationSection({
      registersAll: true,
      servers: { ts: { command: '/usr/bin/tsserver', args: [], env: { API_TOKEN: 'canary-lsp-1', LOG_LEVEL: 'info' }, extensionToLanguage: { '.ts': 'typescript' } } as never },
    });
    assert.deepEqual(section.servers.ts.env, { API_TOKEN: [{ env: 'API_TOKEN' }], LOG_LEVEL: 'info' });
    assert.ok(!JSON.stringify(section).includes('canary-lsp-1'));
    assert.ok(lspSectionPinMatches(section));
  });
});
