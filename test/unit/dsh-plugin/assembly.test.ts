// The DSH plugin's merge of tools into the request being assembled (the DSH tier covers it inside real DSH).
import assert from 'node:assert/strict';
import { dropTools, mergeTools } from '../../../src/dsh-plugin/assembly';

const tool = (name: string) => ({ name, description: name, parameters: { type: 'object' } });
const names = (a: { tools: { name: string }[] }) => a.tools.map((t) => t.name);

describe('dsh-plugin: mergeTools', () => {
  it('without toolOrder: inserts in code-unit order, as DSH sorts', () => {
    const a = { tools: ['a_tool', 'bash', 'zed'].map(tool) };
    const added = mergeTools(a, ['mcp__s__b', 'mcp__s__a', 'mcp__s__B'].map(tool));
    assert.deepEqual(added, ['mcp__s__B', 'mcp__s__a', 'mcp__s__b']);
    assert.deepEqual(names(a), ['a_tool', 'bash', 'mcp__s__B', 'mcp__s__a', 'mcp__s__b', 'zed']);
  });
  it('with toolOrder: unlisted tools go to the rest entry, sorted; listed ones to their place', () => {
    const order = ['zed', '<unlisted-tools>', 'a_tool']; // DSH's reserved rest entry (dsh-system-prompt)
    const a = { tools: ['zed', 'bash', 'a_tool'].map(tool) };
    mergeTools(a, ['mcp__s__x', 'mcp__s__c'].map(tool), order);
    assert.deepEqual(names(a), ['zed', 'bash', 'mcp__s__c', 'mcp__s__x', 'a_tool']);
  });
  it('skips tools already present, is idempotent, never reorders existing tools', () => {
    const a = { tools: ['y', 'x'].map(tool) };
    mergeTools(a, ['x', 'm'].map(tool));
    mergeTools(a, ['x', 'm'].map(tool));
    assert.deepEqual(names(a), ['m', 'y', 'x']);
  });
  it('copies a frozen array instead of failing, and detaches parameters', () => {
    const p = { type: 'object', properties: {} };
    const a = { tools: Object.freeze([tool('a')]) as unknown as ReturnType<typeof tool>[] };
    mergeTools(a, [{ name: 'b', description: '', parameters: p }]);
    assert.deepEqual(names(a), ['a', 'b']);
    assert.notEqual(a.tools[1].parameters, p);
  });
  it('dropTools removes only stopped servers\' tools that are no longer visible', () => {
    const a = { tools: ['bash', 'mcp__s__a', 'mcp__s2__a', 'mcp__s__b'].map(tool) };
    assert.deepEqual(dropTools(a, new Set(['s']), new Set(['mcp__s__b'])), ['mcp__s__a']);
    assert.deepEqual(names(a), ['bash', 'mcp__s2__a', 'mcp__s__b']);
  });
});
