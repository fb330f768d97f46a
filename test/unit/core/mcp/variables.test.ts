import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { resolveVariables } from '../../../../src/core/mcp/variables';

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
        // A name VS Code's resolver does not know is returned as written (a literal, with a warning).
        return /^(input|env|command|workspaceFolder)(:|$)/.test(name) ? 'issue' : 'literal';
      });
      assert.equal(refs.length, kinds.filter((k) => k === 'ref').length, value);
      assert.deepEqual(
        r.issues.filter((i) => i.kind === 'unsupported-variable').map((i) => [i.index, i.variable]),
        matches.filter((_, i) => kinds[i] === 'issue').map((m) => [m.index, m[0]]),
        value,
      );
      assert.deepEqual(
        r.issues.filter((i) => i.kind === 'literal-variable').map((i) => [i.index, i.variable]),
        matches.filter((_, i) => kinds[i] === 'literal').map((m) => [m.index, m[0]]),
        value,
      );
      for (const i of r.issues) assert.equal(value.slice(i.index, i.index + i.length), i.variable);
    }), { numRuns: 3000 });
  });

  it('keeps a name VS Code does not know as written, and resolves VS Code\'s older folder names', () => {
    const r = resolveVariables('${HOME}/a:${workspaceRoot}:${workspaceRootFolderName}:${API_KEY:-x}', CTX, new Set());
    assert.equal(r.template, '${HOME}/a:/w/app:app:${API_KEY:-x}');
    assert.deepEqual(r.issues.map((i) => [i.kind, i.variable]), [['literal-variable', '${HOME}'], ['literal-variable', '${API_KEY:-x}']]);
  });

  it('resolves nothing in a file VS Code starts servers from without resolving (literalOnly)', () => {
    const r = resolveVariables('${input:tok} ${env:A} ${workspaceFolder}', { ...CTX, literalOnly: true }, new Set(['tok']));
    assert.equal(r.template, '${input:tok} ${env:A} ${workspaceFolder}');
    assert.deepEqual(r.issues.map((i) => i.kind), ['not-resolved-here', 'not-resolved-here', 'not-resolved-here']);
  });

  it('resolves one pass only', () => {
    const r = resolveVariables('${userHome}/x', { ...CTX, userHome: '${input:a}' }, new Set(['a']));
    assert.equal(r.template, '${input:a}/x');
  });
});
