import type * as vscode from 'vscode';
import { SkillReview } from './review';
import { SkillRoots } from './skillRoots';

/** The skills part (discovery, diagnostics, status, review), loaded after activation: it brings the YAML parser. */
export interface SkillsPart extends vscode.Disposable {
  roots: SkillRoots;
  review: SkillReview;
}

export function createSkillsPart(options: {
  dshHome: () => string;
  docsUri: (code: string) => vscode.Uri;
  log: vscode.LogOutputChannel;
  invalidSetting: (key: string) => void;
}): SkillsPart {
  const roots = new SkillRoots(options.dshHome, options.docsUri, options.log, options.invalidSetting);
  const review = new SkillReview(roots, options.dshHome, options.log);
  return { roots, review, dispose: () => roots.dispose() };
}
