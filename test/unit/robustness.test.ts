import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { parse, parseTree, type ParseError } from 'jsonc-parser';
import { analyzeSource } from '../../src/core/mcp/analyze';
import { canonicalJson } from '../../src/core/json/canonicalJson';
import { decodeText, LineIndex, type Position } from '../../src/core/json/text';
import { serializeDeclaration } from '../../src/core/declaration/declaration';
import { buildDeclarationBody } from '../../src/core/app/export';
import { options } from './helpers';
import { fixtureFiles } from './fuzz.mutate';

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

  it('random bytes: never a throw, never a partial declaration; what is not a JSON object is unusable, its first error where jsonc-parser finds it', () => {
    const fixtures = fixtureFiles().map((f) => readFileSync(f));
    const input = fc.oneof(
      { weight: 4, arbitrary: fc.uint8Array({ maxLength: 300 }) },
      // Any JSON value: only an object (or nothing at all) is usable.
      { weight: 2, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '', 'utf8')) },
      // A real file with one byte overwritten.
      { weight: 2, arbitrary: fc.tuple(fc.nat(fixtures.length - 1), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([f, at, byte]) => {
        const bytes = Buffer.from(fixtures[f]);
        bytes[at % bytes.length] = byte;
        return bytes;
      }) },
    );
    const seen = { usable: 0, unusable: 0 };
    fc.assert(fc.property(input, (bytes) => {
      const analysis = analyzeSource(bytes, options());
      const decoded = decodeText(bytes);
      const text = decoded.ok ? decoded.text : '';
      const lines = new LineIndex(text);
      const inside = ({ line, character }: Position) => {
        const start = lines.positionAt(0);
        const end = lines.positionAt(text.length);
        return line >= start.line && line <= end.line && character >= 0;
      };
      for (const p of analysis.problems) assert.ok(inside(p.range.start) && inside(p.range.end), `${p.code} at ${JSON.stringify(p.range)} is outside the text`);
      // An independent reading: jsonc-parser's, as VS Code reads the file.
      const errors: ParseError[] = [];
      const value: unknown = decoded.ok ? parse(text, errors, { allowTrailingComma: true, allowEmptyContent: true }) : undefined;
      const jsonObject = decoded.ok && errors.length === 0 && typeof value === 'object' && value !== null && !Array.isArray(value);
      const nothing = decoded.ok && errors.length === 0 && value === undefined;
      if (analysis.usable) {
        seen.usable++;
        assert.ok(jsonObject || nothing, 'usable, but neither a JSON object nor empty');
        return;
      }
      seen.unusable++;
      assert.ok(analysis.problems.some((p) => p.severity === 'error'), 'unusable without an error');
      assert.deepEqual([analysis.servers, analysis.inputs], [[], []], 'an unusable file exports nothing');
      if (jsonObject || nothing) return; // unusable for what it holds (a duplicate "servers", too many servers...)
      const first = analysis.problems.find((p) => p.code === 'invalid-json' || p.code === 'too-deep');
      assert.ok(first, 'not a JSON object, yet no JSON problem');
      if (first.code === 'too-deep') return; // refused before jsonc-parser reads it
      // Where the text goes wrong: its first syntax error, or a top-level value that is no object.
      const root = decoded.ok ? parseTree(text, [], { allowTrailingComma: true, allowEmptyContent: true }) : undefined;
      const wrong = [...errors.map((e) => e.offset), ...(root && root.type !== 'object' ? [root.offset] : [])];
      const where = lines.positionAt(decoded.ok ? Math.min(...wrong) : 0);
      assert.deepEqual(first.range.start, where, 'the first JSON problem is not where the text goes wrong');
    }), { numRuns: 3000 });
    assert.ok(seen.usable > 50 && seen.unusable > 1500, `both sides checked: ${JSON.stringify(seen)}`);
  });

  it('accepted servers are always canonicalizable (no lone surrogates get through)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (s) => {
      const a = analyzeSource(Buffer.from(JSON.stringify({ servers: { [s]: { command: s, args: [s] } } }), 'utf8'), options());
      for (const server of a.servers) canonicalJson(server);
    }), { numRuns: 2000 });
  });
});
