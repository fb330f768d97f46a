import { fs } from './fsReads';

/** The first of `dirs` that is a folder (a link to one counts), else undefined. Never throws. */
export async function firstExistingDir(dirs: readonly string[]): Promise<string | undefined> {
  for (const dir of dirs) {
    if (await fs.stat(dir).then((s) => s.isDirectory(), () => false)) return dir;
  }
  return undefined;
}
