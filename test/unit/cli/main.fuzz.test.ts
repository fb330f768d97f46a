import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { main } from '../../../src/cli/main';
import { HostStore } from '../../../src/core/node/hostStore';
import { fixtureTrees, fuzzSettings, mutatedFixture, sourceFixtureFiles } from '../fuzz.mutate';
import { rawHidden } from '../helpers';

/** Fuzz of the CLI over mutated shipped fixtures and hostile option files. */
const trees = fixtureTrees();
const sourceTrees = [...trees, ...fixtureTrees(sourceFixtureFiles())];

/** Runs `main` in-process (the CLI's own code path) and returns its exit code and stdout lines. */
async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out, err };
}

function oneJsonObject(out: string[]): Record<string, unknown> {
  assert.equal(out.length, 1, `expected one line of JSON, got ${out.length}`);
  const value = JSON.parse(out[0]);
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), 'not a JSON object');
  return value;
}

describe('fuzz: the CLI over mutated fixtures and hostile option files (fast-check)', function () {
  this.timeout(0);
  const counts = { cases: 0, exported: 0, refused: 0 };
  let savedAgents: string | undefined;
  before(() => {
    assert.ok(trees.length >= 5, 'the fixtures were not found');
    savedAgents = process.env.DSH_AGENTS_HOME;
  });
  after(() => {
    if (savedAgents === undefined) delete process.env.DSH_AGENTS_HOME;
    else process.env.DSH_AGENTS_HOME = savedAgents;
    // The figures asked for in a report: how many cases ran, and how they split.
    console.log(`      fuzz: ${counts.cases} CLI cases (${counts.exported} exported and verified, ${counts.refused} refused and not verifying)`);
  });

  it('hostile option files (--user-settings, --code-workspace): a FIFO, a device, a folder, a huge or mutated file; one JSON object, never a hang', async function () {
    if (process.platform === 'win32') this.skip();
    const base = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'dsh-bridge-fuzz-options-'));
    const folder = path.join(base, 'ws');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "node"}}}');
    const fifo = path.join(base, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = path.join(base, 'huge.json');
    writeFileSync(huge, `{"x": "${'a'.repeat(1024 * 1024)}"}`);
    const kinds = ['fifo', 'device', 'folder', 'huge', 'missing', 'mutated'] as const;
    await fc.assert(fc.asyncProperty(fc.constantFrom(...kinds), fc.constantFrom('--user-settings', '--code-workspace'), mutatedFixture(sourceTrees), fc.constantFrom('export', 'check', 'verify'), async (kind, option, text, command) => {
      const file = { fifo, device: '/dev/zero', folder: base, huge, missing: path.join(base, 'nope'), mutated: path.join(base, 'mutated.json') }[kind];
      if (kind === 'mutated') writeFileSync(file, text);
      const r = await cli([command, '--workspace', folder, '--dsh-home', path.join(base, 'home'), option, file, '--json']);
      const report = oneJsonObject(r.out);
      assert.ok(!String(report.error ?? '').startsWith('internal error'), String(report.error));
      if (kind === 'mutated') assert.ok(r.code === 0 || r.code === 1 || r.code === 2, `exit ${r.code}`);
      else assert.equal(r.code, 2, `${kind}: exit ${r.code}`);
    }), fuzzSettings(60)).finally(() => rmSync(base, { recursive: true, force: true }));
  });

  it('the CLI prints its JSON object, and export and verify agree', async () => {
    // Each case writes and fsyncs real files: on a memory file system when there is one (same code, ~10x faster).
    const base = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'dsh-bridge-fuzz-'));
    const home = path.join(base, 'home');
    const folder = path.join(base, 'ws');
    process.env.DSH_AGENTS_HOME = path.join(home, 'agents');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    await fc.assert(fc.asyncProperty(mutatedFixture(trees), async (text) => {
      writeFileSync(path.join(folder, '.vscode/mcp.json'), text);
      const common = ['--workspace', folder, '--dsh-home', home, '--json'];
      const exported = await cli(['export', ...common]);
      const report = oneJsonObject(exported.out);
      assert.ok(exported.code === 0 || exported.code === 1, `exit ${exported.code}`);
      assert.ok(!String(report.error ?? '').startsWith('internal error'), String(report.error));
      // Every referenced input gets a value in the host store (ids such as "__proto__" included):
      // each is listed as stored, and forgetting one leaves the others.
      const listed = () => cli(['inputs', 'list', ...common]).then((r) => oneJsonObject(r.out).inputs as Array<{ id: string; stored: boolean; referenced: boolean }>);
      const referenced = (await listed()).filter((i) => i.referenced).map((i) => i.id);
      const store = new HostStore(home, { log: () => undefined });
      for (const id of referenced) await store.setInput(folder, id, `value of ${id}`);
      assert.deepEqual((await listed()).filter((i) => !i.stored).map((i) => i.id), [], 'a stored value is listed as missing');
      if (referenced.length) {
        await store.forgetInput(folder, referenced[0]);
        assert.deepEqual((await listed()).filter((i) => !i.stored).map((i) => i.id), [referenced[0]]);
      }
      await store.forgetInput(folder);
      // What a terminal gets: the human text of check and approve (the review of each server) hides nothing.
      for (const command of ['check', 'approve']) {
        const human = await cli([command, '--workspace', folder, '--dsh-home', home]);
        for (const line of [...human.out, ...human.err]) assert.equal(rawHidden(line), undefined, `${command}: ${line.slice(0, 200)}`);
      }
      const verified = await cli(['verify', ...common]);
      const verdict = oneJsonObject(verified.out).verify as { ok: boolean; reasons: Array<{ code: string }> };
      counts.cases++;
      if (exported.code === 0) {
        counts.exported++;
        assert.equal(report.declaration, '.dsh/declaration.json');
        assert.deepEqual(verdict.reasons, [], 'export wrote a declaration its own verify refuses');
        assert.equal(verified.code, 0);
      } else {
        counts.refused++;
        assert.equal(verdict.ok, false, 'an unusable source left a declaration that verifies');
      }
    }), fuzzSettings(300)).finally(() => rmSync(base, { recursive: true, force: true }));
  });
});
