import type * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import type { DiagnosticsOwner } from '../diagnostics';
import { SkillReview } from './review';
import { SkillRoots } from './skillRoots';

/** The skills part (discovery, diagnostics, status, review), loaded after activation: it brings the YAML parser. */
export interface SkillsPart extends vscode.Disposable {
  roots: SkillRoots;
  review: SkillReview;
}

export function createSkillsPart(owner: DiagnosticsOwner, ctx: Ctx, docsUri: (code: string) => vscode.Uri): SkillsPart {
  const roots = new SkillRoots(owner, ctx, docsUri);
  const review = new SkillReview(roots, ctx);
  return { roots, review, dispose: () => roots.dispose() };
}
