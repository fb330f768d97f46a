import { strict as assert } from 'node:assert';
import { toolChoiceProblemFixes } from '../../../../src/core/app/fileFixes';
import { checkToolChoiceLayers, stillLeftOut } from '../../../../src/core/app/toolChoiceSetting';
import { applyQuickFix } from '../../helpers';

describe('toolChoiceSetting: dsh.tools over every layer', () => {
  it('says a tool the user allowed stays left out when another layer leaves it out', () => {
    const user = { level: 'user' as const, value: { a: { exclude: ['x'] } } };
    assert.equal(stillLeftOut([user, { level: 'folder', value: { a: { only: ['x', 'y'] } } }], 'a', 'x'), true);
    assert.equal(stillLeftOut([user], 'a', 'y'), false);
  });

  it('places a problem of dsh.tools written as nested objects on its node, and fixes it there', () => {
    const text = '{\n  "dsh": {\n    // tools\n    "tools": { "a": { "onyl": ["x"] } }\n  }\n}\n';
    const checked = checkToolChoiceLayers([{ level: 'folder', value: { a: { onyl: ['x'] } }, file: { name: '/w/.vscode/settings.json', text, kind: 'settings' } }]);
    assert.deepEqual(checked.problems.map((p) => [p.code, p.range]), [['tools-unknown-key', { start: { line: 3, character: 22 }, end: { line: 3, character: 28 } }]]);
    const [fix] = toolChoiceProblemFixes(text, '/w/.vscode/settings.json', checked.problems[0]);
    assert.equal(applyQuickFix(text, fix), '{\n  "dsh": {\n    // tools\n    "tools": { "a": {  } }\n  }\n}\n');
  });
});
