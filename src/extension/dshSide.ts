import * as vscode from 'vscode';
import { dshSideInstallCommands } from '../core/app/dshSideInstall';
import { createPathResolver } from '../core/node/commandPath';
import { resolveDshHome } from '../core/node/hostStore';
import { showInformation } from './visible';
import { l10n } from './l10nLookup';

export type DshSideOutcome = 'terminal' | 'copied' | 'cancelled';

/**
 * *DSH: Install the DSH Side...* (the walkthrough's last step): shows the exact commands that
 * install DSH and the DSH Bridge plugin. With `dsh-bridge` on PATH it offers to run its
 * `dsh install` in a terminal; the extension ships no CLI, so without it the commands that get
 * it come first and are offered for copying, never run from here.
 */
export async function installDshSide(dshHome: string, log: vscode.LogOutputChannel): Promise<DshSideOutcome> {
  const cli = await createPathResolver({ env: process.env })('dsh-bridge', {});
  const lines = dshSideInstallCommands({ cliOnPath: cli !== undefined, dshHome, defaultDshHome: resolveDshHome(undefined) });
  const run = l10n.t('Run in Terminal');
  const copy = lines.length === 1 ? l10n.t('Copy Command') : l10n.t('Copy Commands');
  const detail = [
    ...lines, '',
    l10n.t('It installs DSH 0.1.0-rc.8 (about 450 npm packages, 1 to 2 minutes) and adds the DSH Bridge plugin to the DSH profile "headless".'),
    ...(cli ? [] : ['', l10n.t('The extension does not include the dsh-bridge command: these commands install it from its repository first.')]),
  ].join('\n');
  const message = cli
    ? l10n.t('Install DSH and the DSH Bridge plugin with {0}?', cli)
    : l10n.t('Install the DSH side with these commands in a terminal:');
  const choice = await showInformation(message, { modal: true, detail }, ...(cli ? [run, copy] : [copy]));
  if (choice === run) {
    const terminal = vscode.window.createTerminal({ name: l10n.t('DSH: install the DSH side') });
    terminal.show();
    terminal.sendText(lines.join(' && '));
    log.info(`install the DSH side: ran "${lines.join(' && ')}" in a terminal`);
    return 'terminal';
  }
  if (choice === copy) {
    await vscode.env.clipboard.writeText(lines.join('\n'));
    void showInformation(lines.length === 1
      ? l10n.t('Copied the command: paste it into a terminal.')
      : l10n.t('Copied the commands: paste them into a terminal.'));
    return 'copied';
  }
  return 'cancelled';
}
