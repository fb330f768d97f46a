import * as vscode from 'vscode';
import type { Problem } from '../../core/problems/problems';
import { checkToolChoiceLayers, TOOLS_SETTING } from '../../core/app/toolChoiceSetting';
import { toolChoiceProblemFixable, toolChoiceProblemFixes } from '../../core/app/fileFixes';
import { codeAction, shownProblem } from '../codeActions';
import type { ChangedConcerns } from '../../core/app/settingChanges';
import { DIAGNOSTIC_SOURCE, diagnosticsByFile, type DiagnosticsOwner } from '../diagnostics';
import { fileFolders } from '../mcpFiles';
import { loadSettingLayers } from '../settingLayers';
import { SettingsFileCheck } from '../settingsFileCheck';

/**
 * The check of `dsh.tools`: the core's `checkToolChoiceLayers` (the one `dsh-bridge check` runs) over
 * every layer of each folder, each problem on its node of the settings file (user,
 * `.code-workspace` or `.vscode/settings.json`) that holds it. A wrong shape allows no tool of
 * its server (fail closed), so the user has to see it where it is written. Runs (debounced) when
 * the setting changes, a settings file changes on disk, or folders or trust change.
 */
export class ToolChoiceCheck extends SettingsFileCheck {
  constructor(owner: DiagnosticsOwner, userSettings: vscode.Uri | undefined, docsUri: (code: string) => vscode.Uri, log: vscode.LogOutputChannel) {
    super(TOOLS_SETTING, owner, userSettings, docsUri, log);
  }

  wants(changed: ChangedConcerns): boolean {
    return changed.tools;
  }

  protected async check(isCurrent: () => boolean): Promise<void> {
    const problems: Problem[] = [];
    for (const folder of fileFolders()) {
      const { layers, texts } = await loadSettingLayers(folder, this.userSettings, TOOLS_SETTING);
      const checked = checkToolChoiceLayers(layers.map((layer) => {
        const text = layer.uri ? texts.get(layer.uri.toString()) : undefined;
        return { level: layer.name, value: layer.value, ...(layer.uri && text !== undefined ? { file: { name: layer.uri.toString(), text, kind: layer.kind } } : {}) };
      }));
      problems.push(...checked.problems);
      if (checked.analysis.problems.length) {
        this.log.info(`dsh.tools for ${folder.name}: ${checked.analysis.problems.length} problems (${checked.unplaced} not placed in a settings file)`);
      }
    }
    if (!isCurrent()) return;
    this.owner.replace(this.kind, diagnosticsByFile(problems, (file) => vscode.Uri.parse(file), this.docsUri).values());
  }
}

/** Settings files that can hold `dsh.tools`: user and folder `settings.json`, `.code-workspace`. */
export const TOOL_CHOICE_FILES: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/settings.json' }, { scheme: 'file', pattern: '**/*.code-workspace' }];

/** Quick fixes of `dsh.tools` problems (the core's `toolChoiceFixes`, comment-preserving edits of the document as it is). */
export class ToolChoiceCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const shown = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE).map((d) => ({ diagnostic: d, problem: shownProblem(d) }))
      .filter((s) => toolChoiceProblemFixable(s.problem.code));
    if (shown.length === 0) return [];
    const text = document.getText();
    return shown.flatMap((s) => toolChoiceProblemFixes(text, document.uri.path, s.problem).map((fix) => codeAction(document, fix, [s.diagnostic])));
  }
}
