import * as assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { LSP_DEFAULT_LIMITS } from '../../../../src/core/lsp/lspModel';
import { LSP_PROBLEM_CODES } from '../../../../src/core/lsp/lspCodes';
import { finalExtension, lspServerFor, normalizeLspExtension } from '../../../../src/core/lsp/lspRouting';
import { validateLspServers } from '../../../../src/core/lsp/lspValidation';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';
import { placeSettingProblems, settingRange } from '../../../../src/core/settings/settingsFile';
import { createPathResolver } from '../../../../src/core/node/commandPath';
import { describeLspServers, lspReviewLines } from '../../../../src/core/lsp/lspRow';
import type { LspDeclarationSection } from '../../../../src/core/declaration/declarationModel';
import { rawHidden } from '../../helpers';

const known = new Set(['tsserver', 'pylsp', 'gopls']);
const resolveCommand: CommandResolver = (command) => (known.has(command) || command === '/opt/bin/server' ? `/usr/bin/${command}` : undefined);
const ts = (extra: Record<string, unknown> = {}) => ({ command: 'tsserver', extensions: { '.ts': 'typescript' }, ...extra });

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
