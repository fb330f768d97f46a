import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { declarationIgnoreFix, declarationIgnoreProblem, gitignoreDecision } from '../../../../src/core/mcp/ignoreRules';
import { applyQuickFix, covered, tempDir } from '../../helpers';

/**
 * git itself decides: each case is a folder `cN` of one repository with the case's `.gitignore`,
 * and `git check-ignore --no-index` says which `cN/<path>` it ignores (no other ignore file counts:
 * no global excludes, no info/exclude).
 */
function gitIgnores(cases: ReadonlyArray<{ text: string; path: string }>): boolean[] {
  const repo = tempDir('gitignore-oracle-');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  cases.forEach((c, i) => {
    mkdirSync(path.join(repo, `c${i}`));
    writeFileSync(path.join(repo, `c${i}`, '.gitignore'), c.text);
  });
  const r = spawnSync('git', ['-c', 'core.excludesFile=/dev/null', '-c', 'core.ignoreCase=false', 'check-ignore', '--no-index', '--stdin', '-z'], {
    cwd: repo, input: cases.map((c, i) => `c${i}/${c.path}\0`).join(''), encoding: 'utf8',
  });
  assert.ok(r.status === 0 || r.status === 1, `git check-ignore: ${r.stderr}`);
  const ignored = new Set(r.stdout.split('\0').filter(Boolean));
  return cases.map((c, i) => ignored.has(`c${i}/${c.path}`));
}

const TABLE = [
  'declaration.json', '/declaration.json', 'declaration.json/', '*.json', '*', '**', '**/declaration.json', '**/*.json', '*/declaration.json',
  '.dsh/declaration.json', 'declaration.json/**', 'decl*', 'declaration.[jx]son', 'declaration.[!j]son', 'declaration.[^x]son', 'declaration.js?n',
  '[[:alpha:]]eclaration.json', '[[:digit:]]eclaration.json', '[[:bogus:]]eclaration.json', '[[:alpha:]eclaration.json', 'Declaration.json',
  'declaration.json   ', 'declaration.json\\ ', 'declaration.json \\ ', '\\#declaration.json', '#declaration.json', '\\!declaration.json',
  '*\n!declaration.json', '*\n!declaration.json\ndeclaration.*', 'declaration.json\n!*.json', '!declaration.json\ndeclaration.json',
  'declaration.json\r\n', '\uFEFFdeclaration.json', '  declaration.json', 'declaration\\.json', 'd[a-f]claration.json', 'd[-e]claration.json',
  'd[]e]claration.json', 'd[!]]claration.json', '*.tmp\n.*.tmp', 'declaration.json\\', '[a-', 'declaration.json\n!/declaration.json', '!',
  '/', '**/', '/*', 'a/**/declaration.json', '**/**/declaration.json', '*.js*', '*.*', '?*.json', '*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*',
];

describe('.dsh/.gitignore read as git reads it', () => {
  it('agrees with git check-ignore on a table of patterns, for the declaration and the export\'s temp files', function () {
    this.timeout(20000);
    const cases = TABLE.flatMap((text) => ['declaration.json', '.declaration.json.1234-0123456789ab.tmp', 'declaration.schema.json'].map((p) => ({ text, path: p })));
    const git = gitIgnores(cases);
    const ours = cases.map((c) => gitignoreDecision(c.text, c.path).ignored);
    const differ = cases.flatMap((c, i) => (git[i] === ours[i] ? [] : [`${JSON.stringify(c.text)} ${c.path}: git says ${git[i] ? '' : 'not '}ignored`]));
    assert.deepEqual(differ, []);
    assert.ok(git.filter(Boolean).length > 20 && git.filter((x) => !x).length > 20, 'the table covers both answers');
  });

  it('agrees with git check-ignore on random patterns and names (fast-check)', function () {
    this.timeout(60000);
    const piece = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('*', '**', '?', 'declaration', '.json', 'declaration.json', '\n', '\n!') },
      { weight: 2, arbitrary: fc.constantFrom('/', '!', '\\', '#', ' ', '[', ']', '-', '^', ':', '[:alpha:]', '[!a]', '[a-e]', 'd', 'e', 'json', '.', 'a', '\r\n') },
    );
    const text = fc.array(piece, { maxLength: 10 }).map((p) => p.join(''));
    const name = fc.oneof(
      { weight: 4, arbitrary: fc.constant('declaration.json') },
      { weight: 1, arbitrary: fc.constantFrom('d', 'de.json', '.json', 'a-e', '!', '#x', 'x y', '[a]', 'a\\b', 'e') },
    );
    const cases = fc.sample(fc.record({ text, path: name }), { numRuns: 600, seed: 27 });
    const git = gitIgnores(cases);
    const differ = cases.flatMap((c, i) => (gitignoreDecision(c.text, c.path).ignored === git[i] ? [] : [`${JSON.stringify(c.text)} ${c.path}: git says ${git[i] ? '' : 'not '}ignored`]));
    assert.deepEqual(differ, []);
    assert.ok(git.filter(Boolean).length > 30, `only ${git.filter(Boolean).length} of ${cases.length} random cases are ignored`);
  });

  it('declaration-committable: on the line that re-includes the declaration, else at the start; none once it is ignored; the fix adds the rule last', () => {
    assert.equal(declarationIgnoreProblem('# machine-local\ndeclaration.json\n'), undefined);
    const negated = '*\n!declaration.json\r\n# the rest\n';
    const problem = declarationIgnoreProblem(negated)!;
    assert.equal(problem.code, 'declaration-committable');
    assert.equal(problem.file, '.dsh/.gitignore');
    assert.equal(problem.severity, 'warning');
    assert.equal(covered(negated, problem.range), '!declaration.json');
    assert.deepEqual(declarationIgnoreProblem('declaration.schema.json\n.*.tmp')!.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
    for (const text of ['', 'x', negated, 'a\r\nb', '!declaration.json']) {
      const fixed = applyQuickFix(text, declarationIgnoreFix(text));
      assert.ok(fixed.startsWith(text));
      assert.equal(declarationIgnoreProblem(fixed), undefined, JSON.stringify(fixed));
      assert.deepEqual(gitIgnores([{ text: fixed, path: 'declaration.json' }]), [true]);
    }
    assert.equal(applyQuickFix('a\r\nb', declarationIgnoreFix('a\r\nb')), 'a\r\nb\r\ndeclaration.json\r\n');
  });
});
