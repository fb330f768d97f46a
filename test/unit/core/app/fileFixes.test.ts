import { strict as assert } from 'node:assert';
import * as os from 'node:os';
import { declarationIgnoreFixes, sourceProblemFixable, sourceProblemFixes, toolChoiceProblemFixable, toolChoiceProblemFixes } from '../../../../src/core/app/fileFixes';
import { analyzeFolder } from '../../../../src/core/app/folderSources';
import { checkToolChoiceLayers } from '../../../../src/core/app/toolChoiceSetting';
import { VSCODE_SOURCE } from '../../../../src/core/mcp/sources';
import { applyQuickFix, FILE_PORTS, workspace } from '../../helpers';

const SSE = '{\n  // remote\n  "servers": { "r": { "type": "sse", "url": "https://x.example/sse" } }\n}\n';
const OPTIONS = { folder: os.tmpdir(), folderName: 'w', userHome: os.homedir() };

describe('fileFixes: the quick fixes of a file\'s problems', () => {
  it('fixes a shown MCP source problem from the folder\'s analysis, or from the text when the analysis did not see it', async () => {
    const folder = workspace(SSE);
    const analysis = await analyzeFolder(FILE_PORTS, { ...OPTIONS, folder });
    const problem = analysis.problems.find((p) => p.code === 'unsupported-transport')!;
    assert.ok(sourceProblemFixable(problem.code));
    assert.equal(sourceProblemFixable('secret-in-args'), false);
    const shown = { code: problem.code, range: problem.range };
    const [fixes] = sourceProblemFixes(SSE, VSCODE_SOURCE, { ...OPTIONS, folder }, analysis.problems, [shown]);
    assert.deepEqual(fixes.map((f) => f.id), ['sse-to-http']);
    assert.match(applyQuickFix(SSE, fixes[0]), /"type": "http"[\s\S]*\/\/ remote|\/\/ remote[\s\S]*"type": "http"/);
    // The text moved down a line since that analysis: the cache does not know the shown problem, the text decides.
    const moved = `\n${SSE}`;
    const [again] = sourceProblemFixes(moved, VSCODE_SOURCE, { ...OPTIONS, folder }, analysis.problems, [{ ...shown, range: { start: { ...shown.range.start, line: shown.range.start.line + 1 }, end: { ...shown.range.end, line: shown.range.end.line + 1 } } }]);
    assert.deepEqual(again.map((f) => f.id), ['sse-to-http']);
    // A shown problem the text no longer has: no fix.
    assert.deepEqual(sourceProblemFixes('{"servers": {}}', VSCODE_SOURCE, { ...OPTIONS, folder }, undefined, [shown]), [[]]);
  });

  it('adds the declaration\'s ignore rule once: none when the text ignores it already', () => {
    const [fix] = declarationIgnoreFixes('*.tmp\n');
    assert.equal(applyQuickFix('*.tmp\n', fix), '*.tmp\ndeclaration.json\n');
    assert.deepEqual(declarationIgnoreFixes('*.tmp\ndeclaration.json\n'), []);
  });

  it('fixes a dsh.tools problem in a settings file or a .code-workspace, as the check placed it', () => {
    for (const [name, text] of [
      ['/w/.vscode/settings.json', '{ "dsh.tools": { "a": { "onyl": ["x"] } } }'],
      ['/w/team.code-workspace', '{ "folders": [], "settings": { "dsh.tools": { "a": { "onyl": ["x"] } } } }'],
    ]) {
      const kind = name.endsWith('.code-workspace') ? 'code-workspace' as const : 'settings' as const;
      const [problem] = checkToolChoiceLayers([{ level: 'folder', value: { a: { onyl: ['x'] } }, file: { name, text, kind } }]).problems;
      assert.ok(toolChoiceProblemFixable(problem.code), name);
      const [fix] = toolChoiceProblemFixes(text, name, problem);
      assert.doesNotMatch(applyQuickFix(text, fix), /onyl/, name);
    }
  });
});
