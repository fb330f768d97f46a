import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { analyzeSource } from '../../src/core/mcp/analyze';
import { canonicalJson } from '../../src/core/json/canonicalJson';
import { serializeDeclaration } from '../../src/core/declaration/declaration';
import { buildDeclarationBody } from '../../src/core/app/export';
import { options } from './helpers';

/** Text that looks like mcp.json often enough to reach deep paths. */
const fragment = fc.oneof(
  fc.constantFrom('{', '}', '[', ']', ',', ':', '"servers"', '"inputs"', '"command"', '"args"', '"env"', '"url"', '"type"', '"sse"', '"http"',
    '"stdio"', '"headers"', '"${input:x}"', '"${env:A}"', '"${command:y}"', '"${workspaceFolder}"', '"id"', '"password"', 'true', 'null', '1',
    '// c\n', '/* c */', '\r\n', '"\\ud800"', '"mcpServers"', '"cwd"', '"envFile"', '"oauth"', '"sandboxEnabled"', '"a"', '"a"', '"promptString"'),
  fc.string({ maxLength: 8 }),
  fc.json(),
);

describe('robustness (property)', () => {
  it('no input makes the reader or the export throw', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => {
        const analysis = analyzeSource(Buffer.from(parts.join(''), 'utf8'), options());
        // Whatever was accepted must serialize into a declaration.
        serializeDeclaration(buildDeclarationBody(analysis, '/w'), Buffer.alloc(32));
        for (const p of analysis.problems) assert.ok(p.range.start.line >= 0 && p.range.end.character >= 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('random bytes never throw either', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      analyzeSource(bytes, options());
    }), { numRuns: 2000 });
  });

  it('accepted servers are always canonicalizable (no lone surrogates get through)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (s) => {
      const a = analyzeSource(Buffer.from(JSON.stringify({ servers: { [s]: { command: s, args: [s] } } }), 'utf8'), options());
      for (const server of a.servers) canonicalJson(server);
    }), { numRuns: 2000 });
  });
});
