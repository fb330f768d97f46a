/**
 * Export, the same for every face: {@link reviewExport} reads and analyzes a folder's sources once,
 * with the `lsp` and `skills` sections and each server's `tools` (nothing is written); the face
 * shows what was reviewed and gathers input values and approvals; {@link commitExport} writes
 * exactly that, signed, atomically, inside the folder's `.dsh`.
 */
import * as path from 'node:path';
import type { Analysis } from '../mcp/analysis';
import { invalidExportOptions } from '../mcp/analyzeOptions';
import {
  DECLARATION_PATH, DECLARATION_SCHEMA_PATH, DECLARATION_SCHEMA_REF, DECLARATION_VERSION, type DeclarationSections,
} from '../declaration/declarationModel';
import { ExportError } from '../declaration/exportError';
import { GENERATOR, serializeDeclaration, type DeclarationBody } from '../declaration/declaration';
import { LSP_APPROVAL_NAME } from '../lsp/lspRow';
import { assignServerNames } from '../mcp/serverName';
import { folderAnalyzeOptions, readCustomSkillRoots, settingLayerValues, SETTING, type FolderIdentity } from '../settings/folderSettings';
import { analyzeToolChoice, checkToolChoice } from '../tools/toolChoice';
import type { Problem } from '../problems/problems';
import { withDeclaredTools } from '../tools/declaredTools';
import { analyzeFolder, analyzeWorkspaceFolder, changedSources } from './folderSources';
import { analyzeSections } from './sections';
import { pinSettingsFiles, settingsFilesOf } from './settingsFiles';
import { planFix, reason, type PlanReason } from './planReasons';
import type { Ports } from './ports';

export { ExportError };

/** The declaration's body (all but digest and signature) made from a folder's analysis and sections. */
export function buildDeclarationBody(analysis: Analysis, folder: string, sections: DeclarationSections = {}): DeclarationBody {
  return {
    $schema: DECLARATION_SCHEMA_REF,
    version: DECLARATION_VERSION,
    generator: GENERATOR,
    folder: path.resolve(folder),
    source: { path: analysis.sourcePath, sha256: analysis.sourceSha256, ...(analysis.sourceContent !== undefined ? { content: analysis.sourceContent } : {}) },
    ...(analysis.sources?.length ? { sources: analysis.sources } : {}),
    ...(analysis.mcpAccess && analysis.mcpAccess !== 'all' ? { mcpAccess: analysis.mcpAccess } : {}),
    ...policyRecord(analysis),
    inputs: analysis.inputs,
    servers: analysis.servers,
    rejected: analysis.rejected,
    ...sections,
  };
}

/** The declaration's `policy`: the editor rules' digest, the managed rules' digest and VS Code's policy file when present at the export. */
function policyRecord(analysis: Analysis): Pick<DeclarationBody, 'policy'> {
  const file = analysis.policyFile?.sha256 ? analysis.policyFile : undefined;
  if (!analysis.policyDigest && !analysis.managedDigest && !file) return {};
  return {
    policy: {
      ...(analysis.policyDigest ? { digest: analysis.policyDigest } : {}),
      ...(analysis.managedDigest ? { managed: analysis.managedDigest } : {}),
      ...(file ? { file } : {}),
    },
  };
}

/**
 * One folder's sources as they were read and analyzed once, with the sections that go with it:
 * what the user reviews (inputs, approvals) is this, and {@link commitExport} signs exactly this.
 */
export interface ReviewedExport {
  folder: string;
  declarationPath: string;
  analysis: Analysis;
  sections: DeclarationSections;
}

/**
 * Reads and analyzes the folder's sources once with the folder's settings as the face sees them
 * (`${config:}`, `dsh.export.*`, `chat.mcp.access`), and computes the `lsp` and `skills` sections
 * (`dsh.lsp.servers`, `dsh.skills.customRoots`) and each server's `tools` (the `dsh.tools` choice,
 * every layer narrowing; the pins of its last probe while its launch pin is unchanged), and pins the
 * settings files of those layers (`settingsFiles`). Nothing is written. The sections are left out when the sources are unusable (nothing will be written then).
 */
