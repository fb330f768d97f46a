import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { canonicalHash, canonicalJson } from '../../../../src/core/json/canonicalJson';
import { analyze } from '../../helpers';
import type { Analysis } from '../../../../src/core/mcp/analysis';

/**
 * The export writes each server's canonical text field by field (src/core/mcp/serverPin.ts);
 * here every pin and remembered text is compared with the generic RFC 8785 serializer of a
 * plain copy of the entry (a copy has no remembered text, so it is serialized afresh).
 */
function assertGenericAgrees(a: Analysis) {
  for (const server of a.servers) {
    const { pin, ...rest } = server;
    assert.equal(pin, canonicalHash(rest), `pin of ${server.name}`);
    assert.equal(canonicalJson(server), canonicalJson({ ...server }), `canonical text of ${server.name}`);
  }
}

describe('server pins: the field-by-field writer agrees with canonicalJson', () => {
  it('sorts env and header keys by code units, integer-like, escaped and non-ASCII keys included', () => {
    const a = analyze(JSON.stringify({
      inputs: [{ type: 'promptString', id: 'tok', description: 't', password: true }],
      servers: {
        s: {
          command: 'node', args: ['a', '${input:tok}', 'x${env:HOME}y'], cwd: 'sub', envFile: '.env',
          env: { 10: 'a', 9: 'b', 1: '${input:tok}', Z: 3, a: 'q"uote', '\u00e9': '\u{1f600}', '\u0000ctl': 'x', 'input': 'i', 'env': '${env:E}', toString: 't' },
        },
        h: { type: 'http', url: 'https://${input:tok}.example.com/p', headers: { 'X-B': 'b', 'X-A': 'Bearer ${input:tok}', 2: 'two', 10: 'ten' } },
        empty: { command: 'x', env: {} },
      },
    }));
    assert.equal(a.servers.length, 3);
    assertGenericAgrees(a);
  });

  it('agrees for arbitrary keys and values (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 8 });
    const value = fc.oneof(text, fc.constantFrom('${input:tok}', 'a${env:X}b', '${workspaceFolder}/x', '\\', '"'));
    fc.assert(fc.property(fc.dictionary(text, value, { maxKeys: 8 }), fc.dictionary(text, value, { maxKeys: 8 }), fc.array(value, { maxLength: 4 }), (env, headers, args) => {
      const a = analyze(JSON.stringify({
        inputs: [{ type: 'promptString', id: 'tok', description: 't', password: true }],
        servers: { s: { command: 'node', args, env }, h: { type: 'http', url: 'https://example.com/', headers } },
      }), { toolCallTimeoutMs: 1234, reconnect: { maxAttempts: 3 } });
      assertGenericAgrees(a);
    }), { numRuns: 300 });
  });
});
