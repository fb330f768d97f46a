// What a CLI user reads (issue 23's DSH-side items): each command's own --help, doctor's reasons
// each once and each server that would not mount on its own line with its fix, doctor naming a
// server that a session's first request went without, and what export did about language servers
// and pins awaiting approval. Through the real CLI entry (in-process), real folders, a real host store.
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { COMMANDS } from '../../../src/cli/commands';
import { doctorFixes, doctorLines, doctorReport } from '../../../src/core/app/doctor';
import { testPorts, tempDir, workspace } from '../helpers';

const NODE = process.execPath;
const SOURCE = JSON.stringify({
  inputs: [{ id: 'tok', type: 'promptString', description: 'token', password: true }],
  servers: { fx: { command: NODE, args: ['fx.js'] }, keyed: { command: NODE, args: ['k.js'], env: { TOKEN: '${input:tok}' } } },
});
const LSP_SETTINGS = { '.vscode/settings.json': JSON.stringify({ 'dsh.lsp.servers': { ts: { command: NODE, args: ['tls.js'], extensions: { '.ts': 'typescript' } } } }) };

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('CLI: what a user reads', function () {
  this.timeout(30000);

  it('dsh-bridge <command> --help prints that command\'s help (usage, options, an example), not the global help, for every command', async () => {
    const global = (await cli(['--help'])).out;
    assert.match(global, /^Commands:$/m);
    for (const [name, row] of Object.entries(COMMANDS)) {
      const help = await cli([name, '--help']);
      assert.equal(help.code, 0, name);
      assert.notEqual(help.out, global, `${name} --help is not the global help`);
      assert.doesNotMatch(help.out, /^Commands:$/m, name);
      assert.ok(help.out.startsWith(`Usage: dsh-bridge ${row.usage.split('\n')[0]}`), `${name}: its usage first`);
      assert.match(help.out, /^Options:$/m, name);
      assert.match(help.out, /^ {2}--workspace DIR/m, name);
      assert.match(help.out, /^Examples?:$/m, name);
      assert.match(help.out, new RegExp(`^ {2}(\\S+ \\| )?dsh-bridge ${name}( |$)`, 'm'), `${name}: an example of itself`);
      // -h too, and after the command's own arguments.
      assert.equal((await cli([name, '-h'])).out, help.out, name);
    }
    assert.equal((await cli(['inputs', 'set', 'x', '--help'])).out, (await cli(['inputs', '--help'])).out);
  });

  it('every option a command reads is in that command\'s --help and in the global help; the common ones main.ts reads are in every help', async () => {
    const source = (file: string) => readFileSync(path.join(__dirname, '../../../src/cli', file), 'utf8');
    const read = (text: string, object: string) => [...text.matchAll(new RegExp(`\\b${object}(?:\\.([\\w]+)|\\['([\\w-]+)'\\])`, 'g'))].map((m) => m[1] ?? m[2]);
    // Each command's module, from the command table's imports.
    const table = source('commands.ts');
    const moduleOf = new Map([...table.matchAll(/import \{([^}]*)\} from '\.\/(\w+)'/g)].flatMap(([, names, file]) => names.split(',').map((n) => [n.trim(), file] as const)));
    const global = (await cli(['--help'])).out;
    const flagIn = (help: string, option: string) => new RegExp(`^ {2}(-\\w, )?--${option}( |$)`, 'm').test(help);
    // What main.ts reads: --version alone is not a command's (the global help has it).
    const common = read(source('main.ts'), 'values').filter((o) => o !== 'version');
    assert.ok(flagIn(global, 'version'));
    assert.ok(common.includes('workspace') && common.includes('vscode-policy') && common.includes('dsh-home'), common.join());
    const runs = Object.keys(COMMANDS).map((name) => {
      const run = new RegExp(`\\b${name}: \\{\\s*run: (?:\\(ctx\\) => )?(?:async \\(ctx\\) => \\(await import\\('\\./(\\w+)\\.js'\\)\\)\\.)?(\\w+)`).exec(table);
      return { name, fn: run?.[2] ?? '', file: run?.[1] ?? moduleOf.get(run?.[2] ?? '') };
    });
    let own = 0;
    for (const { name, file } of runs) {
      assert.ok(file, `${name}: its module`);
      // The module without the run functions of other commands it also holds (export.ts: check).
      let text = source(`${file}.ts`);
      for (const other of runs.filter((r) => r.file === file && r.name !== name)) text = text.replace(new RegExp(`function ${other.fn}\\([\\s\\S]*?\\n\\}\\n`), '');
      const help = (await cli([name, '--help'])).out;
      for (const option of [...common, ...read(text, 'ctx\\.options')]) {
        assert.ok(flagIn(help, option), `${name} --help lacks --${option}`);
        assert.ok(flagIn(global, option), `the global help lacks --${option} (${name})`);
      }
      own += read(text, 'ctx\\.options').length;
    }
    assert.ok(own >= 10, 'the commands\' own options were found');
  });

  it('doctor: a missing input on its own line with its fix; a refused declaration\'s reason once in the summary, not once per server', async () => {
    const folder = workspace(SOURCE);
    const home = tempDir('cli-usability-home-');
    const ws = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await cli(['export', ...ws])).code, 0);
    const doctor = await cli(['doctor', ...ws]);
    const lines = doctor.out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('\u2716 keyed would not mount: Input "tok" has no value stored for '));
    assert.ok(at > 0, doctor.out);
    assert.equal(lines[at + 1], `  fix: dsh-bridge inputs set tok --workspace ${folder}`);
    assert.ok(lines.some((l) => l.startsWith('\u26a0 fx would not mount: DSH asks before it starts')), doctor.out);

    // Tampered: both servers are refused for the same reasons, said once each.
    const file = path.join(folder, '.dsh/declaration.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('fx.js', 'evil.js'));
    const tampered = await cli(['doctor', ...ws]);
    const summary = tampered.out.split('\n').at(-1) ?? '';
    assert.match(summary, /^Would mount: none; would not: fx, keyed \(The declaration .* is refused: .*; fix: dsh-bridge export --workspace .*\)\.$/);
    assert.equal(count(summary, 'is refused'), 1, summary);
    assert.doesNotMatch(tampered.out, /would not mount:/, 'no per-server line repeats the declaration\'s refusal');
  });

  it('doctor names a server that the last session\'s first request went without (still starting), as the DSH plugin recorded it', async () => {
    const folder = workspace(JSON.stringify({ servers: { slow: { command: NODE, args: ['s.js'] }, fast: { command: NODE, args: ['f.js'] } } }));
    const home = tempDir('cli-usability-home-');
    const ws = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await cli(['export', ...ws])).code, 0);
    assert.equal((await cli(['trust', 'pinned', ...ws])).code, 0);
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    const store = testPorts(home).store;
    for (const s of declaration.servers) await store.approve(folder, s.serverName, s.pin);
    const pin = declaration.servers.find((s: { serverName: string }) => s.serverName === 'slow').pin;
    assert.match((await cli(['doctor', ...ws])).out, /^Would mount: slow, fast; would not: none\.$/m);

    await store.recordSlowStarts(folder, new Map([['slow', { pin, at: '2026-12-01T20:00:00.000Z', startingMs: 3120, waitMs: 3000, headless: false }]]));
    let doctor = await cli(['doctor', ...ws]);
    assert.match(doctor.out, /^\u26a0 slow: in the last DSH session here \(2026-12-01T20:00:00\.000Z\), the request that started it went without it: it was still starting after 3\.1 s \(the request waited 3\.0 s\)\.$/m);
    assert.match(doctor.out, /^ {2}fix: wait longer: startWaitMs in the dsh-bridge row/m);
    assert.match(doctor.out, /^Would mount: slow \(not in the first request of the last session: still starting after 3\.1 s\), fast; would not: none\.$/m);
    const json = JSON.parse((await cli(['doctor', '--json', ...ws])).out);
    assert.deepEqual(json.slowStarts, [{ serverName: 'slow', at: '2026-12-01T20:00:00.000Z', startingMs: 3120, waitMs: 3000, headless: false }]);
    // The editor's Doctor view lists each fix once, apart from the lines: the slow start's advice is one of them.
    const report = await doctorReport(testPorts(home), { folder, profile: 'headless' });
    assert.ok(doctorFixes(report).some((f) => f.command.startsWith('wait longer: startWaitMs') && f.code === undefined && f.servers.includes('slow')), JSON.stringify(doctorFixes(report)));
    assert.ok(!doctorLines(report, undefined, false).some((l) => /fix: /.test(l)), 'no fix line when the face lists the fixes');

    // Up later in that session: said too. A record of another pin (an older entry) is not this server's.
    await store.recordSlowStarts(folder, new Map([['slow', { pin, at: '2026-12-01T20:00:00.000Z', startingMs: 3120, waitMs: 3000, headless: false, upAfterMs: 5400 }]]));
    assert.match((await cli(['doctor', ...ws])).out, /; it was up after 5\.4 s\.$/m);
    await store.recordSlowStarts(folder, new Map([['slow', { pin: `sha256:${'0'.repeat(64)}`, at: '2026-12-01T20:00:00.000Z', startingMs: 3120, waitMs: 3000, headless: false }]]));
    doctor = await cli(['doctor', ...ws]);
    assert.doesNotMatch(doctor.out, /last DSH session/);
    // A later first request that had it: forgotten.
    await store.recordSlowStarts(folder, new Map(), ['slow']);
    assert.equal((await store.slowStarts(folder)).size, 0);
  });

  it('export says what it did about language servers, and in trust mode pinned which new pins await approval, with the approve command', async () => {
    const home = tempDir('cli-usability-home-');
    const plain = workspace(SOURCE);
    const none = await cli(['export', '--workspace', plain, '--dsh-home', home]);
    assert.match(none.out, /^Language servers: none \(dsh\.lsp\.servers is not set\)\.$/m);
    assert.doesNotMatch(none.out, /await/, 'trust mode ask: no pin awaits an approval');

    const folder = workspace(SOURCE, LSP_SETTINGS);
    const ws = ['--workspace', folder, '--dsh-home', home];
    const dry = await cli(['export', '--dry-run', ...ws]);
    assert.match(dry.out, /^Language servers: 1 language server would be in the lsp section \(ts\)\.$/m);
    assert.equal((await cli(['trust', 'pinned', ...ws])).code, 0);
    const exported = await cli(['export', ...ws]);
    assert.match(exported.out, /^Language servers: 1 language server is in the lsp section \(ts\)\.$/m);
    // keyed waits for its input value, not for an approval.
    assert.match(exported.out, /^Trust mode "pinned": 2 new pins await approval before they start without asking \(fx, lsp\)\. Approve with:$/m);
    for (const name of ['fx', 'lsp']) assert.match(exported.out, new RegExp(`^ {2}dsh-bridge approve ${name} --workspace ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const json = JSON.parse((await cli(['export', '--json', ...ws])).out);
    assert.deepEqual(json.languageServers, ['ts']);
    assert.deepEqual(json.awaitingApproval.map((a: { name: string }) => a.name), ['fx', 'lsp']);

    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    const store = testPorts(home).store;
    for (const s of declaration.servers) await store.approve(folder, s.serverName, s.pin);
    const again = await cli(['export', ...ws]);
    assert.match(again.out, /^Trust mode "pinned": 1 new pin awaits approval before it starts without asking \(lsp\)\. Approve with:$/m);
  });
});
