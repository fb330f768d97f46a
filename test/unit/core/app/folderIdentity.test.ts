// readFolderIdentity tells a file the caller named that cannot be used (the CLI: a usage error)
// from any other failure (the CLI: the command fails, without the usage).
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { readFolderIdentity } from '../../../../src/core/app/folderIdentity';
import { FILE_PORTS, tempDir, workspace } from '../../helpers';
import { VSCODE_POLICY_FILE, readVscodePolicyFile } from '../../../../src/core/node/policyFiles';

const ports = { files: FILE_PORTS.files, policy: { vscodePolicyFile: VSCODE_POLICY_FILE, readVscodePolicyFile }, home: tempDir('identity-home-') };

describe('readFolderIdentity: what cannot be read, and whose it is', () => {
  it('a user settings file given that does not exist: cause "given", naming the option and the file', async () => {
    const folder = workspace('{"servers": {}}');
    const missing = path.join(tempDir('identity-'), 'settings.json');
    const read = await readFolderIdentity(ports, folder, { userSettings: missing }, () => undefined);
    assert.equal(read.ok, false);
    assert.deepEqual(!read.ok && [read.cause, read.message.includes(missing)], ['given', true]);
  });

  it('a failure of reading itself (a reader that throws): cause "failure"', async () => {
    const folder = workspace('{"servers": {}}');
    const throwing = { ...ports, files: { ...ports.files, readWorkspaceFile: () => Promise.reject(new Error('EIO: i/o error')) } };
    const read = await readFolderIdentity(throwing, folder, {}, () => undefined);
    assert.deepEqual(!read.ok && [read.cause, /EIO/.test(read.message)], ['failure', true]);
  });

  it('the folder alone reads', async () => {
    const read = await readFolderIdentity(ports, workspace('{"servers": {}}'), {}, () => undefined);
    assert.equal(read.ok, true);
  });
});
