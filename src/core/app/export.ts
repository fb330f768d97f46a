/**
 * The declaration on disk: export (read and analyze the source once, then write what was
 * reviewed, atomically, inside the folder's .dsh) and verify. The Node adapter side of
 * core/declaration.
 */
import { timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { analyzeSource } from '../mcp/analyze';
import { emptyAnalysis, SOURCE_PATH, type Analysis } from '../mcp/analysis';
import { invalidExportOptions, type AnalyzeOptions } from '../mcp/analyzeOptions';
import { ConfinedDir, ConfinementError } from '../node/atomicWrite';
import { canonicalHash, sha256Hex } from '../json/canonicalJson';
import type { VerifyCode, VerifyResult } from '../declaration/declarationModel';
import {
  DECLARATION_PATH, DECLARATION_SCHEMA_PATH, DECLARATION_SCHEMA_REF, DECLARATION_VERSION, DeclarationSchema, type DeclarationSections,
} from '../declaration/declarationModel';
import { LSP_APPROVAL_NAME } from '../lsp/lspRow';
import { HostStore } from '../node/hostStore';
import { lspSectionPinMatches } from '../lsp/lspSection';
import { findDuplicateKeys, parseJsonc } from '../json/jsonTree';
import { makeProblem, type Problem } from '../problems/problems';
import type { ReadFailure } from '../problems/readFailure';
import { readVscodePolicyFile, VSCODE_POLICY_FILE } from '../node/policyFiles';
import { POLICY_SETTING } from '../policy/editorPolicy';
import { MAX_SOURCE_BYTES, readRegularFile, readWorkspaceFile, type ReadResult } from '../node/reader';
import {
  declarationReadDotMcp, DEVCONTAINER_SOURCE, devcontainerSubfolderSources, ROOT_DEVCONTAINER_SOURCE, dialectOf, DOT_MCP_SOURCE, dotMcpDiscoveryOn, effectiveCollisionBehavior, effectiveMcpAccess, isFolderRelative,
  MCP_ACCESS_SETTING, MCP_COLLISION_SETTING, sourceDigest, VSCODE_SOURCE, type SourceSpec,
} from '../mcp/sources';
import type { SettingsView } from '../settings/folderSettings';
import { mergeSources, type SourceRead } from '../mcp/mergeSources';
import { loadEnvFile, pinEnvFiles } from '../node/envFile';
import { decodeText, EMPTY_RANGE } from '../json/text';


import { applyEditorPolicy, editorPolicyDigest, readEditorPolicy, type PolicySettingsView } from '../policy/editorPolicy';
import { GENERATOR, serializeDeclaration, signDigest, type DeclarationBody } from '../declaration/declaration';
import { declarationIgnoreProblem, exampleTempNames, gitignoreDecision, IGNORE_FILE } from '../mcp/ignoreRules';

const MAX_DECLARATION_BYTES = 8 * 1024 * 1024;

/** The declaration's body (all but digest and signature) made from a folder's analysis and sections. */
export function buildDeclarationBody(analysis: Analysis, folder: string, sections: DeclarationSections = {}): DeclarationBody {
  return {
    $schema: DECLARATION_SCHEMA_REF,
    version: DECLARATION_VERSION,
    generator: GENERATOR,
    folder: path.resolve(folder),
    source: { path: analysis.sourcePath, sha256: analysis.sourceSha256 },
    ...(analysis.sources?.length ? { sources: analysis.sources } : {}),
    ...(analysis.mcpAccess && analysis.mcpAccess !== 'all' ? { mcpAccess: analysis.mcpAccess } : {}),
    ...policyRecord(analysis),
    inputs: analysis.inputs,
    servers: analysis.servers,
    rejected: analysis.rejected,
    ...sections,
  };
}

/** The declaration's `policy`: the rules' digest and VS Code's policy file when present at the export. */
function policyRecord(analysis: Analysis): Pick<DeclarationBody, 'policy'> {
  const file = analysis.policyFile?.sha256 ? analysis.policyFile : undefined;
  if (!analysis.policyDigest && !file) return {};
  return { policy: { ...(analysis.policyDigest ? { digest: analysis.policyDigest } : {}), ...(file ? { file } : {}) } };
}

export function readFailureProblem(failure: ReadFailure, file = SOURCE_PATH): Problem {
  switch (failure.kind) {
    case 'missing': return makeProblem('missing-source', file, EMPTY_RANGE, { path: file });
    case 'not-a-regular-file': return makeProblem('not-a-regular-file', file, EMPTY_RANGE, { path: file });
    case 'outside-workspace': return makeProblem('path-outside-workspace', file, EMPTY_RANGE, { path: file });
    case 'too-large': return makeProblem('file-too-large', file, EMPTY_RANGE, { size: failure.size, limit: 1024 * 1024 });
    case 'unreadable': return makeProblem('unreadable-source', file, EMPTY_RANGE, { reason: failure.reason });
  }
}

/**
 * The files VS Code would run this folder's servers from: `.vscode/mcp.json`, `.mcp.json` (unless
 * `chat.mcp.access` turns its discovery off), the workspace file when there is one, and the dev
 * container configurations (`subfolders`: the names under `.devcontainer/` that hold one, see
 * {@link devcontainerSubfolders}).
 */
export function folderSources(options: Pick<AnalyzeOptions, 'resolveConfig' | 'codeWorkspaceFile'>, subfolders: readonly string[] = []): SourceSpec[] {
  const specs = [VSCODE_SOURCE];
  if (dotMcpDiscoveryOn(options.resolveConfig?.(MCP_ACCESS_SETTING))) specs.push(DOT_MCP_SOURCE);
  if (options.codeWorkspaceFile) specs.push({ path: path.resolve(options.codeWorkspaceFile), dialect: 'code-workspace' });
  specs.push(DEVCONTAINER_SOURCE, ROOT_DEVCONTAINER_SOURCE, ...devcontainerSubfolderSources(subfolders));
  return specs;
}

/**
 * The subfolders of `<folder>/.devcontainer` that hold a `devcontainer.json` (the spec's third
 * location). Only a real folder is listed, never a link out of the workspace; the file itself is
 * then read through the confined reader like every source.
 */
export async function devcontainerSubfolders(folder: string): Promise<string[]> {
  const dir = path.join(folder, '.devcontainer');
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (await fs.lstat(path.join(dir, entry.name, 'devcontainer.json')).then(() => true, () => false)) names.push(entry.name);
  }
  return devcontainerSubfolderSources(names).map((spec) => spec.path.split('/')[1]);
}

