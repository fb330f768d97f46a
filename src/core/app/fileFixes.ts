/**
 * The quick fixes the editor offers for the problems of a file: an MCP source, the declaration's
 * `.dsh/.gitignore`, a settings file's `dsh.tools`. Each fix is a list of comment-preserving
 * text edits and an English title template; the face turns them into its edits and words.
 */
import { analyzeSource } from '../mcp/analyze';
import type { AnalyzeOptions } from '../mcp/analyzeOptions';
import { declarationIgnoreFix, declarationIgnoreProblem } from '../mcp/ignoreRules';
import { FIXABLE_CODES, quickFixesFor, type QuickFix, type QuickFixOptions } from '../mcp/quickFixes';
import type { SourceSpec } from '../mcp/sources';
import { sameRange, type Range } from '../json/text';
import type { Problem } from '../problems/problems';
import { TOOL_CHOICE_FIXABLE_CODES, toolChoiceFixes } from '../tools/toolChoiceFixes';
import { settingsFileKind } from '../settings/sessionSettings';

/** A problem as the editor shows it: its code where it stands. */
export interface ShownProblem {
  code: string;
  range: Range;
}

/** Whether a problem of an MCP source file can have a fix (`secret-in-args` has none on purpose). */
export function sourceProblemFixable(code: string): boolean {
  return FIXABLE_CODES.has(code);
}

/**
 * The fixes of each shown problem of an MCP source whose text is `text`, in order. `analyzed`:
 * the file's problems from an analysis that saw this text, if there is one; a shown problem it
 * does not know (shown from an older text) has the text analysed again, which then decides.
 */
export function sourceProblemFixes(
  text: string, source: SourceSpec, options: AnalyzeOptions, analyzed: readonly Problem[] | undefined, shown: readonly ShownProblem[], fixOptions: QuickFixOptions = {},
): QuickFix[][] {
  const analyzeNow = () => analyzeSource(Buffer.from(text, 'utf8'), options, source).problems;
  let problems = analyzed ?? analyzeNow();
  const find = (s: ShownProblem) => problems.find((p) => p.code === s.code && sameRange(p.range, s.range));
  if (analyzed && shown.some((s) => !find(s))) problems = analyzeNow();
  return shown.map((s) => {
    const problem = find(s);
    return problem ? quickFixesFor(text, problem, fixOptions) : [];
  });
}

/** The fix of `declaration-committable` in a `.dsh/.gitignore`: none when the text already ignores the declaration (fixed, its check not run yet). */
export function declarationIgnoreFixes(text: string): QuickFix[] {
  return declarationIgnoreProblem(text) ? [declarationIgnoreFix(text)] : [];
}

/** Whether a `dsh.tools` problem can have a fix. */
export function toolChoiceProblemFixable(code: string): boolean {
  return TOOL_CHOICE_FIXABLE_CODES.has(code);
}

/** The fixes of a `dsh.tools` problem shown in a settings file (a `.code-workspace` keeps settings under `settings`). */
export function toolChoiceProblemFixes(text: string, fileName: string, shown: ShownProblem): QuickFix[] {
  return toolChoiceFixes(text, settingsFileKind(fileName), shown);
}
