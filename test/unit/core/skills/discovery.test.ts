import * as assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { discoverSkills, type SkillDiscovery } from '../../../../src/core/skills/discovery';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';
import { makeSkillFixture, type SkillFixture } from './skills.fixture';

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