/** A source's bytes: a folder file through the confined reader, the workspace file (outside the folder) as a regular file. */
function readSource(folder: string, sourcePath: string): Promise<ReadResult> {
  return isFolderRelative(sourcePath) ? readWorkspaceFile(folder, sourcePath) : readRegularFile(sourcePath, MAX_SOURCE_BYTES);
}

/**
 * Reads and analyzes every source of a folder and merges them; a file that cannot be read gives an
 * unusable analysis. `unsaved` gives the text of a source an editor holds with unsaved edits.
 */
export async function analyzeFolder(options: AnalyzeOptions, unsaved?: (sourcePath: string) => Uint8Array | undefined): Promise<Analysis> {
  const reads: SourceRead[] = [];
  for (const spec of folderSources(options, await devcontainerSubfolders(options.folder))) {
    const held = unsaved?.(spec.path);
    const read: ReadResult = held ? { ok: true, bytes: held, realPath: spec.path } : await readSource(options.folder, spec.path);
    if (!read.ok) {
      if (read.failure.kind === 'missing') reads.push({ spec, missing: true });
      else reads.push({ spec, analysis: emptyAnalysis([readFailureProblem(read.failure, spec.path)], '', spec.path) });
      continue;
    }
    const analysis = { ...analyzeSource(read.bytes, options, spec), sourceSha256: sourceDigest(read.bytes, spec.dialect) };
    const decoded = decodeText(read.bytes);
    reads.push({ spec, analysis: decoded.ok ? await pinEnvFiles(analysis, options.folder, decoded.text, spec.dialect) : analysis });
  }
  const merged = mergeSources(reads, readFailureProblem({ kind: 'missing' }, SOURCE_PATH), { collisionBehavior: effectiveCollisionBehavior(options.resolveConfig?.(MCP_COLLISION_SETTING)) });
  const committable = await declarationCommittable(options.folder, unsaved?.(IGNORE_FILE));
  if (committable) merged.problems.push(committable);
  const mcpAccess = effectiveMcpAccess(options.resolveConfig?.(MCP_ACCESS_SETTING));
  // The organization's policy decides what is exported, after collisions (a blocked server keeps its name).
  const policed = applyEditorPolicy(mcpAccess === 'all' ? merged : { ...merged, mcpAccess }, readEditorPolicy(policyView(options)));
  return options.vscodePolicyFile ? { ...policed, policyFile: options.vscodePolicyFile } : policed;
}

