// A git project with skills in both project roots and a user root, for the skill gate's tests (core and CLI).
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../helpers';

export const skill = (name: string, body = `${name} body`) => `---\nname: ${name}\ndescription: ${name} does things\n---\n\n${body}\n`;
export function put(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A git project with skills in both project roots, and a user root sharing one name. */
export function project() {
  const base = tempDir('skill-gate-');
  const folder = path.join(base, 'project');
  const home = path.join(base, 'dsh-home');
  const agentsHome = path.join(base, 'agents-home');
  mkdirSync(path.join(folder, '.git'), { recursive: true });
  put(path.join(folder, '.dsh/skills/alpha/SKILL.md'), skill('alpha'));
  put(path.join(folder, '.agents/skills/beta.md'), skill('beta'));
  put(path.join(folder, '.agents/skills/shared/SKILL.md'), skill('shared', 'PROJECT'));
  put(path.join(home, 'skills/shared/SKILL.md'), skill('shared', 'USER'));
  return { folder, home, agentsHome, dsh: path.join(folder, '.dsh/skills'), agents: path.join(folder, '.agents/skills'), user: path.join(home, 'skills') };
}
