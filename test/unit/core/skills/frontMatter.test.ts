import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeSkillText } from '../../../../src/core/skills/frontMatter';
import { SKILL_PROBLEM_CODES } from '../../../../src/core/skills/skillCodes';
import type { Range } from '../../../../src/core/json/text';

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
