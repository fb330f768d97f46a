/**
 * Skill roots as DSH discovers them (`@deepseek-ai/dsh-skill-filesystem` 0.1.0-rc.8, contract
 * section 5), in DSH's order and ranks: `<projectRoot>/.dsh/skills` 100,
 * `<projectRoot>/.agents/skills` 200, custom roots 300, `<dshHome>/skills` 400 (its `.system`
 * skipped), `<agentsHome>/skills` 500.
 */
import * as path from 'node:path';
import type { SkillRootKind } from '../declaration/declarationModel';
import { findProjectRoot } from './projectRoot';
import type { SkillFs } from './skillFileAccess';

/** DSH's rank of each file root kind (the kinds are part of the declaration model). */
const SKILL_ROOT_RANKS = {
  'project-dsh': 100,
  'project-agents': 200,
  custom: 300,
  'user-dsh': 400,
  'user-agents': 500,
} as const satisfies Record<SkillRootKind, number>;

export interface SkillRoot {
  path: string;
  kind: SkillRootKind;
  rank: number;
  /** `<dshHome>/skills` skips its `.system` entry. */
  skipSystem: boolean;
}

// The DSH home is resolved in one place, with the host store.

/** `$DSH_AGENTS_HOME` (used as given, even blank) or `~/.agents`, resolved against `base` (the process cwd) as dsh-skill-filesystem does. */
export function resolveAgentsHome(env: Readonly<Record<string, string | undefined>>, homedir: string, base: string): string {
  return path.resolve(base, env.DSH_AGENTS_HOME ?? path.join(homedir, '.agents'));
}

export interface SkillRootOptions {
  /** The session cwd (the workspace folder); also the base of relative custom roots. */
  cwd: string;
  /** `dsh.skills.customRoots`, in order. */
  customRoots?: readonly string[];
  /** Resolved DSH home ({@link resolveDshHome}). */
  dshHome: string;
  /** Resolved agents home ({@link resolveAgentsHome}). */
  agentsHome: string;
}

/** The file roots in DSH's order (ties in rank keep this order). */
export async function dshSkillRoots(options: SkillRootOptions, fs: Pick<SkillFs, 'exists'>): Promise<{ projectRoot: string; roots: SkillRoot[] }> {
  const projectRoot = await findProjectRoot(options.cwd, fs);
  const root = (p: string, kind: SkillRootKind): SkillRoot => ({ path: p, kind, rank: SKILL_ROOT_RANKS[kind], skipSystem: kind === 'user-dsh' });
  const roots = [
    root(path.join(projectRoot, '.dsh/skills'), 'project-dsh'),
    root(path.join(projectRoot, '.agents/skills'), 'project-agents'),
    ...(options.customRoots ?? []).map((p) => root(path.resolve(options.cwd, p), 'custom')),
    root(path.join(options.dshHome, 'skills'), 'user-dsh'),
    root(path.join(options.agentsHome, 'skills'), 'user-agents'),
  ];
  return { projectRoot, roots };
}

/**
 * Where a root's files must stay: a root that a repository can fill (project roots) or that sits in
 * a home folder is read without following links out of it; a custom root is the user's own choice
 * in a machine setting, and its links are followed as DSH follows them.
 */
export function confinedRoot(root: Pick<SkillRoot, 'path'> & Partial<Pick<SkillRoot, 'kind'>>): string | undefined {
  return root.kind === 'custom' ? undefined : root.path;
}
