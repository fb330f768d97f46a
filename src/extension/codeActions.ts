import * as vscode from 'vscode';
import type { AnalyzeOptions } from '../core/mcp/analyzeOptions';
import type { QuickFix } from '../core/mcp/quickFixes';
import { declarationIgnoreFixes, sourceProblemFixable, sourceProblemFixes, type ShownProblem } from '../core/app/fileFixes';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import { translate } from './l10n';
import { sourceOf, sourceUri } from './mcpFiles';
import { COMMAND } from './commandIds';
import { l10n } from './l10nLookup';
import type { McpJsonCheck } from './mcpJsonCheck';

function codeOf(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (typeof c === 'object' && c !== null) return String(c.value);
  return c === undefined ? undefined : String(c);
}

/** A diagnostic as the core's fixes take it: its code where it stands. */
export function shownProblem(d: vscode.Diagnostic): ShownProblem {
  const { start, end } = d.range;
  return { code: codeOf(d) ?? '', range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } } };
}

/**
 * Quick fixes for the diagnostics of the MCP source files: the core's `sourceProblemFixes`, given
 * the mcp.json check's cached analysis of the folder when no check of it waits or runs (it then
 * saw the document as it is); the edits become a WorkspaceEdit.
 */
export class McpCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly options: (folder: vscode.WorkspaceFolder) => AnalyzeOptions,
  ) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && sourceProblemFixable(codeOf(d) ?? ''));
    if (ours.length === 0) return [];
    const source = sourceOf(document.uri);
    const folder = source?.folders[0];
    if (!source || !folder) return [];
    const here = document.uri.toString();
    const cached = this.mcp.isCurrent(folder) ? this.mcp.get(folder)?.analysis.problems.filter((p) => sourceUri(folder.uri, p.file).toString() === here) : undefined;
    const fixes = sourceProblemFixes(document.getText(), source.spec, this.options(folder), cached, ours.map(shownProblem), { inputDescription: (id) => translate('Value of {id}', { id }) });
    return ours.flatMap((diagnostic, i) => fixes[i].map((fix) => codeAction(document, fix, [diagnostic])));
  }
}

/** A core fix as a code action on `document`. */
export function codeAction(document: vscode.TextDocument, fix: QuickFix, diagnostics: vscode.Diagnostic[]): vscode.CodeAction {
  const action = new vscode.CodeAction(translate(fix.title, fix.args), vscode.CodeActionKind.QuickFix);
  const edit = new vscode.WorkspaceEdit();
  for (const e of fix.edits) {
    edit.replace(document.uri, new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)), e.content);
  }
  action.edit = edit;
  action.diagnostics = diagnostics;
  action.isPreferred = fix.isPreferred;
  return action;
}

/** The fix of `declaration-committable` in a `.dsh/.gitignore`: the rule that ignores the declaration, added last. */
export class DeclarationIgnoreCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && codeOf(d) === 'declaration-committable');
    if (ours.length === 0) return [];
    return declarationIgnoreFixes(document.getText()).map((fix) => codeAction(document, fix, ours));
  }
}

/**
 * In `.vscode/mcp.json` (a listed, deprecated destination since VS Code 1.140): the move of its
 * servers into `.mcp.json`, offered wherever the cursor is; it runs the command, which asks first.
 */
export class PortableMoveCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.RefactorMove];

  provideCodeActions(document: vscode.TextDocument): vscode.CodeAction[] {
    const source = sourceOf(document.uri);
    const folder = source?.folders[0];
    if (!folder || source.spec.dialect !== 'vscode' || source.spec.path !== '.vscode/mcp.json') return [];
    const action = new vscode.CodeAction(l10n.t('Move Servers to .mcp.json (the portable file)...'), vscode.CodeActionKind.RefactorMove);
    action.command = { command: COMMAND.moveToPortableFile, title: action.title, arguments: [folder.uri] };
    return [action];
  }
}