/** The policy settings as the face sees them (no settings: nothing set). */
function policyView(options: Pick<AnalyzeOptions, 'resolveConfig' | 'policySettings'>): PolicySettingsView {
  return { effective: (key) => options.resolveConfig?.(key), ...options.policySettings };
}

/**
 * `declaration-committable` when the folder's `.dsh/.gitignore` (a repository's own, or one edited
 * since) exists and does not ignore the declaration, evaluated as git evaluates it. None when there
 * is no such file: the export writes one that does. `held`: the text an editor holds unsaved.
 */
async function declarationCommittable(folder: string, held?: Uint8Array): Promise<Problem | undefined> {
  const read: ReadResult = held ? { ok: true, bytes: held, realPath: IGNORE_FILE } : await readWorkspaceFile(folder, IGNORE_FILE, MAX_IGNORE_BYTES);
  return read.ok ? declarationIgnoreProblem(Buffer.from(read.bytes).toString('utf8')) : undefined;
}

/** The first pin of `pins` whose file no longer holds the pinned bytes (changed, removed, created or unreadable), if any. */
export async function changedSource(folder: string, pins: ReadonlyArray<{ path: string; sha256: string | null }>): Promise<{ path: string; now: 'changed' | 'removed' | 'created' | 'unreadable' } | undefined> {
  for (const pin of pins) {
    const read = await readSource(folder, pin.path);
    if (!read.ok) {
      if (read.failure.kind === 'missing') {
        if (pin.sha256 !== null) return { path: pin.path, now: 'removed' };
        continue;
      }
      return { path: pin.path, now: 'unreadable' };
    }
    if (pin.sha256 === null) return { path: pin.path, now: 'created' };
    if (sourceDigest(read.bytes, dialectOf(pin.path)) !== pin.sha256) return { path: pin.path, now: 'changed' };
  }
  return undefined;
}

export class ExportError extends Error {}

/**
 * One folder's source as it was read and analyzed once, with the sections that go with it: what
 * the user reviews (inputs, approvals) is this, and {@link commitExport} signs exactly this.
 */
export interface ReviewedExport {
  folder: string;
  declarationPath: string;
  analysis: Analysis;
  sections: DeclarationSections;
}

export interface ReviewOptions extends AnalyzeOptions {
  /** The optional sections (lsp, skills), covered by the digest and the signature. */
  sections?: DeclarationSections;
}

/** Reads and analyzes the folder's source once; nothing is written. */
export async function reviewExport(options: ReviewOptions): Promise<ReviewedExport> {
  const folder = path.resolve(options.folder);
  const badOptions = invalidExportOptions(options);
  if (badOptions.length) throw new ExportError(`invalid export options (${badOptions.join(', ')}): DSH would refuse every row`);
  const analysis = await analyzeFolder({ ...options, folder });
  return { folder, declarationPath: path.join(folder, DECLARATION_PATH), analysis, sections: options.sections ?? {} };
}

/** True when the source's bytes are no longer the ones reviewed (changed, removed or unreadable). */
export async function sourceChangedSinceReview(reviewed: ReviewedExport): Promise<boolean> {
  return (await changedSinceReview(reviewed)) !== undefined;
}