export async function reviewExport(ports: Pick<Ports, 'dshHome' | 'store' | 'files' | 'env' | 'home' | 'cwd' | 'resolveCommand'>, identity: FolderIdentity): Promise<ReviewedExport> {
  const folder = path.resolve(identity.folder);
  const options = { ...folderAnalyzeOptions(identity), folder };
  const badOptions = invalidExportOptions(options);
  if (badOptions.length) throw new ExportError(`invalid export options (${badOptions.join(', ')}): DSH would refuse every row`);
  const analysis = await analyzeFolder(ports, options);
  const reviewed: ReviewedExport = { folder, declarationPath: path.join(folder, DECLARATION_PATH), analysis, sections: {} };
  if (!analysis.usable) return reviewed;
  const invalid = identity.invalidSetting ?? (() => undefined);
  const { sections } = await analyzeSections(ports, {
    folder,
    lspServers: identity.settings(SETTING.lspServers),
    customSkillRoots: readCustomSkillRoots(identity.settings, invalid),
  });
  // An unreadable probe record is no pins (the servers behave as never probed), never a failed export.
  const probes = await ports.store.probedServers(folder).catch(() => ({}));
  const servers = withDeclaredTools(analysis.servers, analyzeToolChoice(settingLayerValues(identity, SETTING.tools)), probes);
  // The settings files of the layers read above: an edit of one of their session settings makes the declaration stale.
  const settingsFiles = await pinSettingsFiles(ports, folder, settingsFilesOf(identity));
  return { ...reviewed, analysis: { ...analysis, servers }, sections: { ...sections, ...(settingsFiles.length ? { settingsFiles } : {}) } };
}

/** The first source file whose bytes are no longer the ones reviewed (changed, removed, created or unreadable), if any. */
export async function changedSinceReview(ports: Pick<Ports, 'files'>, reviewed: ReviewedExport): Promise<string | undefined> {
  const { sourcePath, sourceSha256, sourceContent, sources = [] } = reviewed.analysis;
  return (await changedSources(ports, reviewed.folder, [{ path: sourcePath, sha256: sourceSha256, ...(sourceContent !== undefined ? { content: sourceContent } : {}) }, ...sources]))[0]?.path;
}

export interface ExportResult {
  analysis: Analysis;
  declarationPath: string;
  /** The declaration that is (or, with dryRun, would be) on disk; undefined when nothing could be exported. */
  text?: string;
  written: boolean;
  unchanged: boolean;
  /** The source changed between the review and the write: nothing was written (no values, approvals or declaration). */
  sourceChanged: boolean;
}

export interface ExportCommit {
  dryRun?: boolean;
  /** Input values gathered for the reviewed inputs, stored host-side with the declaration. */
  inputs?: ReadonlyMap<string, string>;
  /** Approvals the user gave for reviewed servers (`pinned` trust mode). */
  approvals?: ReadonlyArray<{ serverName: string; pin: string }>;
}

/**
 * Writes what was reviewed: the input values and approvals to the host store, then
 * `.dsh/declaration.json` atomically, signed, made from the reviewed analysis (never a second
 * read). When the source is unusable, nothing is written (the previous declaration stays, and
 * `verify` reports it stale); when the source changed since the review, nothing is written either.
 */
