/**
 * Decisions of the editor layer that need no editor: kept free of `vscode` so that plain-Node
 * unit tests cover them (test/unit/extension/decisions.test.ts).
 */

/**
 * What the declaration on disk is, named precisely: a declaration from another user's key or
 * another folder is not "tampered", and says so; `older` is an earlier export restored over a newer one.
 */
export type DeclarationState = 'up-to-date' | 'stale' | 'changed' | 'older' | 'unsigned' | 'other-folder' | 'other-key' | 'missing' | 'invalid';

/** The state, from the core's verify reasons; the most specific one wins. */
export function declarationState(result: { ok: boolean; reasons: ReadonlyArray<{ code: string }> }): DeclarationState {
  if (result.ok) return 'up-to-date';
  const codes = new Set(result.reasons.map((r) => r.code));
  if (codes.has('missing')) return 'missing';
  if (codes.has('unreadable')) return 'invalid';
  if (codes.has('tampered')) return 'changed';
  if (codes.has('unsigned')) return 'unsigned';
  if (codes.has('wrong-folder')) return 'other-folder';
  if (codes.has('bad-signature')) return 'other-key';
  // Only a declaration signed with this user's key can be an older export of theirs.
  if (codes.has('rollback')) return 'older';
  return 'stale';
}

/** Which of the extension's concerns a configuration change touches (a pure predicate over the event). */
export interface ChangedConcerns {
  trustMode: boolean;
  home: boolean;
  export: boolean;
  /** `dsh.lsp.servers`: the language-server checks. */
  lsp: boolean;
  /** `dsh.skills.customRoots` or `dsh.home`: where skill roots are and which are trusted. */
  skillRoots: boolean;
  /** `dsh.tools`: which probed tools DSH sessions get. */
  tools: boolean;
  /** `chat.mcp.access` and `chat.mcp.collisionBehavior`: which files and which of their servers VS Code runs. */
  sources: boolean;
  any: boolean;
}

export function changedConcerns(affects: (section: string) => boolean): ChangedConcerns {
  const trustMode = affects('dsh.trustMode');
  const home = affects('dsh.home');
  const exportSettings = affects('dsh.export');
  const lsp = affects('dsh.lsp.servers');
  const skillRoots = affects('dsh.skills.customRoots') || home;
  const tools = affects('dsh.tools');
  // The policy settings decide which servers are exported, as chat.mcp.access and the collision setting decide which are read.
  const sources = affects('chat.mcp.access') || affects('chat.mcp.collisionBehavior') || affects('chat.mcp.allowedServers') || affects('chat.mcp.deniedServers') || affects('chat.mcp.allowManagedServersOnly');
  return { trustMode, home, export: exportSettings, lsp, skillRoots, tools, sources, any: trustMode || home || exportSettings || lsp || skillRoots || tools || sources };
}

/** Secret-storage keys: one per workspace folder and input id, unambiguous for any characters. */
export function inputSecretKey(folder: string, id: string): string {
  return `input:${JSON.stringify([folder, id])}`;
}

export function inputIndexKey(folder: string): string {
  return `index:${JSON.stringify(folder)}`;
}

/** Codes not shown for a document open in the editor, whose JSON language reports them itself. */
const SHOWN_BY_EDITOR_WHEN_OPEN: ReadonlySet<string> = new Set(['invalid-json']);

export function keepForDocument(code: string, openInEditor: boolean): boolean {
  return !(openInEditor && SHOWN_BY_EDITOR_WHEN_OPEN.has(code));
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

/**
 * The page of the problem codes (docs/ in the repository; the editor writes the page of that name
 * into its storage): in Simplified Chinese when the editor is, else in English.
 */
export function problemDocsPath(language: string): string {
  return /^zh-(cn|hans|sg)\b/i.test(language) ? 'docs/problem-codes.zh-cn.md' : 'docs/problem-codes.md';
}
