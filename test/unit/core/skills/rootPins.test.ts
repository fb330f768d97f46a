import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { discoverSkills } from '../../../../src/core/skills/discovery';
import { hashSkillRoot } from '../../../../src/core/skills/rootPins';
import { skillTrustState, skillsDeclarationSection } from '../../../../src/core/skills/rootTrust';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';

describe('skills: content pins and trust', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(path.join(tmpdir(), 'dsh-pin-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const put = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  };
  const pin = async (root = 'root', skipSystem = false) => (await hashSkillRoot({ path: path.join(dir, root), skipSystem }, nodeSkillFs)).pin;

  it('follows the documented algorithm', async () => {
    await put('root/b/SKILL.md', 'B');
    await put('root/a.md', 'AA');
    await put('root/b/scripts/run.sh', 'echo');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const expected = createHash('sha256')
      .update('dsh-bridge skill-root v1\n')
      .update(`a.md\0${2}\0${sha('AA')}\n`)
      .update(`b/SKILL.md\0${1}\0${sha('B')}\n`)
      .update(`b/scripts/run.sh\0${4}\0${sha('echo')}\n`)
      .digest('hex');
    assert.equal(await pin(), `sha256:${expected}`);
  });

  it('is deterministic across folders and creation order, and changes with any file', async () => {
    await put('root/x/SKILL.md', '---\nname: x\n---\n');
    await put('root/x/ref.md', 'ref');
    await put('other/x/ref.md', 'ref');
    await put('other/x/SKILL.md', '---\nname: x\n---\n');
    const first = await pin();
    assert.equal(first, await pin('other'));
    await mkdir(path.join(dir, 'root/empty'));
    assert.equal(await pin(), first, 'an empty directory changes nothing');
    await put('root/x/ref.md', 'ref2');
    const second = await pin();
    assert.notEqual(second, first);
    await put('root/x/new.txt', '');
    assert.notEqual(await pin(), second, 'a new file, even empty, changes the pin');
  });

  it('skips .system only for the DSH home root; survives link cycles; no pin for a missing root', async () => {
    await put('root/s/SKILL.md', 's');
    const base = await pin('root', true);
    await put('root/.system/x/SKILL.md', 'sys');
    assert.equal(await pin('root', true), base);
    assert.notEqual(await pin('root', false), base);
    await symlink(path.join(dir, 'root'), path.join(dir, 'root/s/loop'));
    assert.match((await pin('root', true)) ?? '', /^sha256:/);
    assert.deepEqual(await hashSkillRoot({ path: path.join(dir, 'missing'), skipSystem: false }, nodeSkillFs), { files: 0, bytes: 0 });
  });

  it('refuses to pin a root over the limits', async () => {
    await put('root/a.md', 'a');
    await put('root/b.md', 'b');
    const content = await hashSkillRoot({ path: path.join(dir, 'root'), skipSystem: false }, nodeSkillFs, { maxFiles: 1 });
    assert.equal(content.pin, undefined);
    assert.equal(content.tooLarge, true);
  });

  it('trust states from recorded pins, and the declaration section', async () => {
    assert.equal(skillTrustState('sha256:1', undefined), 'untrusted');
    assert.equal(skillTrustState('sha256:1', 'sha256:1'), 'trusted');
    assert.equal(skillTrustState('sha256:2', 'sha256:1'), 'changed');
    assert.equal(skillTrustState(undefined, 'sha256:1'), 'changed');

    await put('p/.git/HEAD', '');
    await put('p/.dsh/skills/one/SKILL.md', '---\nname: one\ndescription: d\n---\n');
    await put('p/.dsh/skills/bad.md', '---\nname: Bad\ndescription: d\n---\n');
    const options = { cwd: path.join(dir, 'p'), dshHome: path.join(dir, 'h'), agentsHome: path.join(dir, 'g') };
    const before = await discoverSkills(options, nodeSkillFs);
    const root = path.join(dir, 'p/.dsh/skills');
    const untrusted = skillsDeclarationSection(before, {});
    assert.deepEqual(untrusted.roots.map((r) => [r.path, r.kind, r.rank, r.trust, r.skills]), [[root, 'project-dsh', 100, 'untrusted', ['one']]]);
    const recorded = { [root]: untrusted.roots[0].pin! };
    assert.equal(skillsDeclarationSection(before, recorded).roots[0].trust, 'trusted');
    await put('p/.dsh/skills/one/SKILL.md', '---\nname: one\ndescription: changed by an agent\n---\n');
    assert.equal(skillsDeclarationSection(await discoverSkills(options, nodeSkillFs), recorded).roots[0].trust, 'changed');
  });
});
