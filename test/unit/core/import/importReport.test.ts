import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import * as path from 'node:path';
import { planImport } from '../../../../src/core/import/importPlan';
import { exportFindings, importReportMarkdown, withoutCarried } from '../../../../src/core/import/importReport';
import { removeImportedOriginals } from '../../../../src/core/node/importFiles';
import { tempDir } from '../../helpers';

// The import's summary, report and the removal of the carried originals, on the Cursor fixture:
// github (a credential in env), userjot (http), win-tools, linear (sse: carried, refused at export).
const FILE = '.cursor/mcp.json';
const TEXT = readFileSync(path.resolve(__dirname, '../../../fixtures/import/cursor/.cursor/mcp.json'), 'utf8');
const TOKEN = 'ghp_R8x2Kq9ZtW4mLp7VbN3cYd6Fh1Js5Ga0QeUo';
const planOf = (text = TEXT, target?: string) => planImport({ client: 'cursor', sources: [{ file: FILE, text, scope: 'project' }], folder: '/home/dev/app', target });

describe('import summary and report (core/import/importReport)', () => {
  it('names the carried sse server the export refuses, with the refusing problem', () => {
    const plan = planOf();
    assert.ok(plan.servers.some((s) => s.name === 'linear'));
    const refused = exportFindings(plan, '/home/dev/app').refusals;
    assert.deepEqual(refused.map((r) => r.server), ['linear']);
    assert.ok(refused[0].reasons.some((r) => r.code === 'unsupported-transport' && r.args.transport === 'sse'), JSON.stringify(refused));
  });

  it('the Markdown report has one section per server, says each sentence once, and holds no credential', () => {
    const plan = planOf();
    const report = importReportMarkdown(plan, [FILE], exportFindings(plan, '/home/dev/app').refusals);
    for (const s of plan.servers) assert.equal(report.split('\n').filter((l) => l === `## \`${s.sourceName}\``).length, 1, report);
    const linear = report.slice(report.indexOf('## `linear`'));
    assert.match(linear, /\*\*Refused by the export\*\* \(`unsupported-transport`\): DSH supports stdio and Streamable HTTP only; sse is not supported\./);
    const bullets = report.split('\n').filter((l) => l.startsWith('- **'));
    assert.equal(new Set(bullets).size, bullets.length, 'a sentence repeated');
    assert.ok(!report.includes(TOKEN));
    assert.match(report, /^# Import from Cursor\n/);
    assert.match(report, /- 4 servers to add\n- 1 credential goes to secret storage\n- 1 of them is refused by the export\n/);
  });

  it('a credential carried in args becomes an input the editor warns about (secret-in-args): the findings and the report say so, never "as it is"', () => {
    const text = JSON.stringify({ mcpServers: { gh: { command: 'npx', args: ['-y', 'gh-mcp', '--token', TOKEN] }, plain: { command: 'node', args: ['p.js'] } } });
    const plan = planOf(text);
    const { refusals, warnings } = exportFindings(plan, '/home/dev/app');
    assert.deepEqual(refusals, []);
    assert.deepEqual(warnings.map((w) => [w.server, w.code]), [['gh', 'secret-in-args']]);
    const report = importReportMarkdown(plan, [FILE], refusals, undefined, warnings);
    assert.match(report, /- 2 servers to add\n- 1 credential goes to secret storage\n- 1 warning on them\n/);
    const gh = report.slice(report.indexOf('## `gh`'), report.indexOf('## `plain`'));
    assert.match(gh, /\*\*Warning\*\* \(`secret-in-args`\): Secret input "gh-[^"]+" is passed as a command-line argument/);
    assert.doesNotMatch(gh, /Carried as it is/);
    assert.match(report.slice(report.indexOf('## `plain`')), /Carried as it is\./);
    assert.ok(!report.includes(TOKEN));
  });

  it('a name with a backtick or a bidi character is shown escaped in inline code', () => {
    const text = '{"mcpServers": {"a`b\u202e": {"command": "node"}}}';
    const report = importReportMarkdown(planOf(text), [FILE], []);
    assert.ok(report.includes('## `` a`b\\u{202e} ``'), report);
    assert.ok(!report.includes('\u202e'));
  });

  it('withoutCarried removes only the named servers and keeps comments', () => {
    const out = withoutCarried(TEXT, ['github', 'linear', 'not-there']);
    assert.ok(out);
    assert.deepEqual(out.removed, ['github', 'linear']);
    assert.ok(!out.text.includes(TOKEN));
    assert.match(out.text, /\/\/ Project servers for Cursor/);
    assert.match(out.text, /"userjot"/);
    assert.match(out.text, /"win-tools"/);
    assert.equal(withoutCarried(TEXT, ['nope']), undefined);
    assert.equal(withoutCarried('{ broken', ['github']), undefined);
  });

  it('removeImportedOriginals writes atomically with the mode kept, and refuses a changed file or one outside the folder', async () => {
    const folder = tempDir();
    mkdirSync(path.join(folder, '.cursor'));
    const file = path.join(folder, FILE);
    writeFileSync(file, TEXT);
    chmodSync(file, 0o600);
    assert.deepEqual(await removeImportedOriginals(folder, '~/.cursor/mcp.json', TEXT, ['github']), { removed: [], reason: 'refused', message: '~/.cursor/mcp.json is not in the folder' });
    const changed = await removeImportedOriginals(folder, FILE, TEXT.replace('shared', 'SHARED'), ['github']);
    assert.equal('reason' in changed && changed.reason, 'changed');
    assert.equal(readFileSync(file, 'utf8'), TEXT);
    assert.deepEqual(await removeImportedOriginals(folder, FILE, TEXT, ['github']), { removed: ['github'] });
    const after = readFileSync(file, 'utf8');
    assert.ok(!after.includes(TOKEN));
    assert.match(after, /"linear"/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});
