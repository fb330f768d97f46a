import { strict as assert } from 'node:assert';
import type { ToolChoice } from '../../../../src/core/declaration/toolsModel';
import { toMcpClientConfig } from '../../../../src/core/mcp/dshRow';
import { analyze } from '../../helpers';

describe('DSH 0.2 toolPolicy from a tool choice', () => {
  const [server] = analyze('{"servers": {"s": {"command": "node", "args": ["server.js"]}}}').servers;
  const policyOf = (choice: ToolChoice | undefined) => {
    const row = toMcpClientConfig({ ...server, tools: choice && { choice } }, { input: () => undefined, env: () => undefined });
    assert.ok('config' in row);
    return row.config.toolPolicy;
  };

  it('denies what the choice leaves out, never allows without asking; no policy when nothing is left out', () => {
    assert.equal(policyOf(undefined), undefined);
    assert.equal(policyOf({ exclude: [] }), undefined);
    assert.deepEqual(policyOf({ exclude: ['rm'] }), { default: 'ask', tools: { rm: 'deny' } });
    assert.deepEqual(policyOf({ only: ['read', 'rm'], exclude: ['rm'] }), { default: 'deny', tools: { read: 'ask', rm: 'deny' } });
  });
});
