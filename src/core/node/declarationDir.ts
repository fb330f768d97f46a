/**
 * Writing inside a folder's `.dsh`, confined: the folder is opened once and held (no symlink or
 * junction out of the workspace), `.dsh/.gitignore` keeps machine-local files out of commits,
 * and a file is replaced only when its text changes. The export use case (core/app/export.ts)
 * calls this through its file port; every failure is an {@link ExportError} saying that nothing
 * was written.
 */
import { fs } from './fsReads';
import * as path from 'node:path';
import { DECLARATION_PATH } from '../declaration/declarationModel';
import { ExportError } from '../declaration/exportError';
import { exampleTempNames, gitignoreDecision, IGNORE_FILE, MAX_IGNORE_BYTES } from '../mcp/ignoreRules';
import { ConfinedDir, ConfinementError } from './atomicWrite';
import { readWorkspaceFile } from './reader';

const DSH_DIR = path.dirname(DECLARATION_PATH);

/** Lines `.dsh/.gitignore` gets when the bridge writes it: the declaration, its schema and temp files stay machine-local. */
const DEFAULT_IGNORE = '# Written by DSH Bridge: the declaration and its schema are machine-local.\ndeclaration.json\ndeclaration.schema.json\n.*.tmp\n';
/** The one rule the bridge needs whatever a repository shipped: its temporary files are never committed. */
const TEMP_RULE = '.*.tmp';

/** `<folder>/.dsh` held open for writing (see {@link openDeclarationDir}). */
export class DeclarationDir {
  private constructor(private readonly folder: string, private readonly dir: ConfinedDir) {}

  /**
   * `<folder>/.dsh`, created if needed and held open: never a symlink or junction out of the
   * workspace, and every write lands in the directory checked here (see ConfinedDir).
   */
  static async open(folder: string): Promise<DeclarationDir> {
    const dir = path.join(folder, DSH_DIR);
    const stat = await fs.lstat(dir).catch(() => undefined);
    if (!stat) {
      await fs.mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
        throw new ExportError(`.dsh cannot be created (${error.code ?? 'error'}); nothing was written`);
      });
    } else if (!stat.isSymbolicLink() && !stat.isDirectory()) {
      throw new ExportError('.dsh exists and is not a folder; nothing was written');
    }
    try {
      return new DeclarationDir(folder, await ConfinedDir.open(dir, await fs.realpath(folder)));
    } catch (error) {
      if (error instanceof ConfinementError) throw new ExportError('.dsh is a link that leaves the workspace folder; nothing was written');
      throw new ExportError(`.dsh cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'}); nothing was written`);
    }
  }

  /** Whether `.dsh/<name>` holds exactly `text`, read through the safe reader only. */
  async holds(name: string, text: string): Promise<boolean> {
    const previous = await readWorkspaceFile(this.folder, `${DSH_DIR}/${name}`, Buffer.byteLength(text, 'utf8'));
    return previous.ok && Buffer.from(previous.bytes).toString('utf8') === text;
  }

  /**
   * Replaces `.dsh/<name>` unless it already holds `text`. The old file is read only through the
   * safe reader (a FIFO, a device, a link out or a huge file is never opened for reading), and
   * only a directory in the way stops the write: anything else is replaced.
   */
  async writeIfChanged(name: string, text: string): Promise<boolean> {
    if (await this.holds(name, text)) return false;
    const stat = await fs.lstat(this.dir.path(name)).catch(() => undefined);
    if (stat?.isDirectory()) throw new ExportError(`${DSH_DIR}/${name} is a folder, not a file; nothing was written`);
    await this.write(name, text);
    return true;
  }

  /**
   * Writes `.dsh/.gitignore` when there is none. A repository's own file is kept as it is (when it
   * makes the declaration committable, the analysis says so: `declaration-committable`); only the
   * temp-file rule is appended when git would not ignore the temp files by it.
   * A `.gitignore` that is not a regular file inside the workspace stops the export.
   */
  async ensureIgnoreRules(): Promise<void> {
    const relative = IGNORE_FILE;
    const exists = await fs.lstat(this.dir.path('.gitignore')).catch(() => undefined);
    if (!exists) {
      await this.write('.gitignore', DEFAULT_IGNORE);
      return;
    }
    const read = await readWorkspaceFile(this.folder, relative, MAX_IGNORE_BYTES);
    if (!read.ok) {
      const why = read.failure.kind === 'too-large' ? `larger than ${MAX_IGNORE_BYTES} bytes` : read.failure.kind.replace(/-/g, ' ');
      throw new ExportError(`${relative} cannot be used (${why}): the export needs it to keep its temporary files out of commits; nothing was written`);
    }
    const text = Buffer.from(read.bytes).toString('utf8');
    if (exampleTempNames().every((name) => gitignoreDecision(text, name).ignored)) return;
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    await this.write('.gitignore', `${text}${separator}# Added by DSH Bridge: its temporary files are never committed.\n${TEMP_RULE}\n`);
  }

  async close(): Promise<void> {
    await this.dir.close();
  }

  /** One atomic write; a folder moved or swapped under it is a refusal, not a crash. */
  private async write(name: string, text: string): Promise<void> {
    try {
      await this.dir.write(name, text);
    } catch (error) {
      if (error instanceof ConfinementError) throw new ExportError(`${error.message}; nothing was written outside the workspace`);
      if ((error as NodeJS.ErrnoException).code) throw new ExportError(`writing in .dsh failed (${(error as NodeJS.ErrnoException).code})`);
      throw error;
    }
  }
}

let schemaText: Promise<string | undefined> | undefined;

/**
 * The declaration's JSON schema as shipped (`schemas/declaration.schema.json` beside `dist/`, or
 * at the repository root when run from source), read once, on the first export; not bundled, as
 * it ships as a file anyway. Undefined if it cannot be read: the export then writes no schema
 * copy (it only helps editors; `$schema` still names it).
 */
export function declarationSchemaText(): Promise<string | undefined> {
  schemaText ??= (async () => {
    for (let dir = __dirname, up = 0; up < 4; dir = path.dirname(dir), up++) {
      const text = await fs.readFile(path.join(dir, 'schemas', 'declaration.schema.json'), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      try {
        return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
      } catch {
        return undefined;
      }
    }
    return undefined;
  })();
  return schemaText;
}
