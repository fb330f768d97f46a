import * as vscode from 'vscode';
import { problemLink } from './problemDocs';
import type { SkillGateResult } from '../core/skills/skillGate';
import { LspDiagnostics } from './lsp/lspDiagnostics';
import { userSettingsUri } from './lsp/lspSettingLayers';
import { whichLanguageServer } from './lsp/whichServer';
import type { SkillsPart } from './skills/index';
import type { SkillsSnapshot } from './skills/skillRoots';

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
  /** Status of the skill roots (text, tooltip, roots with trust states), for tests and the activation API. */
  skillsStatus(): Promise<SkillsSnapshot>;
  /** What the DSH plugin's skill gate does in a session of `folder`, from a fresh discovery. */
  skillGate(folder: vscode.WorkspaceFolder): Promise<SkillGateResult | undefined>;
}

/**
 * Language servers (`dsh.lsp.servers`) and skill roots: diagnostics on the settings files and on
 * SKILL.md files, the skill-trust status, and the two commands. No I/O on this synchronous path:
 * the first checks run from timers, and the skills part (which brings the YAML parser) is loaded
 * only then, so it does not weigh on activation.
 */
export function registerLspAndSkills(context: vscode.ExtensionContext, services: LspAndSkillsServices): LspAndSkills {
  const { log } = services;
  const invalidSetting = services.invalidSetting ?? ((key: string) => log.warn(`setting ${key} has an invalid value; its default is used`));
  const docsUri = problemLink;
  const dshHome = () => services.dshHome();
  const userSettings = userSettingsUri(context.globalStorageUri);
  const lsp = new LspDiagnostics(userSettings, docsUri, log);

  let disposed = false;
  let skills: Promise<SkillsPart> | undefined;
  const skillsPart = (): Promise<SkillsPart> => skills ??= import('./skills/index.js').then(({ createSkillsPart }) => {
    const part = createSkillsPart({ dshHome, docsUri, log, invalidSetting });
    if (disposed) part.dispose();
    return part;
  });

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
  const start = setTimeout(() => {
    void skillsPart().then((part) => part.roots.schedule(0), (error) => log.error('loading the skills part failed', error));
  }, 0);
  const disposables: vscode.Disposable[] = [
    lsp,
    // Second argument: {silent: true} answers without a notification (tests).
    guard(LSP_SKILLS_COMMANDS.whichLanguageServer, (arg, options) => whichLanguageServer(arg, userSettings, (options ?? {}) as { silent?: boolean })),
    guard(LSP_SKILLS_COMMANDS.reviewSkillRoots, async (arg) => (await skillsPart()).review.run(arg)),
  ];
  lsp.schedule(0);

  return {
    async skillsStatus() {
      return (await skillsPart()).roots.snapshot();
    },
    async skillGate(folder) {
      const part = await skillsPart();
      await part.roots.refreshNow();
      return part.roots.gateFor(folder);
    },
    dispose() {
      disposed = true;
      clearTimeout(start);
      for (const d of disposables.splice(0)) d.dispose();
      void skills?.then((part) => part.dispose(), () => undefined);
    },
  };
}
