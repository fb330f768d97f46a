import { strict as assert } from 'node:assert';
import { toolPolicyOf } from '../../../../src/core/mcp/dshRow';

describe('DSH 0.2 toolPolicy from a tool choice', () => {
  it('denies what the choice leaves out, never allows without asking', () => {
    assert.equal(toolPolicyOf(undefined), undefined);
    assert.equal(toolPolicyOf({ exclude: [] }), undefined);
    assert.deepEqual(toolPolicyOf({ exclude: ['rm'] }), { default: 'ask', tools: { rm: 'deny' } });
    assert.deepEqual(toolPolicyOf({ only: ['read', 'rm'], exclude: ['rm'] }), { default: 'deny', tools: { read: 'ask', rm: 'deny' } });
  });
});