/** The first source file whose bytes are no longer the ones reviewed (changed, removed, created or unreadable), if any. */
export async function changedSinceReview(reviewed: ReviewedExport): Promise<string | undefined> {
  const { sourcePath, sourceSha256, sources = [] } = reviewed.analysis;
  return (await changedSources(reviewed.folder, [{ path: sourcePath, sha256: sourceSha256 }, ...sources]))[0]?.path;
}

/**
 * Every source not as pinned: each pinned file changed, removed, created or unreadable, and each
 * `.devcontainer/<name>/devcontainer.json` no pin names (a new source: absence of those cannot be
 * pinned one by one). The one enumeration that verify and the export's review check both use.
 */
export async function changedSources(folder: string, pins: ReadonlyArray<{ path: string; sha256: string | null }>): Promise<Array<{ path: string; now: 'changed' | 'removed' | 'created' | 'unreadable' }>> {
  const changes = [];
  for (const pin of pins) {
    const changed = await changedSource(folder, [pin]);
    if (changed) changes.push(changed);
  }
  const pinnedPaths = new Set(pins.map((p) => p.path));
  for (const name of await devcontainerSubfolders(folder)) {
    const file = `.devcontainer/${name}/devcontainer.json`;
    if (!pinnedPaths.has(file)) changes.push({ path: file, now: 'created' as const });
  }
  return changes;
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
  dshHome: string;
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
export async function commitExport(reviewed: ReviewedExport, commit: ExportCommit): Promise<ExportResult> {
  const { analysis, declarationPath, folder } = reviewed;
  const nothing = { analysis, declarationPath, written: false, unchanged: false, sourceChanged: false };
  if (!analysis.usable) return nothing;
  if (await sourceChangedSinceReview(reviewed)) return { ...nothing, sourceChanged: true };
  const store = new HostStore(commit.dshHome);
  const key = commit.dryRun ? (await store.readSigningKey()) ?? Buffer.alloc(32) : await store.signingKey();
  const lastSeq = await store.exportSeq(folder);
  const textWith = (exportSeq: number) => serializeDeclaration({ ...buildDeclarationBody(analysis, folder, reviewed.sections), exportSeq }, key);
  if (commit.dryRun) return { ...nothing, text: textWith(lastSeq + 1) };
  for (const [id, value] of commit.inputs ?? []) await store.setInput(folder, id, value);
  for (const a of commit.approvals ?? []) await store.approve(folder, a.serverName, a.pin);
  // What an approval can be for: each server's pin, and the language servers' one (lsp section).
  const exported = analysis.servers.map((s) => ({ serverName: s.serverName, pin: s.pin }));
  if (reviewed.sections.lsp) exported.push({ serverName: LSP_APPROVAL_NAME, pin: reviewed.sections.lsp.pin });
  const dir = await openDeclarationDir(folder);
  try {
    await ensureIgnoreRules(folder, dir);
    const schemaText = await declarationSchemaText();
    if (schemaText !== undefined) await writeIfChanged(folder, dir, DECLARATION_SCHEMA_PATH, schemaText);
    // Unchanged since the last export: same count, nothing written.
    if (lastSeq > 0 && (await holds(folder, DECLARATION_PATH, textWith(lastSeq)))) {
      await store.revokeApprovalsExcept(folder, exported);
      return { ...nothing, text: textWith(lastSeq), unchanged: true };
    }
    // The count goes up before the file is written: a crash in between leaves an older
    // declaration that is refused (fail closed), never a rollback that passes.
    const text = textWith(await store.recordExport(folder, exported));
    await writeIfChanged(folder, dir, DECLARATION_PATH, text);
    return { ...nothing, text, written: true };
  } catch (error) {
    if (error instanceof ConfinementError) throw new ExportError(`${error.message}; nothing was written outside the workspace`);
    // The folder changed under the export (moved, removed): a refusal, not a crash.
    if ((error as NodeJS.ErrnoException).code) throw new ExportError(`writing in .dsh failed (${(error as NodeJS.ErrnoException).code})`);
    throw error;
  } finally {
    await dir.close();
  }
}

export interface ExportFolderOptions extends ReviewOptions, Omit<ExportCommit, 'inputs' | 'approvals'> {}

/** Review and commit in one go, for a caller that asks nothing in between. */
export async function exportFolder(options: ExportFolderOptions): Promise<ExportResult> {
  return commitExport(await reviewExport(options), options);
}

/** Whether the file holds exactly `text`, read through the safe reader only. */
async function holds(folder: string, relativePath: string, text: string): Promise<boolean> {
  const previous = await readWorkspaceFile(folder, relativePath, Buffer.byteLength(text, 'utf8'));
  return previous.ok && Buffer.from(previous.bytes).toString('utf8') === text;
}

/**
 * Replaces `<folder>/<relativePath>` (a file of `.dsh`) unless it already holds `text`. The old
 * file is read only through the safe reader (a FIFO, a device, a link out or a huge file is never
 * opened for reading), and only a directory in the way stops the write: anything else is replaced.
 */
let schemaText: Promise<string | undefined> | undefined;

/**
 * The declaration's JSON schema as shipped (`schemas/declaration.schema.json` beside `dist/`, or
 * at the repository root when run from source), read once, on the first export; not bundled, as
 * it ships as a file anyway. Undefined if it cannot be read: the export then writes no schema
 * copy (it only helps editors; `$schema` still names it).
 */
function declarationSchemaText(): Promise<string | undefined> {
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

async function writeIfChanged(folder: string, dir: ConfinedDir, relativePath: string, text: string): Promise<boolean> {
  if (await holds(folder, relativePath, text)) return false;
  const name = path.basename(relativePath);
  const stat = await fs.lstat(dir.path(name)).catch(() => undefined);
  if (stat?.isDirectory()) throw new ExportError(`${relativePath} is a folder, not a file; nothing was written`);
  await dir.write(name, text);
  return true;
}

/**
 * `<folder>/.dsh`, created if needed and held open: never a symlink or junction out of the
 * workspace, and every write lands in the directory checked here (see ConfinedDir).
 */
async function openDeclarationDir(folder: string): Promise<ConfinedDir> {
  const dir = path.join(folder, path.dirname(DECLARATION_PATH));
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat) {
    await fs.mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      throw new ExportError(`.dsh cannot be created (${error.code ?? 'error'}); nothing was written`);
    });
  } else if (!stat.isSymbolicLink() && !stat.isDirectory()) {
    throw new ExportError('.dsh exists and is not a folder; nothing was written');
  }
  const realFolder = await fs.realpath(folder);
  try {
    const opened = await ConfinedDir.open(dir, realFolder);
    return opened;
  } catch (error) {
    if (error instanceof ConfinementError) throw new ExportError('.dsh is a link that leaves the workspace folder; nothing was written');
    throw new ExportError(`.dsh cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'}); nothing was written`);
  }
}

