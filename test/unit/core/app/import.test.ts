// The import use case both faces call, on real files: what was reviewed is what is written, and a
// file edited after the review is never overwritten (nothing of the user's is lost).
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyImport, carriedOriginals, importChoices, reviewImport } from '../../../../src/core/app/import';
import { importFiles } from '../../../../src/core/node/importFiles';
import { testPorts, tempDir, workspace } from '../../helpers';

/** The ports the import's faces build: the use cases' and the import's files. */
const importPorts = () => ({ ...testPorts(tempDir('dsh-home-'), { home: tempDir('home-') }), imports: importFiles });

const CURSOR = JSON.stringify({ mcpServers: { github: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ghp_secret123456789' } }, local: { command: 'node', args: ['server.js'] } } }, null, 2);
const MINE = JSON.stringify({ servers: { mine: { command: 'node', args: ['mine.js'] } } }, null, 2);

describe('core/app/import: review and apply', () => {
  it('writes exactly the reviewed text, the credential stored first and never in the file; the originals it may offer to remove are the project file\'s', async () => {
    const folder = workspace(MINE, { '.cursor/mcp.json': CURSOR });
    const ports = importPorts();
    const choices = await importChoices(ports, folder);
    assert.deepEqual(choices.find((c) => c.client === 'cursor')?.found, ['.cursor/mcp.json']);
    const review = await reviewImport(ports, { client: 'cursor', folder, files: [], storedInputIds: [] });
    assert.equal(review.outcome, 'planned');
    if (review.outcome !== 'planned') return;
    assert.equal(review.failed, false);
    assert.deepEqual(review.plan.servers.map((s) => s.name).sort(), ['github', 'local']);
    assert.deepEqual(carriedOriginals(review).map((c) => [c.source.file, c.names.sort()]), [['.cursor/mcp.json', ['github', 'local']]]);
    const stored = new Map<string, string>();
    const applied = await applyImport(ports, folder, review.plan, async (id, value) => {
      stored.set(id, value);
    });
    assert.equal(applied.written, true);
    assert.deepEqual(applied.secretsStored, [...stored.keys()]);
    assert.deepEqual([...stored.values()], ['ghp_secret123456789']);
    const written = readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8');
    assert.equal(written, review.plan.after);
    assert.ok(written.includes('"mine"') && !written.includes('ghp_secret'));
  });

  it('never overwrites .vscode/mcp.json edited after the review: nothing written, the edit kept', async () => {
    const folder = workspace(MINE, { '.cursor/mcp.json': CURSOR });
    const ports = importPorts();
    const review = await reviewImport(ports, { client: 'cursor', folder, files: [], storedInputIds: [] });
    assert.equal(review.outcome, 'planned');
    if (review.outcome !== 'planned') return;
    const edited = MINE.replace('mine.js', 'mine2.js');
    writeFileSync(path.join(folder, '.vscode/mcp.json'), edited);
    const applied = await applyImport(ports, folder, review.plan, async () => undefined);
    assert.equal(applied.written, false);
    assert.equal(!applied.written && applied.reason, 'changed');
    assert.equal(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), edited);
  });

  it('says when there is nothing to read, and when .vscode/mcp.json cannot be edited, planning nothing', async () => {
    const ports = importPorts();
    const empty = workspace(MINE);
    const none = await reviewImport(ports, { client: 'gemini', folder: empty, files: [], storedInputIds: [] });
    assert.equal(none.outcome, 'nothing-found');
    assert.ok(none.outcome === 'nothing-found' && none.looked.includes('.gemini/settings.json'));
    const blocked = workspace(undefined, { '.cursor/mcp.json': CURSOR });
    mkdirSync(path.join(blocked, '.vscode/mcp.json'), { recursive: true });
    const review = await reviewImport(ports, { client: 'cursor', folder: blocked, files: [], storedInputIds: [] });
    assert.equal(review.outcome, 'target-unreadable');
  });
});
