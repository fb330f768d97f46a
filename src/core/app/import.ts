/**
 * Import, the same for every face: {@link reviewImport} reads a client's MCP files and the folder's
 * `.vscode/mcp.json` and plans the new file (core/import), with what the export would still refuse
 * of it; the face shows the diff and asks; {@link applyImport} stores the credentials, then writes
 * exactly the reviewed text, only while the file still holds what was reviewed. Never throws.
 */
import { CLIENT_NAMES, IMPORT_CLIENTS, type ImportClient, type ImportNote } from '../import/importNotes';
import { importPreviewId, planImport, type ImportPlan } from '../import/importPlan';
import { exportFindings, importReportMarkdown, type ExportRefusal, type ExportWarning, type Words } from '../import/importReport';
import type { ImportSourceFile } from '../import/clientFiles';
import type { ImportWriteResult, OriginalsRemoval } from '../node/importFiles';
import type { ImportFilePort, PortableFilePort, Ports } from './ports';
import { MOVE_BLOCK_TEMPLATES, planPortableMove, type PortableMovePlan } from '../mcp/portableMove';
import { formatMessage } from '../problems/problems';

/** What the import reads and writes through: the user's home and environment (where a client keeps its files), and its files (`portable`: `.mcp.json`, for `to: 'dot-mcp'`). */
export type ImportPorts = Pick<Ports, 'home' | 'env'> & { imports: ImportFilePort; portable?: PortableFilePort };

/**
 * Where the import writes: `.vscode/mcp.json` (`vscode`), or the portable `.mcp.json` (`dot-mcp`),
 * where *MCP: Add Server* writes since VS Code 1.140: the servers go there as
 * `dsh-bridge migrate` would move them, and a server `.mcp.json` cannot hold (one whose
 * credential became an input, a `cwd`, an `sse` one) goes to `.vscode/mcp.json`, with its reason.
 */
export type ImportTarget = 'vscode' | 'dot-mcp';

/**
 * What a face may ask for: a file, or `auto`, the file *MCP: Add Server* picks since VS Code 1.140
 * (`McpConfigurationDestination.selectForAdd`, microsoft/vscode
 * src/vs/workbench/contrib/mcp/browser/mcpConfigurationDestination.ts): the root `.mcp.json`
 * unless the folder already has a `.vscode/mcp.json` (where VS Code asks, the folder keeps its
 * servers there, so the import does too), or the import reads Claude Code's `.mcp.json` itself.
 */
export type ImportTargetChoice = ImportTarget | 'auto';

/** The file each target names, as the user types it (`--to`, the setting `dsh.import.target`). */
export const IMPORT_TARGET_FILES: Record<ImportTarget, string> = { vscode: '.vscode/mcp.json', 'dot-mcp': '.mcp.json' };

/** `auto`, `.mcp.json` or `.vscode/mcp.json` as a choice; undefined for anything else. */
export function importTargetChoice(value: unknown): ImportTargetChoice | undefined {
  if (value === 'auto') return 'auto';
  return (Object.keys(IMPORT_TARGET_FILES) as ImportTarget[]).find((t) => IMPORT_TARGET_FILES[t] === value);
}

export { CLIENT_NAMES, IMPORT_CLIENTS };
export type { ExportRefusal, ExportWarning, ImportClient, ImportNote, ImportPlan };

/** Whether a face's argument names a client the import reads. */
export function isImportClient(value: unknown): value is ImportClient {
  return typeof value === 'string' && (IMPORT_CLIENTS as readonly string[]).includes(value);
}

/** A client's files as a face offers them: the ones found (shown as the user reads paths), and every place it looks. */
export interface ImportChoice {
  client: ImportClient;
  found: string[];
  looked: string[];
}

/** Each client with the files of it found in the folder or the home folder, and where it looks. */
export async function importChoices(ports: ImportPorts, folder: string): Promise<ImportChoice[]> {
  const choices: ImportChoice[] = [];
  for (const client of IMPORT_CLIENTS) {
    const read = await ports.imports.readSources(client, folder, [], ports.home, ports.env);
    choices.push({ client, found: read.sources.map((s) => s.file), looked: read.looked });
  }
  return choices;
}

