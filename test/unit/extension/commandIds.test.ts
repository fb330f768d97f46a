import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { COMMAND, COMMAND_IDS } from '../../../src/extension/commandIds';

describe('extension command ids (the one command table)', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
    contributes: { commands: Array<{ command: string }> };
  };

  it('every contributed command is registered, and every registered command but the internal link is contributed', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    const registered = COMMAND_IDS.filter((id) => id !== COMMAND.explainProblem).sort();
    assert.deepEqual(registered, contributed);
  });

  it('ids are unique', () => {
    assert.equal(new Set(COMMAND_IDS).size, COMMAND_IDS.length);
  });
});
