/**
 * What only the editor knows, kept free of `vscode` so that plain-Node unit tests cover it
 * (test/unit/extension/decisions.test.ts): its secret storage's key names and what its JSON
 * language shows itself. What a session gets, and what the other faces show, the core decides.
 */

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
