import assert from 'node:assert/strict';
import { mergeSections } from '../../../src/dsh-plugin/lspMount';

describe('dsh-plugin: mergeSections (tool:lsp registered during the assembly)', () => {
  // The shape of rc.8 dsh-system-prompt's merged section table for a scope.
  const table = new Map([
    ['harness:identity', { name: 'harness:identity', order: -100, text: 'id' }],
    ['persona', { name: 'persona', order: 0, text: '' }],
    ['tool:lsp', { name: 'tool:lsp', order: 112, text: (ctx: unknown) => `lsp ${String((ctx as { who: string }).who)}` }],
    ['late', { name: 'late', order: 500, text: 'late' }],
  ]);
  const systemPrompt = { layers: { merge: (_scope: unknown, pick: (l: { sections: unknown }) => unknown) => (pick({ sections: 'x' }) === 'x' ? table : new Map()) } };
  const sections = () => [{ name: 'harness:identity', text: 'id' }, { name: 'persona', text: '' }, { name: 'late', text: 'late' }];

  it('inserts the section at the place of its order, with its text rendered for the context', async () => {
    const a = { tools: [], sections: sections() };
    mergeSections(a, systemPrompt, {}, ['tool:lsp'], { who: 'A' });
    assert.deepEqual(a.sections.map((s) => s.name), ['harness:identity', 'persona', 'tool:lsp', 'late']);
    assert.equal(a.sections[2].text, 'lsp A');
    mergeSections(a, systemPrompt, {}, ['tool:lsp'], { who: 'A' });
    assert.equal(a.sections.length, 4, 'idempotent');
  });
  it('leaves the assembly alone on a build without the section table', async () => {
    const a = { tools: [], sections: sections() };
    mergeSections(a, {}, {}, ['tool:lsp'], {});
    mergeSections(a, undefined, {}, ['tool:lsp'], {});
    assert.equal(a.sections.length, 3);
  });
});
