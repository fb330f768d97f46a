// Builds the skill-discovery fixture tree in a temporary folder: test/fixtures/skills plus what git
// cannot hold (a .git folder, an empty skill directory, CRLF and BOM files, symbolic links).
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const FIXTURE = path.resolve(__dirname, '../../../fixtures/skills');

export interface SkillFixture {
  dir: string;
  cwd: string;
  projectRoot: string;
  dshHome: string;
  agentsHome: string;
  customRoots: string[];
}

export async function makeSkillFixture(): Promise<SkillFixture> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dsh-skills-'));
  await cp(FIXTURE, dir, { recursive: true });
  const project = path.join(dir, 'project');
  const skills = path.join(project, '.dsh/skills');
  await mkdir(path.join(project, '.git'));
  await mkdir(path.join(skills, 'empty-dir'));
  await mkdir(path.join(skills, 'crlf'));
  await writeFile(path.join(skills, 'crlf/SKILL.md'), '---\r\nname: crlf\r\ndescription: Windows line ends.\r\nuser-invocable: "False"\r\n---\r\nBody\r\n');
  await mkdir(path.join(skills, 'crlf-bad'));
  await writeFile(path.join(skills, 'crlf-bad/SKILL.md'), '---\r\nname: Crlf-Bad\r\ndescription: x\r\n---\r\n');
  await mkdir(path.join(skills, 'bom'));
  await writeFile(path.join(skills, 'bom/SKILL.md'), '\uFEFF---\nname: bom\ndescription: A byte order mark hides the front matter from DSH.\n---\n');
  const elsewhere = path.join(dir, 'elsewhere');
  await mkdir(path.join(elsewhere, 'linked-skill'), { recursive: true });
  await writeFile(path.join(elsewhere, 'linked-skill/SKILL.md'), '---\nname: linked\ndescription: Reached through a symbolic link.\n---\n');
  await writeFile(path.join(elsewhere, 'linked-skill/script.sh'), 'echo hi\n');
  await writeFile(path.join(elsewhere, 'file-skill.md'), '---\nname: linked-file\ndescription: A linked flat file.\n---\n');
  await symlink(path.join(elsewhere, 'linked-skill'), path.join(skills, 'linked'));
  await symlink(path.join(elsewhere, 'file-skill.md'), path.join(skills, 'linked-file.md'));
  await symlink(path.join(dir, 'does-not-exist'), path.join(skills, 'broken-link.md'));
  return {
    dir,
    cwd: path.join(project, 'sub/dir'),
    projectRoot: project,
    dshHome: path.join(dir, 'dsh-home'),
    agentsHome: path.join(dir, 'agents-home'),
    customRoots: [path.join(dir, 'custom-a'), path.join(dir, 'custom-b')],
  };
}
