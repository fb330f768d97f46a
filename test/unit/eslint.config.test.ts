// The house rule that faces only show what the core decided (house/face-imports in
// eslint.config.mjs), run through ESLint's Node API on sources placed in each face.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../..');

async function faceErrors(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === 'house/face-imports').map((m) => m.message);
}

describe('eslint.config.mjs: house/face-imports', function () {
  this.timeout(60000);

  it('fails a face that imports a deciding core module, in each face', async () => {
    for (const [file, code] of [
      ['src/extension/newFeature.ts', "import { checkToolChoice } from '../core/tools/toolChoice';\nexport const f = checkToolChoice;\n"],
      ['src/cli/newCommand.ts', "import { reviewLaunch } from '../core/mcp/launchReview';\nexport const f = reviewLaunch;\n"],
      ['src/dsh-plugin/newGate.ts', "import { discoverSkills } from '../core/skills/discovery';\nexport const f = discoverSkills;\n"],
      // An allowed module, but a binding outside its names.
      ['src/extension/newFeature.ts', "import { DECLARATION_PATH, DeclarationSchema } from '../core/declaration/declarationModel';\nexport const f = [DECLARATION_PATH, DeclarationSchema];\n"],
      // A value import among type ones is still a value import.
      ['src/extension/newFeature.ts', "import { type ToolChoice, choiceFor } from '../core/tools/toolChoice';\nexport const f: ToolChoice | typeof choiceFor | undefined = undefined;\n"],
    ]) {
      const errors = await faceErrors(file, code);
      assert.equal(errors.length, 1, `${file}: ${code} ${JSON.stringify(errors)}`);
      assert.match(errors[0], /core\/\S+ decides: call a use case that does/);
    }
  });

  it('passes the use cases, type imports and the allow-list', async () => {
    const code = [
      "import { planSession } from '../core/app/plan';",
      "import type { ToolChoice } from '../core/declaration/toolsModel';",
      "import { type ToolChoiceAnalysis } from '../core/tools/toolChoice';",
      "import { visibleLine } from '../core/json/visibleText';",
      "import { DECLARATION_PATH } from '../core/declaration/declarationModel';",
      "import { nodePorts } from '../core/node/ports';",
      'export const f: [ToolChoice?, ToolChoiceAnalysis?] = [];',
      'export const g = [planSession, visibleLine, DECLARATION_PATH, nodePorts];',
      '',
    ].join('\n');
    for (const face of ['extension', 'cli', 'dsh-plugin']) assert.deepEqual(await faceErrors(`src/${face}/newFeature.ts`, code), [], face);
  });

  it('leaves the core to house/core-floors', async () => {
    assert.deepEqual(await faceErrors('src/core/app/newUseCase.ts', "import { checkToolChoice } from '../tools/toolChoice';\nexport const f = checkToolChoice;\n"), []);
  });
});
