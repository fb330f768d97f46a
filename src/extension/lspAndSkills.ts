import * as vscode from 'vscode';
import { computeDeclarationSections, type DeclarationSections } from '../core/sections';
import { LspDiagnostics } from './lsp/lspDiagnostics';
import { lspSettingLayers, mergedValue, userSettingsUri } from './lsp/settingsLayers';
import { whichLanguageServer } from './lsp/whichServer';
import { SkillReview } from './skills/review';
import { readCustomRoots, SkillRoots } from './skills/skillRoots';

export const LSP_SKILLS_COMMANDS = {
  whichLanguageServer: 'dsh.whichLanguageServer',
  reviewSkillRoots: 'dsh.reviewSkillRoots',
} as const;

export interface LspAndSkillsServices {
  log: vscode.LogOutputChannel;
  /** The resolved DSH home (the `dsh.home` setting, else `$DSH_HOME`, else `~/.dsh`). */
  dshHome(): string;
  /** Reports a setting with an invalid value (once); default: a log warning. */
  invalidSetting?(key: string): void;
}

/** What the composition root and the export get back. */
export interface LspAndSkills extends vscode.Disposable {
  /** The declaration sections (`lsp`, `skills`) of a folder, computed fresh: pass them to `exportFolder({..., sections})`. */
  declarationSections(folder: vscode.WorkspaceFolder): Promise<DeclarationSections>;
  /** Status of the skill roots (text, tooltip, roots with trust states), for tests and the activation API. */
  skillsStatus(): ReturnType<SkillRoots['snapshot']>;
}

/**
 * Language servers (`dsh.lsp.servers`) and skill roots: diagnostics on the settings files and on
 * SKILL.md files, the skill-trust status, and the two commands. No I/O on this synchronous path:
 * the first checks run from timers.
 */
export function registerLspAndSkills(context: vscode.ExtensionContext, services: LspAndSkillsServices): LspAndSkills {
  const { log } = services;
  const invalidSetting = services.invalidSetting ?? ((key: string) => log.warn(`setting ${key} has an invalid value; its default is used`));
  const docsUri = (code: string) => vscode.Uri.joinPath(context.extensionUri, 'README.md').with({ fragment: code });
  const userSettings = userSettingsUri(context.globalStorageUri);
  const lsp = new LspDiagnostics(userSettings, docsUri, log);
  const skills = new SkillRoots(() => services.dshHome(), docsUri, log, invalidSetting);
  const review = new SkillReview(skills, () => services.dshHome(), log);

  const guard = (id: string, fn: (...args: unknown[]) => Promise<unknown>) => vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await fn(...args);
    } catch (error) {
      log.error(`${id} failed`, error);
      const showLogs = vscode.l10n.t('Show Logs');
      void vscode.window.showErrorMessage(vscode.l10n.t('DSH Bridge: {0} failed. The log has the details.', id), showLogs).then((c) => {
        if (c === showLogs) log.show();
      });
      return undefined;
    }
  });
  const disposables: vscode.Disposable[] = [
    lsp,
    skills,
    // Second argument: {silent: true} answers without a notification (tests).
    guard(LSP_SKILLS_COMMANDS.whichLanguageServer, (arg, options) => whichLanguageServer(arg, userSettings, (options ?? {}) as { silent?: boolean })),
    guard(LSP_SKILLS_COMMANDS.reviewSkillRoots, (arg) => review.run(arg)),
  ];
  lsp.schedule(0);
  skills.schedule(0);

  return {
    async declarationSections(folder) {
      return computeDeclarationSections({
        folder: folder.uri.fsPath,
        dshHome: services.dshHome(),
        lspServers: mergedValue(lspSettingLayers(folder, userSettings)),
        customSkillRoots: readCustomRoots(folder, invalidSetting),
      });
    },
    skillsStatus: () => skills.snapshot(),
    dispose() {
      for (const d of disposables.splice(0)) d.dispose();
    },
  };
}
