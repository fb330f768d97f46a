import * as path from 'node:path';
import type { SkillFs } from './skillFileAccess';

/** Nearest ancestor of `cwd` (itself included) holding `.git`, else `cwd`. */
export async function findProjectRoot(cwd: string, fs: Pick<SkillFs, 'exists'>): Promise<string> {
  let current = path.resolve(cwd);
  for (;;) {
    if (await fs.exists(path.join(current, '.git'))) return current;
    const parent = path.dirname(current);
    if (parent === current) return path.resolve(cwd);
    current = parent;
  }
}
