import assert from 'node:assert/strict';
import { isReservationConflict } from '../../../src/dsh-plugin/mcpModules';

describe('dsh-plugin: reservation conflict detection', () => {
  it('recognises rc.8\'s message, also as a cause', () => {
    const e = new Error('mcp-client: serverName "x" is already in use by another mcp-client instance — pick a unique serverName in cordis.yml');
    assert.ok(isReservationConflict(e));
    assert.ok(isReservationConflict(new Error('wrapped', { cause: e })));
    assert.ok(!isReservationConflict(new Error('spawn ENOENT')));
  });
});
