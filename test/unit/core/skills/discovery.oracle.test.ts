// Conformance with DSH's own skill discovery (contract section 7): the same trees give the same
// kept/dropped files, the same parsed fields and the same winners as the real
// @deepseek-ai/dsh-skill + dsh-skill-filesystem 0.1.0-rc.8. The oracle runs in a child process
// (test/oracle/skills/oracle.mjs) so its own node_modules resolve; install it with
// scripts/setup-oracles.sh.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { discoverSkills, type SkillCandidate, type SkillDiscovery } from '../../../../src/core/skills/discovery';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';
import { makeSkillFixture, type SkillFixture } from './skills.fixture';

const ORACLE_DIR = path.resolve(__dirname, '../../../oracle/skills');
const installed = ['@deepseek-ai/dsh-skill', '@deepseek-ai/dsh-skill-filesystem']
  .every((pkg) => existsSync(path.join(ORACLE_DIR, 'node_modules', pkg, 'package.json')));
const SEED = Number(process.env.FC_SEED ?? 20261130);

interface OracleCase { cwd: string; dshHome: string; agentsHome: string; customSkillDirs: string[] }
interface OracleResult {
  candidates: Array<{ name: string; description: string; whenToUse?: string; invocation: unknown; metadata?: unknown; source: string; rank: number; path: string }>;
  winners: Array<{ name: string; source: string; directory: string; invocation: unknown }>;
  complete: boolean;
  ignored: Array<{ path: string; reason: string }>;
  logs: string[];
}