export async function commitExport(ports: Pick<Ports, 'store' | 'files'>, reviewed: ReviewedExport, commit: ExportCommit = {}): Promise<ExportResult> {
  const { analysis, declarationPath, folder } = reviewed;
  const { store } = ports;
  const nothing = { analysis, declarationPath, written: false, unchanged: false, sourceChanged: false };
  if (!analysis.usable) return nothing;
  if ((await changedSinceReview(ports, reviewed)) !== undefined) return { ...nothing, sourceChanged: true };
  const key = commit.dryRun ? (await store.readSigningKey()) ?? Buffer.alloc(32) : await store.signingKey();
  const lastSeq = await store.exportSeq(folder);
  const textWith = (exportSeq: number) => serializeDeclaration({ ...buildDeclarationBody(analysis, folder, reviewed.sections), exportSeq }, key);
  if (commit.dryRun) return { ...nothing, text: textWith(lastSeq + 1) };
  for (const [id, value] of commit.inputs ?? []) await store.setInput(folder, id, value);
  for (const a of commit.approvals ?? []) await store.approve(folder, a.serverName, a.pin);
  // What an approval can be for: each server's pin, and the language servers' one (lsp section).
  const exported = analysis.servers.map((s) => ({ serverName: s.serverName, pin: s.pin }));
  if (reviewed.sections.lsp) exported.push({ serverName: LSP_APPROVAL_NAME, pin: reviewed.sections.lsp.pin });
  // Refused now but still in the source: their approvals stay (by DSH name, as every entry would be named).
  const dshNames = assignServerNames([...analysis.servers.map((s) => s.name), ...analysis.rejected.map((r) => r.name)]);
  const refused = new Set(analysis.rejected.map((r) => dshNames.get(r.name)).filter((n): n is string => n !== undefined));
  const dir = await ports.files.openDeclarationDir(folder);
  const declarationName = path.basename(DECLARATION_PATH);
  try {
    await dir.ensureIgnoreRules();
    const schemaText = await ports.files.declarationSchemaText();
    if (schemaText !== undefined) await dir.writeIfChanged(path.basename(DECLARATION_SCHEMA_PATH), schemaText);
    // Unchanged since the last export: same count, nothing written.
    if (lastSeq > 0 && (await dir.holds(declarationName, textWith(lastSeq)))) {
      await store.revokeApprovalsExcept(folder, exported, refused);
      return { ...nothing, text: textWith(lastSeq), unchanged: true };
    }
    // The count goes up before the file is written: a crash in between leaves an older
    // declaration that is refused (fail closed), never a rollback that passes.
    const text = textWith(await store.recordExport(folder, exported, refused));
    await dir.writeIfChanged(declarationName, text);
    return { ...nothing, text, written: true };
  } catch (error) {
    if (error instanceof ExportError) throw error;
    // The folder changed under the export (moved, removed): a refusal, not a crash.
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string') throw new ExportError(`writing in .dsh failed (${code})`);
    throw error;
  } finally {
    await dir.close();
  }
}

/**
 * Why nothing may be exported on this machine now, if so: the trust mode is `deny` (nothing is
 * exported or mounted), or the bridge settings cannot be read. The CLI asks before it exports (a
 * dry run too); the editor asks its own trust mode, which also brings `dsh.trustMode` in line.
 */
export async function exportRefused(ports: Pick<Ports, 'store'>): Promise<PlanReason | undefined> {
  try {
    return (await ports.store.trustMode()) === 'deny' ? reason('trust-deny', {}, planFix('trust-pinned', {})) : undefined;
  } catch (error) {
    return reason('store-unreadable', { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Whether the export offers a folder: it has a server entry in any file VS Code runs its servers
 * from (exported or refused), or such a file that cannot be used (the export then says so). A
 * folder with no such file, or only empty ones, has nothing to export.
 */
export function offersExport(analysis: { usable: boolean; servers: readonly unknown[]; rejected: readonly unknown[]; problems: ReadonlyArray<{ code: string }> }): boolean {
  if (analysis.servers.length > 0 || analysis.rejected.length > 0) return true;
  return !analysis.usable && analysis.problems.some((p) => p.code !== 'missing-source');
}

/** What one folder's export came to, as the result names it. */
export type FolderExportOutcome = 'exported' | 'nothing-to-export' | 'failed';

export function folderExportOutcome(folder: { usable: boolean; servers: number }): FolderExportOutcome {
  if (!folder.usable) return 'failed';
  return folder.servers > 0 ? 'exported' : 'nothing-to-export';
}

/** The `dsh.tools` problems of a folder's settings, each placed in the settings file of its layer (the ones the editor shows). */
export function toolChoiceProblems(identity: Pick<FolderIdentity, 'settings' | 'settingLayers'>): Problem[] {
  return checkToolChoice(settingLayerValues(identity, SETTING.tools)).problems;
}

/** What `check` reports, and an export refused on this machine: the analysis of the folder's sources and the `dsh.tools` problems; nothing is written. */
export async function checkFolder(ports: Pick<Ports, 'files'>, identity: FolderIdentity): Promise<{ analysis: Analysis; settingProblems: Problem[] }> {
  return { analysis: await analyzeWorkspaceFolder(ports, identity), settingProblems: toolChoiceProblems(identity) };
}
