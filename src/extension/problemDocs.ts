import * as vscode from 'vscode';
import { COMMAND } from './commandIds';
import { problemDocsPath } from './decisions';


/**
 * The link of a diagnostic's code. A command link rather than a file link: a file link opens
 * the raw markdown (or nothing, if the path's casing differs from the installed file); the
 * command opens the rendered page at the code's heading.
 */
export function problemLink(code: string): vscode.Uri {
  return vscode.Uri.parse(`command:${COMMAND.explainProblem}?${encodeURIComponent(JSON.stringify([code]))}`);
}

/**
 * Opens the page rendered (the built-in Markdown preview scrolls to a fragment that names a
 * heading), or as text at the heading when the Markdown extension is disabled; the Chinese page
 * when the editor's display language is Simplified Chinese (its headings are the same codes).
 */
export async function explainProblem(extensionUri: vscode.Uri, code: unknown): Promise<void> {
  const page = vscode.Uri.joinPath(extensionUri, ...problemDocsPath(vscode.env.language).split('/'));
  const anchor = typeof code === 'string' && /^[a-z0-9-]+$/.test(code) ? code : '';
  try {
    await vscode.commands.executeCommand('markdown.showPreview', anchor ? page.with({ fragment: anchor }) : page);
    return;
  } catch {
    // no Markdown preview in this editor: show the text
  }
  const doc = await vscode.workspace.openTextDocument(page);
  const line = anchor ? doc.getText().split('\n').findIndex((l) => l === `### \`${anchor}\``) : -1;
  const at = new vscode.Position(Math.max(line, 0), 0);
  await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(at, at) });
}