/** Lines `.dsh/.gitignore` gets when the bridge writes it: the declaration, its schema and temp files stay machine-local. */
const DEFAULT_IGNORE = '# Written by DSH Bridge: the declaration and its schema are machine-local.\ndeclaration.json\ndeclaration.schema.json\n.*.tmp\n';
/** The one rule the bridge needs whatever a repository shipped: its temporary files are never committed. */
const TEMP_RULE = '.*.tmp';
const MAX_IGNORE_BYTES = 64 * 1024;

/**
 * Writes `.dsh/.gitignore` when there is none. A repository's own file is kept as it is (when it
 * makes the declaration committable, the analysis says so: `declaration-committable`); only the
 * temp-file rule is appended when git would not ignore the temp files by it.
 * A `.gitignore` that is not a regular file inside the workspace stops the export.
 */
async function ensureIgnoreRules(folder: string, dir: ConfinedDir): Promise<void> {
  const relative = IGNORE_FILE;
  const exists = await fs.lstat(dir.path('.gitignore')).catch(() => undefined);
  if (!exists) {
    await dir.write('.gitignore', DEFAULT_IGNORE);
    return;
  }
  const read = await readWorkspaceFile(folder, relative, MAX_IGNORE_BYTES);
  if (!read.ok) {
    const why = read.failure.kind === 'too-large' ? `larger than ${MAX_IGNORE_BYTES} bytes` : read.failure.kind.replace(/-/g, ' ');
    throw new ExportError(`${relative} cannot be used (${why}): the export needs it to keep its temporary files out of commits; nothing was written`);
  }
  const text = Buffer.from(read.bytes).toString('utf8');
  if (exampleTempNames().every((name) => gitignoreDecision(text, name).ignored)) return;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  await dir.write('.gitignore', `${text}${separator}# Added by DSH Bridge: its temporary files are never committed.\n${TEMP_RULE}\n`);
}


