import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeSkillText } from '../../src/core/skills/frontMatter';
import { discoverSkills, type SkillDiscovery } from '../../src/core/skills/discovery';
import { findProjectRoot } from '../../src/core/skills/projectRoot';
import { hashSkillRoot } from '../../src/core/skills/rootPins';
import { dshSkillRoots, resolveAgentsHome } from '../../src/core/skills/skillRoots';
import { skillTrustState, skillsDeclarationSection } from '../../src/core/skills/rootTrust';
import { nodeSkillFs } from '../../src/core/node/skillFs';
import { SKILL_PROBLEM_CODES } from '../../src/core/skills/skillCodes';
import { resolveDshHome } from '../../src/core/node/hostStore';
import type { Range } from '../../src/core/json/text';
import { makeSkillFixture, type SkillFixture } from './skills.fixture';

/** The text a range covers (ranges count UTF-16 units per line; lines end at \n, \r\n or \r). */
function textAt(text: string, range: Range): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (range.start.line === range.end.line) return lines[range.start.line].slice(range.start.character, range.end.character);
  return [lines[range.start.line].slice(range.start.character), ...lines.slice(range.start.line + 1, range.end.line), lines[range.end.line].slice(0, range.end.character)].join('\n');
}

describe('skills: analyzeSkillText (DSH front matter rules)', () => {
  type Case = { name: string; text: string; file?: string; codes: string[]; at?: string[]; kept: boolean };
  const fm = (...lines: string[]) => ['---', ...lines, '---', 'Body.', ''].join('\n');
  const cases: Case[] = [
    { name: 'valid', text: fm('name: my-skill', 'description: Does it.'), codes: [], kept: true },
    { name: 'invalid name', text: fm('name: My_Skill', 'description: d'), codes: ['skill-invalid-name'], at: ['My_Skill'], kept: false },
    { name: 'double hyphen', text: fm('name: a--b', 'description: d'), codes: ['skill-invalid-name'], at: ['a--b'], kept: false },
    { name: 'no name: flagged on the opening line', text: fm('description: d'), codes: ['skill-missing-name'], at: ['---'], kept: false },
    { name: 'numeric name is no name', text: fm('name: 42', 'description: d'), codes: ['skill-missing-name'], at: ['42'], kept: false },
    { name: 'empty description', text: fm('name: x', "description: ''"), codes: ['skill-missing-description'], at: ["''"], kept: false },
    { name: 'no description', text: fm('name: x'), codes: ['skill-missing-description'], at: ['---'], kept: false },
    { name: 'camelCase keys, each reported', text: fm('name: x', 'description: d', 'userInvocable: false', 'disableModelInvocation: true'),
      codes: ['skill-camelcase-key', 'skill-camelcase-key'], at: ['disableModelInvocation', 'userInvocable'], kept: false },
    { name: 'flag spellings accepted', text: fm('name: x', 'description: d', 'disable-model-invocation: ON', "user-invocable: '0'"), codes: [], kept: true },
    { name: 'flag not a boolean', text: fm('name: x', 'description: d', 'user-invocable: maybe'), codes: ['skill-invalid-flag'], at: ['maybe'], kept: false },
    { name: 'empty flag is null', text: fm('name: x', 'description: d', 'disable-model-invocation:'), codes: ['skill-invalid-flag'], at: ['disable-model-invocation'], kept: false },
    { name: 'ignored fields warn but keep', text: fm('name: x', 'description: d', 'whenToUse: 5', 'metadata: [1]'),
      codes: ['skill-ignored-field', 'skill-ignored-field'], at: ['5', '[1]'], kept: true },
    { name: 'duplicate keys are invalid YAML', text: fm('name: x', 'name: y', 'description: d'), codes: ['skill-invalid-yaml'], kept: false },
    { name: 'broken YAML', text: fm('name: [x', 'description: d'), codes: ['skill-invalid-yaml'], kept: false },
    { name: 'front matter that is a list', text: fm('- a'), codes: ['skill-missing-front-matter'], kept: false },
    { name: 'unclosed', text: '---\nname: x\ndescription: d\n', codes: ['skill-missing-front-matter'], kept: false },
    { name: 'BOM', text: `\uFEFF${fm('name: x', 'description: d')}`, codes: ['skill-missing-front-matter'], kept: false },
    { name: 'a flat .md without front matter is only a warning', text: '# Notes\n', file: '/r/README.md', codes: ['skill-not-a-skill'], kept: false },
    { name: 'a SKILL.md without front matter is an error', text: '# Notes\n', codes: ['skill-missing-front-matter'], kept: false },
    { name: 'several problems at once', text: fm('name: Bad', 'user-invocable: 2'), codes: ['skill-invalid-name', 'skill-missing-description', 'skill-invalid-flag'], kept: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const file = c.file ?? '/r/skill/SKILL.md';
      const result = analyzeSkillText(c.text, file);
      assert.deepEqual(result.problems.map((p) => p.code), c.codes);
      assert.equal(result.kept, c.kept);
      assert.equal(result.skill !== undefined, c.kept);
      if (c.at) assert.deepEqual(result.problems.map((p) => textAt(c.text, p.range)), c.at);
      for (const p of result.problems) {
        assert.equal(p.file, file);
        assert.equal(p.severity, SKILL_PROBLEM_CODES[p.code as keyof typeof SKILL_PROBLEM_CODES][0]);
        assert.ok(!/\{\w+\}/.test(p.message), p.message);
      }
    });
  }

  it('reads fields and invocation as DSH does, with CRLF line ends and exact ranges', () => {
    const text = '---\r\nname: Bad-Name\r\ndescription: d\r\n---\r\n';
    const [p] = analyzeSkillText(text, '/r/x/SKILL.md').problems;
    assert.deepEqual(p.range, { start: { line: 1, character: 6 }, end: { line: 1, character: 14 } });
    const ok = analyzeSkillText('---\r\nname: ok\r\ndescription: |\r\n  two\r\n  lines\r\nwhenToUse: Later.\r\nmetadata: {a: 1}\r\nuser-invocable: "No"\r\n---\r\n', '/r/ok/SKILL.md');
    assert.deepEqual(ok.skill, { name: 'ok', description: 'two\nlines\n', whenToUse: 'Later.', metadata: { a: 1 }, invocation: { modelInvocable: true, userInvocable: false } });
  });

  it('points a YAML error at its position', () => {
    const text = '---\nname: x\n  bad: indent\ndescription: d\n---\n';
    const [p] = analyzeSkillText(text, '/r/x/SKILL.md').problems;
    assert.equal(p.code, 'skill-invalid-yaml');
    assert.ok(p.range.start.line >= 1 && p.range.start.line <= 3, JSON.stringify(p.range));
  });

  it('the invocation flags read as DSH reads them: YAML booleans, 1/0 and true/false/yes/no/on/off in any case; anything else drops the skill', () => {
    const table: Array<[string, boolean | null]> = [
      ['true', true], ['false', false], ['1', true], ['0', false], ['"1"', true], ['"0"', false], ['"TRUE"', true], ['Yes', true], ['oN', true],
      ['"False"', false], ['NO', false], ['off', false], ['y', null], ['2', null], ['null', null], ['""', null], ['[true]', null], ['"true "', null],
    ];
    for (const [yaml, value] of table) {
      for (const key of ['disable-model-invocation', 'user-invocable']) {
        const a = analyzeSkillText(`---\nname: s\ndescription: d\n${key}: ${yaml}\n---\n`, '/r/s/SKILL.md');
        if (value === null) {
          assert.deepEqual([a.kept, a.problems.map((p) => p.code)], [false, ['skill-invalid-flag']], `${key}: ${yaml}`);
        } else {
          const invocation = a.skill?.invocation;
          assert.equal(key === 'user-invocable' ? invocation?.userInvocable : !invocation?.modelInvocable, value, `${key}: ${yaml}`);
        }
      }
    }
  });

  it('property: never throws; kept exactly when there is no error; ranges stay inside the text', () => {
    const piece = fc.constantFrom('---', 'name: a', 'name: B', 'description: d', 'user-invocable: x', 'userInvocable: 1', ': :', '[', '\t', '', '\r', 'ü', '...');
    fc.assert(fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), (parts, eol) => {
      const text = parts.join(eol);
      const result = analyzeSkillText(text, '/r/s/SKILL.md');
      assert.equal(result.kept, !result.problems.some((p) => p.severity === 'error'));
      assert.equal(result.kept, result.skill !== undefined);
      const lines = text.split(/\r\n|\r|\n/);
      for (const p of result.problems) {
        assert.ok(p.range.end.line < lines.length);
        assert.ok(p.range.end.character <= lines[p.range.end.line].length);
      }
    }), { numRuns: 300 });
  });
});

