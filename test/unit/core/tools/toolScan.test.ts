import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { isToolAccepted } from '../../../../src/core/tools/toolScan';

describe('toolScan: isToolAccepted', () => {
  const PIN = `sha256:${'a'.repeat(64)}`;
  // The host store records the folder resolved (path.resolve).
  const folder = path.resolve('some-project');
  const accepted = [{ folder, serverName: 'fx', tool: 'add', pin: PIN }];

  it('matches the folder given relative or with a trailing slash, as the host store resolves it', () => {
    assert.equal(isToolAccepted(accepted, { folder, serverName: 'fx', tool: 'add' }, PIN), true);
    assert.equal(isToolAccepted(accepted, { folder: `${folder}${path.sep}`, serverName: 'fx', tool: 'add' }, PIN), true, 'trailing separator');
    assert.equal(isToolAccepted(accepted, { folder: 'some-project', serverName: 'fx', tool: 'add' }, PIN), true, 'relative');
    assert.equal(isToolAccepted(accepted, { folder: `some-project${path.sep}.`, serverName: 'fx', tool: 'add' }, PIN), true, 'with a dot');
  });

  it('matches nothing of another folder, server, tool or pin', () => {
    assert.equal(isToolAccepted(accepted, { folder: path.resolve('other'), serverName: 'fx', tool: 'add' }, PIN), false);
    assert.equal(isToolAccepted(accepted, { folder, serverName: 'gx', tool: 'add' }, PIN), false);
    assert.equal(isToolAccepted(accepted, { folder, serverName: 'fx', tool: 'sub' }, PIN), false);
    assert.equal(isToolAccepted(accepted, { folder, serverName: 'fx', tool: 'add' }, `sha256:${'b'.repeat(64)}`), false);
  });
});
