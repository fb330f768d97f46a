import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { isToolAccepted, scanRecords } from '../../../../src/core/tools/toolScan';
import { countedRecords, recordedProbe } from './recordedProbes.fixture';

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

describe('toolScan: scanRecords', () => {
  const PIN = `sha256:${'1'.repeat(64)}`;

  it('scans the recorded probes with their instructions, once per frozen records object', () => {
    const { records, reads } = countedRecords({ fx: recordedProbe('fx', PIN), gx: { ...recordedProbe('gx', PIN), instructions: undefined } });
    const scans = scanRecords(records);
    assert.deepEqual(scans.get('fx')!.instructions.map((f) => f.code), ['instruction-override', 'secrecy-request']);
    assert.deepEqual(scans.get('gx')!.instructions, []);
    assert.deepEqual(scans.get('fx')!.tools.get('send_email'), []);
    assert.equal(scanRecords(records), scans, 'the same records: the same scans');
    assert.equal(reads(), 1);
  });

  it('scans records that are not frozen at every call (they may change)', () => {
    const records = { fx: recordedProbe('fx', PIN) };
    assert.notEqual(scanRecords(records), scanRecords(records));
  });
});
