import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { resolveVariables } from '../../src/core/mcp/variables';

const CTX = { folder: '/w/app', folderName: 'app', userHome: '/home/u', pathSeparator: '/' };

describe('resolveVariables', () => {
  it('splits a value exactly where VS Code\'s own pattern matches (property)', () => {
    const piece = fc.constantFrom('${', '}', '$', '{', 'input:a', 'env:B', 'workspaceFolder', 'x', '\n', ':', 'command:c', '${input:a}', '${env:B}');
    fc.assert(fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
      const value = pieces.join('');
      const matches = [...value.matchAll(/\$\{(.*?)\}/g)];
      const r = resolveVariables(value, CTX, new Set(['a']));
      const refs = typeof r.template === 'string' ? [] : r.template.filter((p) => typeof p !== 'string');
      // Each match is a reference, an issue or a resolved folder/home/separator variable.
      const kinds = matches.map((m) => {
        const name = m[1];
        if (/^(input|env):./.test(name)) return 'ref';
        if (['workspaceFolder', 'workspaceFolder:app', 'userHome', 'pathSeparator', '/'].includes(name)) return 'text';
        return 'issue';
      });
      assert.equal(refs.length, kinds.filter((k) => k === 'ref').length, value);
      assert.deepEqual(
        r.issues.filter((i) => i.kind === 'unsupported-variable').map((i) => [i.index, i.variable]),
        matches.filter((_, i) => kinds[i] === 'issue').map((m) => [m.index, m[0]]),
        value,
      );
      for (const i of r.issues) assert.equal(value.slice(i.index, i.index + i.length), i.variable);
    }), { numRuns: 3000 });
  });

  it('resolves one pass only', () => {
    const r = resolveVariables('${userHome}/x', { ...CTX, userHome: '${input:a}' }, new Set(['a']));
    assert.equal(r.template, '${input:a}/x');
  });
});
