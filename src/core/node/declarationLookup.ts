import { fs } from './fsReads';
import * as path from 'node:path';
import { findProjectRoot } from '../skills/projectRoot';
import { nodeSkillFs } from './skillFs';
import { DECLARATION_PATH } from '../declaration/declarationModel';

export interface DeclarationLookup {
  /** The folder holding the nearest `.dsh/declaration.json`, if any. */
  folder?: string;
  /** Every folder looked in, nearest first (for the "where it looked" line). */
  looked: string[];
}

/**
 * The nearest folder at or above `cwd` holding `.dsh/declaration.json`. The walk stops at the
 * project root (the nearest folder holding `.git`, found by the same function DSH's skill
 * discovery rule uses here) and never goes above `home`. Without a `.git` above, only `cwd`
 * itself is looked at, as DSH's project root is then `cwd`. Never throws.
 */
export async function findDeclarationFolder(cwd: string, home: string): Promise<DeclarationLookup> {
  const start = path.resolve(cwd);
  const looked: string[] = [];
  let projectRoot: string;
  try {
    projectRoot = await findProjectRoot(start, nodeSkillFs);
  } catch {
    projectRoot = start;
  }
  const homeDir = path.resolve(home);
  for (let current = start; ; current = path.dirname(current)) {
    looked.push(current);
    const found = await fs.stat(path.join(current, DECLARATION_PATH)).then((s) => s.isFile(), () => false);
    if (found) return { folder: current, looked };
    // The home is a stop too: a session inside it never reads a declaration above it.
    if (current === projectRoot || current === homeDir || path.dirname(current) === current) return { looked };
  }
}
