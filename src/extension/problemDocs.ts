import * as vscode from 'vscode';
import { problemPageUrl } from '../core/app/problemCatalog';

/**
 * The link of every diagnostic's code: the repository's page of the problem codes, in the
 * display language, at the code's heading (the repository as package.json names it). The
 * editor opens it in the browser, where the page's own links resolve.
 */
export function problemLinks(packageJSON: unknown): (code: string) => vscode.Uri {
  const repository = (packageJSON as { repository?: { url?: unknown } } | undefined)?.repository?.url;
  return (code) => vscode.Uri.parse(problemPageUrl(typeof repository === 'string' ? repository : '', vscode.env.language, code));
}
