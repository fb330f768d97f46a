import * as vscode from 'vscode';
import type { Problem, Severity } from '../core/problems/problems';
import { translate } from './l10n';

/**
 * Diagnostics of language-server settings and skill files: shared wording and conversion. The
 * caller passes its code table (`LSP_PROBLEM_CODES`, `SKILL_PROBLEM_CODES`, ...), so this module
 * pulls in neither.
 */

export const SECTION_SOURCE = 'dsh-bridge';

export type Templates = Readonly<Record<string, readonly [Severity, string]>>;

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function sectionMessage(problem: Pick<Problem, 'code' | 'args' | 'message'>, templates: Templates): string {
  const template = Object.hasOwn(templates, problem.code) ? templates[problem.code][1] : undefined;
  return template ? translate(template, problem.args) : problem.message;
}

function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/**
 * One diagnostic per problem. `uriOf` maps `Problem.file` (and related files) to a URI: absolute
 * paths for skills, URI strings for settings files.
 */
export function sectionDiagnostic(problem: Problem, templates: Templates, uriOf: (file: string) => vscode.Uri, docsUri: (code: string) => vscode.Uri): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toRange(problem.range), sectionMessage(problem, templates), SEVERITY[problem.severity]);
  d.source = SECTION_SOURCE;
  d.code = { value: problem.code, target: docsUri(problem.code) };
  if (problem.related?.length) {
    d.relatedInformation = problem.related.map((r) => new vscode.DiagnosticRelatedInformation(new vscode.Location(uriOf(r.file), toRange(r.range)), r.message));
  }
  if (problem.code === 'skill-shadowed' || problem.code === 'lsp-unknown-key') d.tags = [vscode.DiagnosticTag.Unnecessary];
  return d;
}

/**
 * Groups problems by file into diagnostics, dropping exact duplicates (the same user-level file
 * analysed for several workspace folders).
 */
export function diagnosticsByFile(problems: readonly Problem[], templates: Templates, uriOf: (file: string) => vscode.Uri, docsUri: (code: string) => vscode.Uri): Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }> {
  const out = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  const seen = new Set<string>();
  for (const p of problems) {
    const key = JSON.stringify([p.file, p.code, p.range, p.message, p.related]);
    if (seen.has(key)) continue;
    seen.add(key);
    const uri = uriOf(p.file);
    let entry = out.get(uri.toString());
    if (!entry) out.set(uri.toString(), entry = { uri, diagnostics: [] });
    entry.diagnostics.push(sectionDiagnostic(p, templates, uriOf, docsUri));
  }
  return out;
}