export type ImportReview =
  /** `.vscode/mcp.json` cannot be edited (`reason`): nothing was planned. */
  | { outcome: 'target-unreadable'; client: ImportClient; reason: string }
  /** No file of the client was found, or none could be read: `looked` says where it looked. */
  | { outcome: 'nothing-found'; client: ImportClient; looked: string[]; plan: ImportPlan }
  /**
   * Planned (`plan.changed` when there is something to write; `targetExists`: `.vscode/mcp.json` does); `failed` when errors stopped it (the
   * file cannot be edited safely, or no server was carried and a file could not be read).
   */
  | {
    outcome: 'planned'; client: ImportClient; plan: ImportPlan; targetExists: boolean; sources: ImportSourceFile[]; files: string[]; refusals: ExportRefusal[]; failed: boolean; uncarried: number;
    /** The target the import writes (`auto` resolved), and the files it writes, in the order a face names them. */
    to: ImportTarget; writes: string[];
    /** Warnings the editor and the export will raise on the imported servers (`secret-in-args`, ...): the summary never says all is well beside them. */
    warnings: ExportWarning[];
    /** With `to: 'dot-mcp'`: the imported servers moved on into `.mcp.json` (what is written), and what stays in `.vscode/mcp.json`. */
    portable?: PortableMovePlan;
  };

/**
 * Reads the client's files (`files`: given ones, relative to the folder; none: the client's usual
 * places) and `.vscode/mcp.json`, and plans the import. `storedInputIds`: the ids that already
 * have a value for the folder, which the import's credentials never take.
 */
export async function reviewImport(ports: ImportPorts, request: { client: ImportClient; folder: string; files: readonly string[]; storedInputIds: readonly string[]; to?: ImportTargetChoice }): Promise<ImportReview> {
  const { client, folder } = request;
  const read = await ports.imports.readSources(client, folder, request.files, ports.home, ports.env);
  const target = await ports.imports.readTarget(folder).catch((error: unknown) => ({ reason: error instanceof Error ? error.message : String(error) }));
  if ('reason' in target) return { outcome: 'target-unreadable', client, reason: target.reason };
  const isDotMcp = (source: ImportSourceFile) => source.scope === 'project' && source.file === IMPORT_TARGET_FILES['dot-mcp'];
  // auto: Claude Code's project .mcp.json is already the portable file VS Code reads; importing it
  // means converting it (its credentials into inputs), which only .vscode/mcp.json can hold.
  const auto = request.to === undefined || request.to === 'auto';
  const to: ImportTarget = auto ? (target.text === undefined && !read.sources.some(isDotMcp) ? 'dot-mcp' : 'vscode') : request.to as ImportTarget;
  // Into .mcp.json, Claude Code's project .mcp.json is the target itself, not a source.
  if (to === 'dot-mcp') read.sources = read.sources.filter((source) => !isDotMcp(source));
  const plan = planImport({ client, sources: read.sources, folder, target: target.text, readNotes: read.notes, storedInputIds: [...request.storedInputIds] });
  if (!read.sources.length && !read.notes.length) return { outcome: 'nothing-found', client, looked: read.looked, plan };
  const uncarried = plan.notes.filter((n) => n.kind === 'lost' || n.kind === 'skipped' || n.kind === 'error').length;
  let portable: PortableMovePlan | undefined;
  if (to === 'dot-mcp' && plan.ok && plan.changed) {
    const pair = await ports.portable?.readPair(folder).catch((error: unknown) => ({ reason: error instanceof Error ? error.message : String(error) }));
    if (!pair || 'reason' in pair) return { outcome: 'target-unreadable', client, reason: pair?.reason ?? '.mcp.json cannot be read here' };
    portable = planPortableMove(plan.after, pair.dotMcp, new Set(plan.servers.map((s) => s.name)));
    // The virtual .vscode/mcp.json the import planned is what the move starts from, not the file on disk.
    portable = { ...portable, vscodeBefore: target.text };
    if (!portable.ok) return { outcome: 'target-unreadable', client, reason: formatMessage(MOVE_BLOCK_TEMPLATES[portable.blocked!.code], portable.blocked!.args) };
  }
  const findings = exportFindings(plan, folder);
  // What is written: .mcp.json with what it can hold, .vscode/mcp.json with the rest (or everything).
  const writes = portable ? [...(portable.moved.length ? [IMPORT_TARGET_FILES['dot-mcp']] : []), ...(portable.vscodeAfter !== portable.vscodeBefore ? [IMPORT_TARGET_FILES.vscode] : [])] : [IMPORT_TARGET_FILES.vscode];
  return {
    outcome: 'planned', client, plan, targetExists: target.text !== undefined, sources: read.sources, files: read.sources.map((s) => s.file), refusals: findings.refusals, warnings: findings.warnings,
    failed: !plan.ok || (!plan.servers.length && plan.notes.some((n) => n.kind === 'error')), uncarried, to, writes: writes.length ? writes : [IMPORT_TARGET_FILES[to]], ...(portable ? { portable } : {}),
  };
}

