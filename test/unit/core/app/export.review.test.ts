import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { changedSinceReview, commitExport, reviewExport } from '../../../../src/core/app/export';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';
import { tempDir, workspace, testPorts, userSettings } from '../../helpers';

const SOURCE = `{
  "inputs": [{ "type": "promptString", "id": "tok", "description": "Token", "password": true }],
  "servers": { "a": { "command": "node", "args": ["--root=\${config:app.root}"], "env": { "API_TOKEN": "\${input:tok}" } } }
}`;

describe('export: what is reviewed is what is written', () => {
  const identity = (folder: string, values: Record<string, unknown> = {}) => ({
    folder, folderName: path.basename(folder), userHome: '/home/dev', settings: userSettings(values),
  });

  it('signs the reviewed analysis with the settings the face passed, and stores the gathered values and approvals', async () => {
    const folder = workspace(SOURCE);
    const dshHome = tempDir('dsh-home-');
    const ports = testPorts(dshHome);
    const reviewed = await reviewExport(ports, identity(folder, { 'app.root': '/srv', 'dsh.export.toolCallTimeoutMs': 777 }));
    const [server] = reviewed.analysis.servers;
    assert.ok(server.transport === 'stdio');
    assert.deepEqual(server.args, ['--root=/srv']);
    assert.equal(server.toolCallTimeoutMs, 777);
    assert.deepEqual(reviewed.sections.skills, { roots: [] });
    const result = await commitExport(ports, reviewed, { inputs: new Map([['tok', 'v1']]), approvals: [{ serverName: server.serverName, pin: server.pin }] });
    assert.equal(result.written, true);
    assert.equal(result.sourceChanged, false);
    assert.equal(readFileSync(path.join(folder, DECLARATION_PATH), 'utf8'), result.text);
    const { store } = ports;
    assert.deepEqual((await store.readFolder(folder)).inputs, new Map([['tok', 'v1']]));
    assert.ok(await store.isApproved(folder, server.serverName, server.pin));
  });

  it('the source changed after the review: says so and writes nothing (no declaration, values or approvals)', async () => {
    const folder = workspace(SOURCE);
    const dshHome = tempDir('dsh-home-');
    const ports = testPorts(dshHome);
    const reviewed = await reviewExport(ports, identity(folder, { 'app.root': '/srv' }));
    const [server] = reviewed.analysis.servers;
    assert.equal(await changedSinceReview(ports, reviewed), undefined);
    writeFileSync(path.join(folder, '.vscode/mcp.json'), SOURCE.replace('"node"', '"sh"'));
    assert.equal(await changedSinceReview(ports, reviewed), '.vscode/mcp.json');
    const result = await commitExport(ports, reviewed, { inputs: new Map([['tok', 'v1']]), approvals: [{ serverName: server.serverName, pin: server.pin }] });
    assert.deepEqual([result.sourceChanged, result.written, result.text], [true, false, undefined]);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
    assert.equal(existsSync(path.join(dshHome, 'bridge')), false, 'nothing in the host store either');
  });

  it('a dev container configuration created after the review counts as changed, as verify counts it', async () => {
    const folder = workspace(SOURCE);
    const ports = testPorts(tempDir('dsh-home-'));
    const reviewed = await reviewExport(ports, identity(folder));
    assert.equal(await changedSinceReview(ports, reviewed), undefined);
    mkdirSync(path.join(folder, '.devcontainer/py'), { recursive: true });
    writeFileSync(path.join(folder, '.devcontainer/py/devcontainer.json'), '{ "customizations": { "vscode": { "mcp": { "servers": { "b": { "command": "sh" } } } } } }');
    assert.equal(await changedSinceReview(ports, reviewed), '.devcontainer/py/devcontainer.json');
    const result = await commitExport(ports, reviewed);
    assert.deepEqual([result.sourceChanged, result.written], [true, false]);
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
  });

  it('a removed source counts as changed', async () => {
    const folder = workspace(SOURCE);
    const ports = testPorts(tempDir('dsh-home-'));
    const reviewed = await reviewExport(ports, identity(folder));
    require('node:fs').rmSync(path.join(folder, '.vscode/mcp.json'));
    assert.equal((await commitExport(ports, reviewed)).sourceChanged, true);
  });
});
