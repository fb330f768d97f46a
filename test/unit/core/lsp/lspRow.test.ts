import * as assert from 'node:assert/strict';
import { describeLspServers, lspReviewLines, LSP_APPROVAL_NAME, toLspStdioConfig } from '../../../../src/core/lsp/lspRow';
import type { LspDeclarationSection } from '../../../../src/core/declaration/declarationModel';
import { rawHidden } from '../../helpers';
import { lspDeclarationSection } from '../../../../src/core/lsp/lspSection';

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

describe('lsp row (core)', () => {
  const section = lspDeclarationSection({
    registersAll: true,
    servers: {
      ts: {
        command: '/usr/bin/tls', args: ['--stdio'], env: { LOG: 'x', API_TOKEN: 'never-copied' }, extensionToLanguage: { '.ts': 'typescript' },
        initializationOptions: { a: 1 }, configuration: null, maxMessageBytes: 1, maxStderrBytes: 2, maxDocumentBytes: 3, shutdownTimeoutMs: 4, killGraceMs: 5,
      },
    },
  });
  it('renders credential-named env from the DSH environment and keeps every other field', () => {
    const lookup = { input: () => undefined, env: (n: string) => (n === 'API_TOKEN' ? 'from-dsh-env' : undefined) };
    const row = toLspStdioConfig(section, lookup);
    assert.ok(row.ok);
    assert.deepEqual(row.config.servers.ts, {
      command: '/usr/bin/tls', args: ['--stdio'], env: { LOG: 'x', API_TOKEN: 'from-dsh-env' }, extensionToLanguage: { '.ts': 'typescript' },
      initializationOptions: { a: 1 }, configuration: null, maxMessageBytes: 1, maxStderrBytes: 2, maxDocumentBytes: 3, shutdownTimeoutMs: 4, killGraceMs: 5,
    });
  });
  it('refuses the whole row when a referenced variable is missing, naming it but no value', () => {
    const row = toLspStdioConfig(section, { input: () => undefined, env: () => undefined });
    assert.equal(row.ok, false);
    assert.match(!row.ok ? row.reason : '', /"ts" needs the environment variable API_TOKEN/);
  });
  it('approval name cannot collide with an MCP serverName', () => {
    assert.doesNotMatch(LSP_APPROVAL_NAME, /^[A-Za-z0-9_-]{1,32}$/);
  });
});