describe('skills: homes and roots', () => {
  it('resolveDshHome: explicit, then $DSH_HOME (blank = unset), then ~/.dsh; ~ expanded', () => {
    assert.equal(resolveDshHome('/x/home', { DSH_HOME: '/env' }, '/u'), '/x/home');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '/env' }, '/u'), '/env');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '  ' }, '/u'), '/u/.dsh');
    assert.equal(resolveDshHome(undefined, {}, '/u'), '/u/.dsh');
    assert.equal(resolveDshHome('~/d', {}, '/u'), '/u/d');
  });

  it('resolveAgentsHome: $DSH_AGENTS_HOME or ~/.agents', () => {
    assert.equal(resolveAgentsHome({ DSH_AGENTS_HOME: '/a' }, '/u', '/anywhere'), '/a');
    assert.equal(resolveAgentsHome({}, '/u', '/anywhere'), '/u/.agents');
    assert.equal(resolveAgentsHome({ DSH_AGENTS_HOME: 'rel' }, '/u', '/base'), '/base/rel');
  });

  it('finds the nearest ancestor with .git, else the cwd; lists roots in DSH order and ranks', async () => {
    const exists = async (p: string) => p === '/w/repo/.git' || p === '/w/.git';
    const fs = { exists };
    assert.equal(await findProjectRoot('/w/repo/a/b', fs), '/w/repo');
    assert.equal(await findProjectRoot('/elsewhere/x', fs), '/elsewhere/x');
    const { projectRoot, roots } = await dshSkillRoots({ cwd: '/w/repo/a', customRoots: ['../shared', '/abs'], dshHome: '/h/.dsh', agentsHome: '/h/.agents' }, fs);
    assert.equal(projectRoot, '/w/repo');
    assert.deepEqual(roots.map((r) => [r.path, r.kind, r.rank, r.skipSystem]), [
      ['/w/repo/.dsh/skills', 'project-dsh', 100, false],
      ['/w/repo/.agents/skills', 'project-agents', 200, false],
      ['/w/repo/shared', 'custom', 300, false],
      ['/abs', 'custom', 300, false],
      ['/h/.dsh/skills', 'user-dsh', 400, true],
      ['/h/.agents/skills', 'user-agents', 500, false],
    ]);
  });
});

