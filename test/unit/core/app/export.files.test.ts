import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ExportError } from '../../../../src/core/app/export';
import { tempDir, workspace, allFiles, deadPid, exportFolder, testPorts } from '../../helpers';
import { cliJson } from '../../cli/cli.fixture';
import { verifyFolder } from '../../../../src/core/app/verify';

/**
 * The declaration's folder under attack (hardening items 7, 12, 14, 15): nothing is written outside
 * the workspace, the declaration path is opened only through the safe reader, no temp file is left.
 */

describe('export: the declaration path (hardening regression 12)', () => {
  describe('12: the declaration path is never opened except through the safe reader', () => {
    const mcp = '{"servers": {"s": {"command": "node"}}}';
    const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);

    it('a FIFO at the target: replaced, no hang', async function () {
      this.timeout(10000);
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh'));
      execFileSync('mkfifo', [path.join(folder, '.dsh/declaration.json')]);
      execFileSync('mkfifo', [path.join(folder, '.dsh/declaration.schema.json')]);
      const home = tempDir();
      const result = await run(folder, home);
      assert.equal(result.written, true);
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.json')).isFile());
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.schema.json')).isFile());
      assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);
    });

    it('a link to /dev/zero at the target: replaced without reading it', async () => {
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh'));
      symlinkSync('/dev/zero', path.join(folder, '.dsh/declaration.json'));
      const before = process.memoryUsage().rss;
      const result = await run(folder, tempDir());
      assert.equal(result.written, true);
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'read far more than a declaration');
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.json')).isFile());
    });

    it('a directory at the target: a clear error, in the CLI\'s JSON object', async () => {
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh/declaration.json'), { recursive: true });
      const { code, json } = await cliJson(['export', '--workspace', folder, '--dsh-home', tempDir()]);
      assert.equal(code, 1);
      assert.match(String(json.error), /declaration\.json is a folder, not a file; nothing was written/);
      rmSync(path.join(folder, '.dsh/declaration.json'), { recursive: true });
      writeFileSync(path.join(folder, '.dsh/declaration.json'), 'old');
      assert.equal((await cliJson(['export', '--workspace', folder, '--dsh-home', tempDir()])).code, 0);
      assert.notEqual(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'), 'old');
    });
  });
});

describe('export: the declaration\'s folder, nothing written outside and no leftovers (hardening regressions 7, 14, 15)', () => {
  const MCP = '{"servers": {"s": {"command": "node"}}}';
  const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);

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
