import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { skillTrustProblems } from '../../../../src/core/skills/skillTrustProblems';

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