describe('skills: discoverSkills on the fixture tree', () => {
  let fx: SkillFixture;
  let d: SkillDiscovery;
  before(async () => {
    fx = await makeSkillFixture();
    d = await discoverSkills({ cwd: fx.cwd, customRoots: fx.customRoots, dshHome: fx.dshHome, agentsHome: fx.agentsHome }, nodeSkillFs);
  });
  after(() => rm(fx.dir, { recursive: true, force: true }));
  const rel = (p: string) => path.relative(fx.dir, p);

  it('walks up to the project root and reports every root', () => {
    assert.equal(d.projectRoot, fx.projectRoot);
    assert.deepEqual(d.roots.map((r) => [rel(r.path), r.rank, r.exists]), [
      ['project/.dsh/skills', 100, true], ['project/.agents/skills', 200, true], ['custom-a', 300, true],
      ['custom-b', 300, true], ['dsh-home/skills', 400, true], ['agents-home/skills', 500, true],
    ]);
  });

  it('winners by rank, then discovery order (localeCompare within a root)', () => {
    const winners = Object.fromEntries(d.winners.map((w) => [w.analysis.skill!.name, rel(w.file)]));
    assert.equal(winners.shared, 'project/.dsh/skills/shared/SKILL.md');
    assert.equal(winners.gamma, 'project/.agents/skills/gamma/SKILL.md');
    assert.equal(winners.delta, 'custom-a/delta.md');
    assert.equal(winners.epsilon, 'dsh-home/skills/epsilon/SKILL.md');
    assert.equal(winners['same-root'], 'project/.dsh/skills/dupe-a.md');
    assert.equal(winners['order-test'], 'project/.dsh/skills/a-lower.md');
    assert.equal(winners.crlf, 'project/.dsh/skills/crlf/SKILL.md');
    // A project root's links out of it are not followed (a repository can commit them): refused with a problem.
    assert.equal(winners.linked, undefined);
    assert.equal(winners['linked-file'], undefined);
    const refused = d.problems.filter((p) => p.code === 'skill-unreadable').map((p) => rel(p.file)).sort();
    assert.deepEqual(refused, ['project/.dsh/skills/linked-file.md', 'project/.dsh/skills/linked/SKILL.md']);
    assert.equal(winners['agents-system'], 'agents-home/skills/.system/SKILL.md');
    assert.equal(winners['system-skill'], undefined, '.system is skipped under the DSH home');
    assert.equal(winners.nested, undefined, 'skills are one level deep');
    assert.equal(winners['upper-ext'], undefined, '.MD is not .md');
    const names = d.winners.map((w) => w.analysis.skill!.name);
    assert.deepEqual(names, [...names].sort());
  });

  it('a shadowed skill gets a warning with related information at the winner', () => {
    const shadowed = d.problems.filter((p) => p.code === 'skill-shadowed' && p.args.name === 'shared');
    assert.deepEqual(shadowed.map((p) => rel(p.file)), ['project/.agents/skills/shared/SKILL.md', 'custom-a/shared/SKILL.md']);
    for (const p of shadowed) {
      assert.equal(p.related?.[0].file, path.join(fx.projectRoot, '.dsh/skills/shared/SKILL.md'));
      assert.deepEqual(p.related?.[0].range, { start: { line: 1, character: 6 }, end: { line: 1, character: 12 } });
      assert.deepEqual(p.range, { start: { line: 1, character: 6 }, end: { line: 1, character: 12 } });
      assert.equal(p.args.winnerRank, 100);
    }
  });

  it('every dropped file has an error, at the offending node', () => {
    const byFile = (suffix: string) => d.problems.filter((p) => p.file.endsWith(suffix)).map((p) => p.code);
    assert.deepEqual(byFile('Bad-Name/SKILL.md'), ['skill-invalid-name']);
    assert.deepEqual(byFile('camel/SKILL.md'), ['skill-camelcase-key']);
    assert.deepEqual(byFile('flags-null/SKILL.md'), ['skill-invalid-flag']);
    assert.deepEqual(byFile('bom/SKILL.md'), ['skill-missing-front-matter']);
    assert.deepEqual(byFile('skills/README.md'), ['skill-not-a-skill']);
    assert.deepEqual(byFile('crlf-bad/SKILL.md'), ['skill-invalid-name']);
    assert.deepEqual(byFile('when/SKILL.md'), ['skill-ignored-field', 'skill-ignored-field']);
  });

  it('pins each existing root', () => {
    for (const r of d.roots) assert.match(r.pin ?? '', /^sha256:[0-9a-f]{64}$/);
  });
});

