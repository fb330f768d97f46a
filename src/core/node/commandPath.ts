/** PATH probing for language-server commands: the file-system half of the core's LSP checks. */
import { constants, fs } from './fsReads';

const { access, stat } = fs;
import * as path from 'node:path';
import type { CommandResolver } from '../lsp/lspCommand';

export interface PathResolverOptions {
  /** The environment DSH starts with; its PATH, unless a server's `env` sets PATH. */
  env: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

/**
 * A {@link CommandResolver} like dsh-subprocess's `resolveExecutable`: an absolute path must be an
 * executable regular file; a bare name is searched on PATH (the server's own `env.PATH` wins, and
 * on Windows each PATHEXT suffix is tried). Reads the file system through ./fsReads.
 */
export function createPathResolver(options: PathResolverOptions): CommandResolver {
  const platform = options.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const isExecutable = async (file: string): Promise<boolean> => {
    try {
      if (!(await stat(file)).isFile()) return false;
      if (platform !== 'win32') await access(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return async (command, env) => {
    if (p.isAbsolute(command)) return (await isExecutable(command)) ? command : undefined;
    if (/[/\\]/.test(command)) return undefined;
    const pathValue = env.PATH ?? options.env.PATH ?? (platform === 'win32' ? options.env.Path : undefined) ?? '';
    const suffixes = platform === 'win32'
      ? ['', ...(env.PATHEXT ?? options.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
      : [''];
    for (const dir of pathValue.split(platform === 'win32' ? ';' : ':')) {
      if (dir === '') continue;
      for (const suffix of suffixes) {
        const candidate = p.join(dir, command + suffix);
        if (await isExecutable(candidate)) return candidate;
      }
    }
    return undefined;
  };
}
