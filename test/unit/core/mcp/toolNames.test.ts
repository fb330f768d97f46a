import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { publicToolName, serverOfTool, toolNamePrefix } from '../../../../src/core/mcp/toolNames';

// Contract section 2, every vector.
const VECTORS: Array<[string, string, string]> = [
  ['github', 'create_issue', 'mcp__github__create_issue'],
  ['fs', 'read.file', 'mcp__fs__read_file_a70c27002fc8'],
  ['my server', 'search', 'mcp__my_server__search_b29ff387b62a'],
  ['srv', 'a'.repeat(60), 'mcp__srv__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_3d57c3c5f5c3'],
  ['x', 'café/lookup', 'mcp__x__caf__lookup_24f161ace05b'],
  ['github', 'r'.repeat(51), `mcp__github__${'r'.repeat(51)}`],
  ['github', `${'r'.repeat(51)}x`, `mcp__github__${'r'.repeat(38)}_80005ef99368`],
  ['abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz', 'mcp__abcdefghijklmnopqrstuvwxyz012345__abcdefghijkl_be9bf2e8553d'],
  ['s', '\u{1F600}', 'mcp__s_____5d9186a1f5a2'],
  ['s', '\uD800', 'mcp__s____5f510fd50244'],
  ['a', 'b\u0000c', 'mcp__a__b_c_8badde10c760'],
  ['my-server', 'tool.with.dots', 'mcp__my-server__tool_with_dots_ab2429db541d'],
  ['s', '', 'mcp__s__'],
];

/** A direct transcription of the contract's four steps, written separately on purpose. */
function transcription(serverName: string, rawName: string): string {
  const joined = 'mcp__' + serverName + '__' + rawName;
  let normalized = '';
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i];
    normalized += /[A-Za-z0-9_-]/.test(c) ? c : '_';
  }
  if (normalized === joined && normalized.length <= 64) return normalized;
  const hash = createHash('sha256').update(Buffer.from(serverName + '\0' + rawName, 'utf8')).digest('hex');
  return normalized.slice(0, 51) + '_' + hash.slice(0, 12);
}

describe('publicToolName', () => {
  for (const [serverName, rawName, expected] of VECTORS) {
    it(`${JSON.stringify(serverName)} + ${JSON.stringify(rawName.length > 20 ? `${rawName.slice(0, 8)}…(${rawName.length})` : rawName)}`, () => {
      assert.equal(publicToolName(serverName, rawName), expected);
    });
  }

  it('matches the transcription for any names (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 80 }), (s, r) => {
        assert.equal(publicToolName(s, r), transcription(s, r));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the server\'s prefix whole for every serverName a declaration allows, so a tool\'s server is known by its name (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/), fc.string({ unit: 'binary', maxLength: 80 }), (s, r) => {
        const name = publicToolName(s, r);
        assert.ok(name.startsWith(toolNamePrefix(s)), name);
        assert.equal(serverOfTool(name, ['other', s]), s === 'other' || name.startsWith(toolNamePrefix('other')) ? 'other' : s);
      }),
      { numRuns: 2000 },
    );
    assert.equal(serverOfTool('read_file', ['fs']), undefined);
    assert.equal(serverOfTool('mcp__fsx__read', ['fs']), undefined, 'a prefix is the whole server name and its "__"');
  });

  it('is not injective when a serverName contains "__" (why the bridge never emits one)', () => {
    assert.equal(publicToolName('a__b', 'c'), publicToolName('a', 'b__c'));
  });
});