describe('skills: content pins and trust', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(path.join(tmpdir(), 'dsh-pin-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const put = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  };
  const pin = async (root = 'root', skipSystem = false) => (await hashSkillRoot({ path: path.join(dir, root), skipSystem }, nodeSkillFs)).pin;

  it('follows the documented algorithm', async () => {
    await put('root/b/SKILL.md', 'B');
    await put('root/a.md', 'AA');
    await put('root/b/scripts/run.sh', 'echo');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const expected = createHash('sha256')
      .update('dsh-bridge skill-root v1\n')
      .update(`a.md\0${2}\0${sha('AA')}\n`)
      .update(`b/SKILL.md\0${1}\0${sha('B')}\n`)
      .update(`b/scripts/run.sh\0${4}\0${sha('echo')}\n`)
      .digest('hex');
    assert.equal(await pin(), `sha256:${expected}`);
  });

  it('is deterministic across folders and creation order, and changes with any file', async () => {
    await put('root/x/SKILL.md', '---\nname: x\n---\n');
    await put('root/x/ref.md', 'ref');
    await put('other/x/ref.md', 'ref');
    await put('other/x/SKILL.md', '---\nname: x\n---\n');
    const first = await pin();
    assert.equal(first, await pin('other'));
    await mkdir(path.join(dir, 'root/empty'));
    assert.equal(await pin(), first, 'an empty directory changes nothing');
    await put('root/x/ref.md', 'ref2');
    const second = await pin();
    assert.notEqual(second, first);
    await put('root/x/new.txt', '');
    assert.notEqual(await pin(), second, 'a new file, even empty, changes the pin');
  });

  it('skips .system only for the DSH home root; survives link cycles; no pin for a missing root', async () => {
    await put('root/s/SKILL.md', 's');
    const base = await pin('root', true);
    await put('root/.system/x/SKILL.md', 'sys');
    assert.equal(await pin('root', true), base);
    assert.notEqual(await pin('root', false), base);
    await symlink(path.join(dir, 'root'), path.join(dir, 'root/s/loop'));
    assert.match((await pin('root', true)) ?? '', /^sha256:/);
    assert.deepEqual(await hashSkillRoot({ path: path.join(dir, 'missing'), skipSystem: false }, nodeSkillFs), { files: 0, bytes: 0 });
  });

  it('refuses to pin a root over the limits', async () => {
    await put('root/a.md', 'a');
    await put('root/b.md', 'b');
    const content = await hashSkillRoot({ path: path.join(dir, 'root'), skipSystem: false }, nodeSkillFs, { maxFiles: 1 });
    assert.equal(content.pin, undefined);
    assert.equal(content.tooLarge, true);
  });

  it('trust states from recorded pins, and the declaration section', async () => {
    assert.equal(skillTrustState('sha256:1', undefined), 'untrusted');
    assert.equal(skillTrustState('sha256:1', 'sha256:1'), 'trusted');
    assert.equal(skillTrustState('sha256:2', 'sha256:1'), 'changed');
    assert.equal(skillTrustState(undefined, 'sha256:1'), 'changed');

    await put('p/.git/HEAD', '');
    await put('p/.dsh/skills/one/SKILL.md', '---\nname: one\ndescription: d\n---\n');
    await put('p/.dsh/skills/bad.md', '---\nname: Bad\ndescription: d\n---\n');
    const options = { cwd: path.join(dir, 'p'), dshHome: path.join(dir, 'h'), agentsHome: path.join(dir, 'g') };
    const before = await discoverSkills(options, nodeSkillFs);
    const root = path.join(dir, 'p/.dsh/skills');
    const untrusted = skillsDeclarationSection(before, {});
    assert.deepEqual(untrusted.roots.map((r) => [r.path, r.kind, r.rank, r.trust, r.skills]), [[root, 'project-dsh', 100, 'untrusted', ['one']]]);
    const recorded = { [root]: untrusted.roots[0].pin! };
    assert.equal(skillsDeclarationSection(before, recorded).roots[0].trust, 'trusted');
    await put('p/.dsh/skills/one/SKILL.md', '---\nname: one\ndescription: changed by an agent\n---\n');
    assert.equal(skillsDeclarationSection(await discoverSkills(options, nodeSkillFs), recorded).roots[0].trust, 'changed');
  });
});
