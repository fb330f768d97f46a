/**
 * Decisions of the editor layer that need no editor: kept free of `vscode` so that plain-Node
 * unit tests cover them (test/unit/extensionLogic.test.ts).
 */

export type DeclarationState = 'up-to-date' | 'stale' | 'tampered' | 'missing' | 'invalid';

/** What the status item shows, from the core's verify reasons (the worst one wins). */
export function declarationState(result: { ok: boolean; reasons: ReadonlyArray<{ code: string }> }): DeclarationState {
  if (result.ok) return 'up-to-date';
  const codes = new Set(result.reasons.map((r) => r.code));
  if (codes.has('missing')) return 'missing';
  if (codes.has('tampered') || codes.has('bad-signature') || codes.has('unsigned') || codes.has('wrong-folder') || codes.has('rollback')) return 'tampered';
  if (codes.has('unreadable')) return 'invalid';
  return 'stale';
}

/** Which of the bridge's concerns a configuration change touches (a pure predicate over the event). */
export function changedConcerns(affects: (section: string) => boolean): { trustMode: boolean; home: boolean; export: boolean; any: boolean } {
  const trustMode = affects('dsh.trustMode');
  const home = affects('dsh.home');
  const exportSettings = affects('dsh.export');
  return { trustMode, home, export: exportSettings, any: trustMode || home || exportSettings };
}

/** Secret-storage keys: one per workspace folder and input id, unambiguous for any characters. */
export function inputSecretKey(folder: string, id: string): string {
  return `input:${JSON.stringify([folder, id])}`;
}

export function inputIndexKey(folder: string): string {
  return `index:${JSON.stringify(folder)}`;
}

/** Codes not shown for a document open in the editor, whose JSON language reports them itself. */
export const SHOWN_BY_EDITOR_WHEN_OPEN: ReadonlySet<string> = new Set(['invalid-json']);

export function keepForDocument(code: string, openInEditor: boolean): boolean {
  return !(openInEditor && SHOWN_BY_EDITOR_WHEN_OPEN.has(code));
}
