import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { changedSinceReview, commitExport, reviewExport, sourceChangedSinceReview } from '../../../../src/core/app/export';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';
import { prepareFolderExport } from '../../../../src/core/app/folderExport';
import { folderAnalyzeOptions, settingsViewOf } from '../../../../src/core/settings/folderSettings';
import { HostStore } from '../../../../src/core/node/hostStore';
import { tempDir, workspace } from '../../helpers';

const SOURCE = `{
  "inputs": [{ "type": "promptString", "id": "tok", "description": "Token", "password": true }],
  "servers": { "a": { "command": "node", "args": ["--root=\${config:app.root}"], "env": { "API_TOKEN": "\${input:tok}" } } }
}`;

describe('export: what is reviewed is what is written', () => {
  const identity = (folder: string, values: Record<string, unknown> = {}) => ({
    folder, folderName: path.basename(folder), userHome: '/home/dev', settings: settingsViewOf(values),
  });

  it('signs the reviewed analysis with the settings the face passed, and stores the gathered values and approvals', async () => {
    const folder = workspace(SOURCE);
    const dshHome = tempDir('dsh-home-');
    const reviewed = await prepareFolderExport({ ...identity(folder, { 'app.root': '/srv', 'dsh.export.toolCallTimeoutMs': 777 }), dshHome, sectionEnvironment: { env: {}, homedir: dshHome } });
    const [server] = reviewed.analysis.servers;
    assert.ok(server.transport === 'stdio');
    assert.deepEqual(server.args, ['--root=/srv']);
    assert.equal(server.toolCallTimeoutMs, 777);
    assert.deepEqual(reviewed.sections.skills, { roots: [] });
    const result = await commitExport(reviewed, { dshHome, inputs: new Map([['tok', 'v1']]), approvals: [{ serverName: server.serverName, pin: server.pin }] });
    assert.equal(result.written, true);
    assert.equal(result.sourceChanged, false);
    assert.equal(readFileSync(path.join(folder, DECLARATION_PATH), 'utf8'), result.text);
    const store = new HostStore(dshHome);
    assert.deepEqual((await store.readFolder(folder)).inputs, new Map([['tok', 'v1']]));
    assert.ok(await store.isApproved(folder, server.serverName, server.pin));
  });

  it('the source changed after the review: says so and writes nothing (no declaration, values or approvals)', async () => {
    const folder = workspace(SOURCE);
    const dshHome = tempDir('dsh-home-');
    const reviewed = await reviewExport(folderAnalyzeOptions(identity(folder, { 'app.root': '/srv' })));
    const [server] = reviewed.analysis.servers;
    assert.equal(await sourceChangedSinceReview(reviewed), false);
    writeFileSync(path.join(folder, '.vscode/mcp.json'), SOURCE.replace('"node"', '"sh"'));
    assert.equal(await sourceChangedSinceReview(reviewed), true);
    const result = await commitExport(reviewed, { dshHome, inputs: new Map([['tok', 'v1']]), approvals: [{ serverName: server.serverName, pin: server.pin }] });
    assert.deepEqual([result.sourceChanged, result.written, result.text], [true, false, undefined]);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
    assert.equal(existsSync(path.join(dshHome, 'bridge')), false, 'nothing in the host store either');
  });

  it('a dev container configuration created after the review counts as changed, as verify counts it', async () => {
    const folder = workspace(SOURCE);
    const reviewed = await reviewExport(folderAnalyzeOptions(identity(folder)));
    assert.equal(await changedSinceReview(reviewed), undefined);
    mkdirSync(path.join(folder, '.devcontainer/py'), { recursive: true });
    writeFileSync(path.join(folder, '.devcontainer/py/devcontainer.json'), '{ "customizations": { "vscode": { "mcp": { "servers": { "b": { "command": "sh" } } } } } }');
    assert.equal(await changedSinceReview(reviewed), '.devcontainer/py/devcontainer.json');
    const dshHome = tempDir('dsh-home-');
    const result = await commitExport(reviewed, { dshHome });
    assert.deepEqual([result.sourceChanged, result.written], [true, false]);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
  });

  it('a removed source counts as changed', async () => {
    const folder = workspace(SOURCE);
    const reviewed = await reviewExport(folderAnalyzeOptions(identity(folder)));
    require('node:fs').rmSync(path.join(folder, '.vscode/mcp.json'));
    assert.equal((await commitExport(reviewed, { dshHome: tempDir('dsh-home-') })).sourceChanged, true);
  });
});
