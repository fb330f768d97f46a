import * as assert from 'node:assert/strict';
import { describeLspServers, lspReviewLines } from '../../../../src/core/lsp/lspRow';
import type { LspDeclarationSection } from '../../../../src/core/declaration/declarationModel';
import { rawHidden } from '../../helpers';

describe('lsp: the review of a declaration\'s language servers', () => {
  it('shows ids, command lines, extensions and env names on their lines with hidden characters escaped', () => {
    const section = {
      registersAll: true,
      pin: `sha256:${'0'.repeat(64)}`,
      servers: {
        'ts\u202e': { command: 'node', args: ['--import=data:x\r\u001b[2K', 'ls.js'], env: { 'TOKEN\u0007': 'x' }, extensionToLanguage: { '.ts\u2066': 'typescript' } },
      },
    } as unknown as LspDeclarationSection;
    const lines = lspReviewLines(section);
    for (const line of lines) assert.equal(rawHidden(line), undefined);
    assert.deepEqual(lines.slice(1, 4), [
      '  "ts\\u{202e}" for .ts\\u{2066}: it will run on this computer with your user\'s privileges:',
      "    node '--import=data:x\\r\\x1b[2K' ls.js",
      '    Environment variables (names only): TOKEN\\x07',
    ]);
    assert.equal(describeLspServers(section), '"ts\\u{202e}" (.ts\\u{2066})');
  });
});
