import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ExportError } from '../../src/core/app/export';
import { verifyFolder } from '../../src/core/app/verify';
import { HostStore } from '../../src/core/node/hostStore';
import { exportFolder, testPorts, tempDir, workspace } from './helpers';

/** Regression tests of issue "Hardening", items 7, 14, 15, 16: nothing written outside, no leftovers. */

const MCP = '{"servers": {"s": {"command": "node"}}}';
const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);

/** The id of a process that has exited (its temp files are abandoned). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => !lstatSync(path.join(dir, f)).isDirectory());
}

describe('hardening: files (regressions)', () => {
  it('14: a racing swapper turning .dsh into a link out of the workspace never gets a file written outside', async function () {
    this.timeout(120000);
    const folder = workspace(MCP);
    const outside = tempDir('outside-');
    const home = tempDir();
    mkdirSync(path.join(folder, '.dsh'));
    // Swaps .dsh between the real folder and a link to `outside` as fast as it can.
    const swapper = spawn(process.execPath, ['-e', `
      const fs = require('node:fs');
      process.chdir(${JSON.stringify(folder)});
      for (;;) {
        try { fs.rmSync('.dsh-parked', { recursive: true, force: true }); fs.renameSync('.dsh', '.dsh-parked'); fs.symlinkSync(${JSON.stringify(outside)}, '.dsh'); } catch {}
        try { fs.unlinkSync('.dsh'); fs.renameSync('.dsh-parked', '.dsh'); } catch {}
      }`], { stdio: 'ignore' });
    let refused = 0;
    let written = 0;
    try {
      for (let i = 0; i < 150; i++) {
        writeFileSync(path.join(folder, '.vscode/mcp.json'), MCP.replace('node', `node${i}`));
        try {
          if ((await run(folder, home)).written) written++;
        } catch (error) {
          if (!(error instanceof ExportError)) throw error;
          refused++;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    assert.deepEqual(allFiles(outside), [], 'files were written outside the workspace');
    assert.ok(refused > 0 && written > 0, `the race was not exercised (written ${written}, refused ${refused})`);
  });

  it('14: .dsh as a link out of the workspace is refused before anything is created', async () => {
    const folder = workspace(MCP);
    const outside = tempDir('outside-');
    symlinkSync(outside, path.join(folder, '.dsh'));
    await assert.rejects(run(folder, tempDir()), /\.dsh is a link that leaves the workspace folder/);
    assert.deepEqual(allFiles(outside), []);
  });

  it('15: abandoned temp files of an export killed midway are removed by the next export; a live writer\'s are kept', async () => {
    const folder = workspace(MCP);
    mkdirSync(path.join(folder, '.dsh'));
    const dead = `.declaration.json.${deadPid()}-0123456789ab.tmp`;
    const live = `.declaration.json.${process.ppid}-0123456789ab.tmp`;
    writeFileSync(path.join(folder, '.dsh', dead), '{"partial');
    writeFileSync(path.join(folder, '.dsh', live), '{"in progress');
    writeFileSync(path.join(folder, '.dsh', '.unrelated.tmp'), 'not ours');
    await run(folder, tempDir());
    const left = readdirSync(path.join(folder, '.dsh'));
    assert.ok(!left.includes(dead));
    assert.ok(left.includes(live));
    assert.ok(left.includes('.unrelated.tmp'));
  });

  it('15: .dsh/.gitignore keeps the temp files out of git status', async () => {
    const folder = workspace(MCP);
    execFileSync('git', ['init', '-q'], { cwd: folder });
    await run(folder, tempDir());
    writeFileSync(path.join(folder, '.dsh', `.declaration.json.${process.pid}-0123456789ab.tmp`), '{"partial');
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: folder, encoding: 'utf8' });
    assert.deepEqual(status.split('\n').filter((l) => l.includes('.dsh/')), ['?? .dsh/.gitignore']);
  });

  it('15: inputs forget removes the temp copies of the folder record (secrets included), whoever wrote them', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.setInput(folder, 'token', 'canary-secret-1');
    const dir = path.dirname(store.folderFile(folder));
    const base = path.basename(store.folderFile(folder));
    writeFileSync(path.join(dir, `.${base}.${deadPid()}-0123456789ab.tmp`), '{"inputs": {"token": "canary-secret-2"}');
    writeFileSync(path.join(dir, `.${base}.${process.ppid}-0123456789ab.tmp`), '{"inputs": {"token": "canary-secret-3"}');
    const otherFolder = path.join(dir, `.${'0'.repeat(64)}.json.${process.ppid}-0123456789ab.tmp`);
    writeFileSync(otherFolder, '{}');
    await store.forgetInput(folder);
    for (const f of allFiles(home)) assert.ok(!readFileSync(path.join(home, f), 'utf8').includes('canary-secret'), f);
    assert.ok(existsSync(otherFolder), 'another folder\'s temp file is not this forget\'s business');
  });

  it('16: an existing bridge/ with mode 0755 is tightened to 0700, and the log says so', async function () {
    if (process.platform === 'win32') this.skip();
    const home = tempDir();
    mkdirSync(path.join(home, 'bridge/folders'), { recursive: true, mode: 0o755 });
    execFileSync('chmod', ['0755', path.join(home, 'bridge'), path.join(home, 'bridge/folders')]);
    const lines: string[] = [];
    await new HostStore(home, { log: (l) => lines.push(l) }).setInput(tempDir(), 'id', 'v');
    assert.equal(statSync(path.join(home, 'bridge')).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(home, 'bridge/folders')).mode & 0o777, 0o700);
    assert.equal(lines.length, 2);
    assert.match(lines.join('\n'), /bridge had mode 0755; tightened to 0700/);
  });

  describe('7: a repository\'s own .dsh/.gitignore', () => {
    it('is kept (the declaration may be committed); only the temp-file rule is added', async () => {
      const own = '# ours: the declaration is committed\ndeclaration.schema.json';
      const folder = workspace(MCP, { '.dsh/.gitignore': own });
      const home = tempDir();
      await run(folder, home);
      const text = readFileSync(path.join(folder, '.dsh/.gitignore'), 'utf8');
      assert.ok(text.startsWith(`${own}\n`));
      assert.ok(!/^declaration\.json$/m.test(text));
      assert.match(text, /^\.\*\.tmp$/m);
      await run(folder, home);
      assert.equal(readFileSync(path.join(folder, '.dsh/.gitignore'), 'utf8'), text, 'the rule is added once');
      execFileSync('git', ['init', '-q'], { cwd: folder });
      const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: folder, encoding: 'utf8' });
      assert.match(status, /\?\? \.dsh\/declaration\.json/);
    });

    it('that is not a regular file inside the workspace stops the export, saying why', async () => {
      const outside = tempDir('outside-');
      writeFileSync(path.join(outside, 'ignore'), 'x\n');
      const linked = workspace(MCP, { '.dsh/keep': '' });
      symlinkSync(path.join(outside, 'ignore'), path.join(linked, '.dsh/.gitignore'));
      await assert.rejects(run(linked, tempDir()), /\.dsh\/\.gitignore cannot be used \(outside workspace\)/);
      assert.equal(readFileSync(path.join(outside, 'ignore'), 'utf8'), 'x\n');
      const fifo = workspace(MCP, { '.dsh/keep': '' });
      execFileSync('mkfifo', [path.join(fifo, '.dsh/.gitignore')]);
      await assert.rejects(run(fifo, tempDir()), /\.dsh\/\.gitignore cannot be used \(not a regular file\)/);
      assert.ok(!existsSync(path.join(fifo, '.dsh/declaration.json')));
    });
  });

  it('the declaration written through the held folder verifies', async () => {
    const folder = workspace(MCP);
    const home = tempDir();
    await run(folder, home);
    assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);
  });
});