/**
 * Checks a folder's declaration: readable and well-formed, signed with this user's key,
 * every pin and the digest intact, made for this folder, and made from the current source.
 * `settings`, when the face knows the folder's settings (the editor, the CLI), also checks that
 * `chat.mcp.access` still chooses the files the export read; the DSH side, which cannot see
 * VS Code's settings, leaves it out.
 */
export async function verifyFolder(folderPath: string, options: { dshHome: string; settings?: SettingsView; policySettings?: AnalyzeOptions['policySettings']; vscodePolicyFile?: string }): Promise<VerifyResult> {
  const folder = path.resolve(folderPath);
  const reasons: VerifyResult['reasons'] = [];
  const fail = (code: VerifyCode, message: string): VerifyResult => ({ ok: false, reasons: [{ code, message }] });
  const read = await readWorkspaceFile(folder, DECLARATION_PATH, MAX_DECLARATION_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return fail('missing', 'no declaration: export first');
    return fail('unreadable', `the declaration cannot be read (${read.failure.kind})`);
  }
  const text = Buffer.from(read.bytes).toString('utf8');
  const { root, errors, tooDeep } = parseJsonc(text);
  if (tooDeep) return fail('tampered', 'the declaration nests deeper than any declaration can');
  if (errors.length || !root) return fail('tampered', 'the declaration is not valid JSON');
  if (findDuplicateKeys(root).length) return fail('tampered', 'the declaration has duplicate keys');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail('tampered', 'the declaration is not strict JSON');
  }
  const shape = DeclarationSchema.safeParse(parsed);
  if (!shape.success) return fail('tampered', 'the declaration does not match the schema');
  const declaration = shape.data;
  const { digest, signature, ...body } = declaration;

  if (!signature) {
    reasons.push({ code: 'unsigned', message: 'the declaration carries no signature' });
  } else {
    const key = await new HostStore(options.dshHome).readSigningKey();
    const expected = key ? signDigest(digest, key) : undefined;
    if (!expected || expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
      reasons.push({ code: 'bad-signature', message: key ? 'the signature was not made with this user\'s key' : 'no signing key on this machine' });
    }
  }
  for (const server of declaration.servers) {
    // `tools` (choice, tool pins) is outside the launch pin; the digest covers it.
    const { pin, tools: _tools, ...rest } = server;
    if (canonicalHash(rest) !== pin) reasons.push({ code: 'tampered', message: `the pin of server "${server.serverName}" does not match its entry` });
  }
  if (declaration.lsp && !lspSectionPinMatches(declaration.lsp)) reasons.push({ code: 'tampered', message: 'the pin of the lsp section does not match it' });
  if (canonicalHash(body) !== digest) reasons.push({ code: 'tampered', message: 'the digest does not match the document' });
  const realOf = (p: string) => fs.realpath(p).catch(() => path.resolve(p));
  if ((await realOf(declaration.folder)) !== (await realOf(folder))) {
    reasons.push({ code: 'wrong-folder', message: 'the declaration was made for another folder' });
  }
  for (const server of declaration.servers) {
    if (server.transport !== 'stdio' || server.envFile === undefined) continue;
    if (server.envFileSha256 === undefined || typeof server.envFile !== 'string') {
      reasons.push({ code: 'stale', message: `the envFile of server "${server.serverName}" is not pinned (made by an older export): export again` });
      continue;
    }
    const envFile = await loadEnvFile(server.envFile, folder);
    if (!envFile.ok) reasons.push({ code: 'stale', message: `${envFile.reason} (server "${server.serverName}")` });
    else if (envFile.sha256 !== server.envFileSha256) reasons.push({ code: 'stale', message: `the envFile of server "${server.serverName}" changed since the export` });
  }
  // A declaration older than the folder's last export (restored with an old mcp.json) is refused.
  // Only a declaration signed with this user's key can be a rollback (any other is refused already).
  const signedHere = !reasons.some((r) => r.code === 'bad-signature' || r.code === 'unsigned');
  const lastSeq = signedHere ? await new HostStore(options.dshHome).exportSeq(declaration.folder).catch(() => undefined) : 0;
  if (lastSeq === undefined) reasons.push({ code: 'rollback', message: 'the host store record of this folder cannot be read, so the declaration cannot be shown to be the newest' });
  else if ((declaration.exportSeq ?? 0) < lastSeq) {
    reasons.push({ code: 'rollback', message: `the declaration is from export ${declaration.exportSeq ?? 0} of this folder; export ${lastSeq} was made since (an old declaration was restored)` });
  }
  // The source and every other file VS Code runs servers from: an edit, a removal or a new file is a change.
  for (const changed of await changedSources(folder, [{ path: declaration.source.path, sha256: declaration.source.sha256 }, ...(declaration.sources ?? [])])) {
    const how = { changed: 'changed since the export', removed: 'was removed since the export', created: 'was created since the export', unreadable: 'can no longer be read' }[changed.now];
    reasons.push({ code: 'stale', message: `the source ${changed.path} ${how}` });
  }
  if (options.settings) {
    const now = effectiveMcpAccess(options.settings(MCP_ACCESS_SETTING));
    const readThen = declarationReadDotMcp(declaration);
    if (dotMcpDiscoveryOn(now) !== readThen) {
      const was = declaration.mcpAccess ?? (readThen ? 'all' : 'none or registry');
      reasons.push({ code: 'stale', editorOnly: true, setting: MCP_ACCESS_SETTING, message: `${MCP_ACCESS_SETTING} is "${now}" now ("${was}" at the export): VS Code ${readThen ? 'no longer reads' : 'now reads'} ${DOT_MCP_SOURCE.path}` });
    }
    const digestNow = editorPolicyDigest(readEditorPolicy(policyView({ resolveConfig: options.settings, policySettings: options.policySettings })));
    if (digestNow !== declaration.policy?.digest) {
      reasons.push({ code: 'stale', editorOnly: true, setting: 'policy', message: `the editor's MCP server policy (${POLICY_SETTING.allowed}, ${POLICY_SETTING.denied}, ${POLICY_SETTING.managedOnly}) changed since the export` });
    }
  }
  // VS Code's policy file is seen by every face on the machine, the DSH side included.
  const policyFileChange = await vscodePolicyFileChange(declaration.policy?.file, options.vscodePolicyFile ?? VSCODE_POLICY_FILE);
  if (policyFileChange) reasons.push({ code: 'stale', message: policyFileChange });
  return { ok: reasons.length === 0, reasons, declaration };
}

/**
 * Whether VS Code's policy file differs from the one the export read: the pinned file changed or
 * went away, or (no pin) a file now exists at `defaultPath`. A message, or undefined.
 */
async function vscodePolicyFileChange(pinned: { path: string; sha256: string | null } | undefined, defaultPath: string): Promise<string | undefined> {
  const file = pinned?.path ?? defaultPath;
  const now = await readVscodePolicyFile(file);
  const was = pinned?.sha256 ?? null;
  if (now.sha256 === was) return undefined;
  if (was === null) return `VS Code's policy file ${file} appeared since the export`;
  return now.sha256 === null ? `VS Code's policy file ${file} was removed since the export` : `VS Code's policy file ${file} changed since the export`;
}
