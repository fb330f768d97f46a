import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { discoverSkills } from '../../../../src/core/skills/discovery';
import { hashSkillRoot } from '../../../../src/core/skills/rootPins';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';
import { tempDir } from '../../helpers';

/** Regression tests of issue "Hardening", item 13: skill discovery never hangs or reads huge or outside files. */

const SKILL = '---\nname: fine\ndescription: A fine skill.\n---\nBody\n';

describe('hardening: skill files are read only through the safe reader (item 13)', function () {
  this.timeout(20000);

  function project() {
    const cwd = tempDir('skills-ws-');
    mkdirSync(path.join(cwd, '.git'));
    const root = path.join(cwd, '.dsh/skills');
    mkdirSync(path.join(root, 'fine'), { recursive: true });
    writeFileSync(path.join(root, 'fine/SKILL.md'), SKILL);
    const home = tempDir('skills-home-');
    return { cwd, root, options: { cwd, customRoots: [] as string[], dshHome: path.join(home, 'dsh'), agentsHome: path.join(home, 'agents') } };
  }

  it('a FIFO, a link to /dev/zero or /dev/stdin, a 1.5 GiB sparse file and a link out: refused with a problem each, quickly', async () => {
    const { root, options } = project();
    const outside = tempDir('outside-');
    writeFileSync(path.join(outside, 'SKILL.md'), '---\nname: stolen\ndescription: Outside.\n---\n');
    for (const name of ['fifo', 'zero', 'stdin', 'sparse', 'linked']) mkdirSync(path.join(root, name));
    execFileSync('mkfifo', [path.join(root, 'fifo/SKILL.md')]);
    symlinkSync('/dev/zero', path.join(root, 'zero/SKILL.md'));
    symlinkSync('/dev/stdin', path.join(root, 'stdin/SKILL.md'));
    execFileSync('truncate', ['-s', '1536M', path.join(root, 'sparse/SKILL.md')]);
    symlinkSync(path.join(outside, 'SKILL.md'), path.join(root, 'linked/SKILL.md'));
    const started = Date.now();
    const before = process.memoryUsage().rss;
    const d = await discoverSkills(options, nodeSkillFs);
    assert.ok(Date.now() - started < 10000, 'discovery took too long');
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'discovery read far too much');
    const refused = d.problems.filter((p) => p.code === 'skill-unreadable').map((p) => [path.basename(path.dirname(p.file)), p.message]);
    assert.deepEqual(refused.map(([dir]) => dir).sort(), ['fifo', 'linked', 'sparse', 'stdin', 'zero']);
    assert.match(String(refused.find(([dir]) => dir === 'sparse')![1]), /larger than the limit/);
    assert.match(String(refused.find(([dir]) => dir === 'linked')![1]), /link that leaves its skill root/);
    assert.match(String(refused.find(([dir]) => dir === 'fifo')![1]), /not a regular file/);
    assert.deepEqual(d.winners.map((w) => w.analysis.skill!.name), ['fine']);
    // The root's pin: the sparse file is over the byte budget, so the root is too large to pin.
    const report = d.roots.find((r) => r.kind === 'project-dsh')!;
    assert.equal(report.tooLarge, true);
    assert.equal(report.pin, undefined);
  });

  it('hashing skips a FIFO, a device and a link out of a project root, without reading them', async () => {
    const { root } = project();
    const outside = tempDir('outside-');
    writeFileSync(path.join(outside, 'data'), 'outside');
    const base = await hashSkillRoot({ path: root, skipSystem: false, kind: 'project-dsh' }, nodeSkillFs);
    execFileSync('mkfifo', [path.join(root, 'fine/pipe')]);
    symlinkSync('/dev/zero', path.join(root, 'fine/zero'));
    symlinkSync(path.join(outside, 'data'), path.join(root, 'fine/data'));
    const after = await hashSkillRoot({ path: root, skipSystem: false, kind: 'project-dsh' }, nodeSkillFs);
    assert.equal(after.pin, base.pin);
    assert.equal(after.files, 1);
  });

  it('a custom root (the user\'s own setting) follows its links out, as DSH does', async () => {
    const { options } = project();
    const custom = tempDir('custom-');
    const outside = tempDir('outside-');
    mkdirSync(path.join(outside, 'shared'));
    writeFileSync(path.join(outside, 'shared/SKILL.md'), '---\nname: shared\ndescription: Shared skill.\n---\n');
    symlinkSync(path.join(outside, 'shared'), path.join(custom, 'shared'));
    const d = await discoverSkills({ ...options, customRoots: [custom] }, nodeSkillFs);
    assert.ok(d.winners.some((w) => w.analysis.skill!.name === 'shared'));
    assert.ok(!d.problems.some((p) => p.code === 'skill-unreadable'));
  });
});
