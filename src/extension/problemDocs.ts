import * as path from 'node:path';
import * as vscode from 'vscode';
import { problemCodesPage } from '../core/app/problemCodesPage';
import { COMMAND } from './commandIds';
import { problemDocsPath } from './decisions';
import { l10n } from './l10nLookup';

/**
 * The link of a diagnostic's code. A command link rather than a file link: a file link opens
 * the raw markdown (or nothing, if the path's casing differs from the installed file); the
 * command opens the rendered page at the code's heading.
 */
export function problemLink(code: string): vscode.Uri {
  return vscode.Uri.parse(`command:${COMMAND.explainProblem}?${encodeURIComponent(JSON.stringify([code]))}`);
}

/**
 * The page in the extension's storage, in the display language (problem-codes.zh-cn.md in
 * Simplified Chinese, else problem-codes.md), as this version words it: written from the catalog
 * (the .vsix ships no copy: its bundles have every text), replaced whole when it differs.
 */
async function writtenPage(storageUri: vscode.Uri, language: string): Promise<vscode.Uri> {
  const name = path.posix.basename(problemDocsPath(language));
  const page = vscode.Uri.joinPath(storageUri, name);
  const text = name === 'problem-codes.md' ? problemCodesPage() : problemCodesPage((english) => l10n.t(english));
  const current = await vscode.workspace.fs.readFile(page).then((bytes) => Buffer.from(bytes).toString('utf8'), () => undefined);
  if (current !== text) {
    await vscode.workspace.fs.createDirectory(storageUri);
    // Written beside it and renamed over it, so a reader never sees half a page.
    const temp = vscode.Uri.joinPath(storageUri, `.${name}.${process.pid}-${Date.now()}.tmp`);
    await vscode.workspace.fs.writeFile(temp, Buffer.from(text, 'utf8'));
    await vscode.workspace.fs.rename(temp, page, { overwrite: true });
  }
  return page;
}

/**
 * Opens the page rendered (the built-in Markdown preview scrolls to a fragment that names a
 * heading), or as text at the heading when the Markdown extension is disabled; the Chinese page
 * when the editor's display language is Simplified Chinese (its headings are the same codes).
 */
export async function explainProblem(storageUri: vscode.Uri, code: unknown): Promise<void> {
  const page = await writtenPage(storageUri, vscode.env.language);
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
