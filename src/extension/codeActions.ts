import * as vscode from 'vscode';
import { analyzeSource } from '../core/mcp/analyze';
import type { AnalyzeOptions } from '../core/mcp/analyzeOptions';
import { FIXABLE_CODES, quickFixesFor, type QuickFix } from '../core/mcp/quickFixes';
import { declarationIgnoreFix, declarationIgnoreProblem } from '../core/mcp/ignoreRules';
import type { Problem } from '../core/problems/problems';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import { translate } from './l10n';
import { sourceOf, sourceUri } from './mcpFiles';
import type { McpJsonCheck } from './mcpJsonCheck';

function codeOf(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (typeof c === 'object' && c !== null) return String(c.value);
  return c === undefined ? undefined : String(c);
}

function sameRange(problem: Problem, range: vscode.Range): boolean {
  const r = problem.range;
  return r.start.line === range.start.line && r.start.character === range.start.character
    && r.end.line === range.end.line && r.end.character === range.end.character;
}

/**
 * Quick fixes for the diagnostics of the MCP source files. The fixes come from the core
 * (`quickFixesFor`, comment-preserving edits); each diagnostic's problem (code, range, arguments)
 * comes from the mcp.json check's cached analysis of the folder when no check of it waits or runs
 * (it then saw the document as it is), else from analysing the text now; the edits become a
 * WorkspaceEdit.
 */
export class McpCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly options: (folder: vscode.WorkspaceFolder) => AnalyzeOptions,
  ) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && FIXABLE_CODES.has(codeOf(d) ?? ''));
    if (ours.length === 0) return [];
    const source = sourceOf(document.uri);
    const folder = source?.folders[0];
    if (!source || !folder) return [];
    const text = document.getText();
    const here = document.uri.toString();
    const analyzeNow = () => analyzeSource(Buffer.from(text, 'utf8'), this.options(folder), source.spec).problems;
    const cached = this.mcp.isCurrent(folder) ? this.mcp.get(folder)?.analysis.problems.filter((p) => sourceUri(folder.uri, p.file).toString() === here) : undefined;
    let problems = cached ?? analyzeNow();
    const find = (diagnostic: vscode.Diagnostic) => problems.find((p) => p.code === codeOf(diagnostic) && sameRange(p, diagnostic.range));
    // A diagnostic the cache does not know (the editor asked between an edit and its check): the text decides.
    if (cached && ours.some((d) => !find(d))) problems = analyzeNow();
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of ours) {
      const problem = find(diagnostic);
      if (!problem) continue;
      const fixes = quickFixesFor(text, problem, { inputDescription: (id) => translate('Value of {id}', { id }) });
      for (const fix of fixes) actions.push(codeAction(document, fix, [diagnostic]));
    }
    return actions;
  }
}

/** A core fix as a code action on `document`. */
function codeAction(document: vscode.TextDocument, fix: QuickFix, diagnostics: vscode.Diagnostic[]): vscode.CodeAction {
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
    const text = document.getText();
    // The text decides: a document already fixed (its check not run yet) gets no second rule.
    if (ours.length === 0 || !declarationIgnoreProblem(text)) return [];
    return [codeAction(document, declarationIgnoreFix(text), ours)];
  }
}