/** The id of what a preview showed (see importPreviewId), keyed with this machine's signing key (created on first use, as an export does). */
export async function importPreview(ports: Pick<Ports, 'store'>, plan: ImportPlan, portable?: PortableMovePlan): Promise<string> {
  // With a move into .mcp.json, what is written is both files: the id covers them too.
  const reviewed = portable ? { ...plan, after: JSON.stringify([plan.after, portable.vscodeAfter ?? null, portable.dotMcpBefore ?? null, portable.dotMcpAfter ?? null]) } : plan;
  return importPreviewId(reviewed, await ports.store.signingKey());
}

/** The report of a planned import as Markdown, grouped by server (`t`: the face's words; English by default). */
export function importReport(review: Extract<ImportReview, { outcome: 'planned' }>, t?: Words): string {
  return importReportMarkdown(review.plan, review.files, review.refusals, t, review.warnings);
}

export type ImportApplied = ImportWriteResult & {
  /** The input ids whose values were stored. */
  secretsStored: string[];
  /** The added inputs that have no value yet: the user enters them. */
  toEnter: string[];
};

/**
 * Writes what was reviewed: the credentials first (through `storeSecret`: a file that names an
 * input whose value is missing is worse than a stored value unused), then `.vscode/mcp.json`,
 * only if it still holds the reviewed `before`. Never throws: a failure is a result.
 */
export async function applyImport(
  ports: Pick<ImportPorts, 'imports' | 'portable'>, folder: string, plan: ImportPlan, storeSecret: (inputId: string, value: string) => Promise<void>, portable?: PortableMovePlan,
): Promise<ImportApplied> {
  const secretsStored: string[] = [];
  const toEnter = plan.inputs.filter((i) => !plan.secrets.some((s) => s.inputId === i.id)).map((i) => i.id);
  const refused = (error: unknown): ImportApplied => ({ written: false, reason: 'refused', message: error instanceof Error ? error.message : String(error), secretsStored, toEnter });
  try {
    for (const s of plan.secrets) {
      await storeSecret(s.inputId, s.value);
      secretsStored.push(s.inputId);
    }
    if (portable) {
      if (!ports.portable) return refused(new Error('.mcp.json cannot be written here'));
      return { ...await ports.portable.writePair(folder, portable), secretsStored, toEnter };
    }
    return { ...await ports.imports.writeTarget(folder, plan.before, plan.after), secretsStored, toEnter };
  } catch (error) {
    return refused(error);
  }
}

/**
 * The carried servers whose originals (with their credentials) are still in the client's project
 * files, by file: what a face may offer to remove. Never a home folder file, never Codex's (its
 * TOML is not edited).
 */
export function carriedOriginals(review: Extract<ImportReview, { outcome: 'planned' }>): Array<{ source: ImportSourceFile; names: string[] }> {
  const { plan } = review;
  return review.sources.filter((s) => s.scope === 'project' && plan.client !== 'codex')
    .map((source) => ({ source, names: plan.servers.filter((p) => p.file === source.file).map((p) => p.sourceName) }))
    .filter((c) => c.names.length);
}

/** Removes carried servers from their source file, only if it still holds what the import read (see removeImportedOriginals). */
export function removeCarriedOriginals(ports: Pick<ImportPorts, 'imports'>, folder: string, carried: { source: ImportSourceFile; names: string[] }): Promise<OriginalsRemoval> {
  return ports.imports.removeOriginals(folder, carried.source.file, carried.source.text, carried.names);
}