function runOracle(cases: OracleCase[]): OracleResult[] {
  const node = process.env.DSH_ORACLE_NODE ?? process.execPath;
  const env = { ...process.env };
  delete env.DSH_AGENTS_HOME;
  delete env.DSH_HOME;
  const run = spawnSync(node, [path.join(ORACLE_DIR, 'oracle.mjs')], {
    cwd: ORACLE_DIR, input: JSON.stringify(cases), encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`oracle failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleResult[];
}

/** Our kept candidates in DSH's discovery order, in the oracle's shape. */
function keptOf(discovery: SkillDiscovery): OracleResult['candidates'] {
  return discovery.roots.flatMap((root) => root.candidates.flatMap((c) => {
    const s = c.analysis.skill;
    if (!s) return [];
    return [{ name: s.name, description: s.description, whenToUse: s.whenToUse, invocation: s.invocation, metadata: s.metadata, source: root.kind, rank: root.rank, path: c.file }];
  }));
}

const strip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const directoryOf = (c: SkillCandidate) => (path.basename(c.file) === 'SKILL.md' ? path.dirname(c.file) : c.root.path);

describe('skills conformance with @deepseek-ai/dsh-skill-filesystem (oracle)', function () {
  this.timeout(120_000);
  if (!installed) {
    it.skip('SKIPPED: skills oracle not installed; run scripts/setup-oracles.sh (test/oracle/skills)');
    return;
  }

  describe('the fixture tree (test/fixtures/skills + links, CRLF, BOM)', () => {
    let fx: SkillFixture;
    let ours: SkillDiscovery;
    let dsh: OracleResult;
    before(async () => {
      fx = await makeSkillFixture();
      ours = await discoverSkills({ cwd: fx.cwd, customRoots: fx.customRoots, dshHome: fx.dshHome, agentsHome: fx.agentsHome, hash: false }, nodeSkillFs);
      [dsh] = runOracle([{ cwd: fx.cwd, dshHome: fx.dshHome, agentsHome: fx.agentsHome, customSkillDirs: fx.customRoots }]);
    });
    after(() => rm(fx.dir, { recursive: true, force: true }));

    // The one deliberate difference: DSH follows a link out of a project root; the bridge refuses
    // it (a repository could point it at /dev/zero or a FIFO) and says so with skill-unreadable.
    const linkedOut = () => new Set(ours.problems.filter((p) => p.code === 'skill-unreadable' && /leaves its skill root/.test(String(p.args?.reason))).map((p) => p.file));
    const dshKept = () => dsh.candidates.filter((c) => !linkedOut().has(c.path));

    it('refuses exactly the links out of a project root that DSH follows, with a located problem', () => {
      assert.deepEqual([...linkedOut()].map((f) => f.slice(f.lastIndexOf('/.dsh/') + 1)).sort(), ['.dsh/skills/linked-file.md', '.dsh/skills/linked/SKILL.md']);
      for (const file of linkedOut()) assert.ok(dsh.candidates.some((c) => c.path === file), `DSH does not load ${file}: the fixture no longer shows the difference`);
    });

    it('keeps the same skills, in the same order, with the same parsed fields', () => {
      assert.ok(dsh.candidates.length >= 20, 'the fixture should keep many skills');
      assert.deepEqual(strip(keptOf(ours)), strip(dshKept()));
    });

    it('drops the same files', () => {
      const dropped = ours.roots.flatMap((r) => r.candidates.filter((c) => !c.analysis.kept).map((c) => c.file)).sort();
      assert.ok(dropped.length >= 15, 'the fixture should drop many files');
      assert.deepEqual(dropped, [...new Set(dsh.ignored.map((i) => i.path))].sort());
      for (const file of dropped) {
        const c = ours.roots.flatMap((r) => r.candidates).find((x) => x.file === file)!;
        assert.ok(c.analysis.problems.length > 0, `${file} is dropped without a problem`);
      }
    });

    it('picks the same winners', () => {
      const winners = ours.winners.map((c) => ({ name: c.analysis.skill!.name, source: c.root.kind, directory: directoryOf(c), invocation: c.analysis.skill!.invocation }));
      const refused = new Set(dsh.candidates.filter((c) => linkedOut().has(c.path)).map((c) => `${c.source}/${c.name}`));
      const dshWinners = dsh.winners.filter((w) => !refused.has(`${w.source}/${w.name}`));
      assert.deepEqual(winners, dshWinners);
      const shadowLogs = dsh.logs.filter((l) => /ignored because a higher-priority skill already exists/.test(l));
      assert.equal(ours.problems.filter((p) => p.code === 'skill-shadowed').length, shadowLogs.length);
    });
  });

  describe('generated front matter (fast-check sample, one skill directory each)', () => {
    const nl = fc.constantFrom('\n', '\r\n');
    const flagValue = fc.constantFrom('true', 'false', 'yes', 'no', 'on', 'off', '1', '0', '"1"', '"0"', 'TRUE', 'Yes', 'oN', 'maybe', '2', "''", '~', 'null', '"true"', '[true]', '1.0', '0x1', '!!bool true', '!!str yes', 'y', 'n', '');
    const line = fc.oneof(
      fc.constantFrom('name: good-name', 'name: Bad', 'name: 123', 'name: ""', 'name:', "name: 'quoted-ok'", 'name: a--b', 'name: ok-1', 'name: [x]', 'name: -lead', 'name: trail-', 'name: über'),
      fc.constantFrom('description: Does things.', 'description: ""', 'description: " "', 'description: 5', 'description:', 'description: |\n  multi\n  line', 'description: true'),
      fc.tuple(fc.constantFrom('disable-model-invocation', 'user-invocable'), flagValue).map(([k, v]) => `${k}: ${v}`),
      fc.constantFrom('userInvocable: false', 'modelInvocable: true', 'disableModelInvocation: true'),
      fc.constantFrom('whenToUse: Later.', 'whenToUse: 7', 'whenToUse: ""', 'whenToUse: [a]'),
      fc.constantFrom('metadata: {a: 1}', 'metadata: [1]', 'metadata: x', 'metadata:\n  k: v', 'metadata: ~'),
      fc.constantFrom('other: value', '# comment', 'bad: [unclosed', '  indented: wrong', 'key: &a anchor', 'ref: *a', 'ref: *missing', 'tagged: !custom x', '...', '---x', '? complex\n: key', '<<: {name: merged}'),
    );
    const fileText = fc.record({
      open: fc.constantFrom('---', '---', '---', '---', '--- ', '\uFEFF---', '----', ''),
      close: fc.constantFrom('---', '---', '---', '---\r', ''),
      lines: fc.array(line, { minLength: 0, maxLength: 7 }),
      nl,
    }).map(({ open, close, lines, nl: eol }) => {
      const body = lines.map((l) => l.replace(/\n/g, eol)).join(eol);
      return `${open}${eol}${body}${lines.length ? eol : ''}${close}${close ? eol : ''}Body text.${eol}`;
    });
    // Most generated files should be well-formed enough to reach the later checks.
    const good = fc.record({
      extra: fc.array(line, { maxLength: 3 }),
      nl,
    }).map(({ extra, nl: eol }) => ['---', 'name: good-name', 'description: Does things.', ...extra.map((l) => l.replace(/\n/g, eol)), '---', 'Body.'].join(eol));

    let dir: string;
    let texts: string[];
    let ours: SkillDiscovery;
    let dsh: OracleResult;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'dsh-skills-gen-'));
      texts = fc.sample(fc.oneof(fileText, good), { seed: SEED, numRuns: 400 });
      const root = path.join(dir, 'root');
      for (const [i, text] of texts.entries()) {
        const skillDir = path.join(root, `s${String(i).padStart(3, '0')}`);
        await mkdir(skillDir, { recursive: true });
        await writeFile(path.join(skillDir, 'SKILL.md'), text);
      }
      await mkdir(path.join(dir, 'cwd'));
      const options = { cwd: path.join(dir, 'cwd'), dshHome: path.join(dir, 'home'), agentsHome: path.join(dir, 'agents'), customRoots: [root] };
      ours = await discoverSkills({ ...options, hash: false }, nodeSkillFs);
      [dsh] = runOracle([{ cwd: options.cwd, dshHome: options.dshHome, agentsHome: options.agentsHome, customSkillDirs: [root] }]);
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it(`keeps and drops exactly the same files with the same fields (400 files, seed ${SEED})`, () => {
      const kept = keptOf(ours);
      assert.ok(kept.length >= 60 && kept.length <= 340, `the sample should mix kept (${kept.length}) and dropped files`);
      const theirs = new Map(dsh.candidates.map((c) => [c.path, c]));
      for (const ourCandidate of ours.roots.flatMap((r) => r.candidates)) {
        const text = texts[Number(/s(\d{3})/.exec(ourCandidate.file)![1])];
        const label = `${JSON.stringify(text)}: ours ${JSON.stringify(ourCandidate.analysis.problems.map((p) => p.code))}, DSH ${dsh.ignored.find((i) => i.path === ourCandidate.file)?.reason ?? 'kept'}`;
        assert.equal(ourCandidate.analysis.kept, theirs.has(ourCandidate.file), label);
      }
      assert.deepEqual(strip(kept), strip(dsh.candidates));
    });
  });
});
