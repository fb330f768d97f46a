import * as vscode from 'vscode';
import type { DoctorFix } from '../core/app/doctor';
import { COMMAND, SERVERS_VIEW_ID } from './commandIds';
import type { Ctx } from './ctx';
import { showWarning } from './visible';
import { l10n } from './l10nLookup';

/** One fix of the editor's doctor: its words, the button that runs the editor's own command, and the CLI line where only the CLI does it. */
export interface EditorFix {
  text: string;
  /** The button's title and the arguments of COMMAND.runDoctorFix; none where the editor has no command (a policy, DSH's environment). */
  button?: { title: string; args: [folder: string, fix: DoctorFixRequest] };
  /** The command line, shown only for what only the CLI does (installing the DSH side) and for advice that is a command. */
  cli?: string;
}

/** What a fix's button asks the editor to do (the arguments of a command link: plain data). */
export interface DoctorFixRequest {
  code: NonNullable<DoctorFix['code']>;
  /** The declaration's names (or input ids) it is for. */
  names: string[];
}

const list = (names: readonly string[]) => names.join(l10n.t(', '));

/**
 * The core's fixes in the editor's words: fixes of one kind are one fix (all of its servers
 * named), each with the button that runs the editor's command; the CLI is named only for
 * installing the DSH side, which the .vsix cannot do.
 */
export function editorFixes(fixes: readonly DoctorFix[], folder: vscode.WorkspaceFolder, profile: string): EditorFix[] {
  type Group = { fix: DoctorFix; names: string[] };
  const groups: Array<Group | { advice: string }> = [];
  const byKind = new Map<string, Group>();
  for (const fix of fixes) {
    if (fix.code === undefined) {
      groups.push({ advice: fix.command });
      continue;
    }
    // An export of another folder (the one above with the MCP configuration) is not this folder's export.
    const elsewhere = fix.args.workspace !== undefined && fix.args.workspace !== folder.uri.fsPath ? fix.args.workspace : '';
    const key = `${fix.code}\0${fix.code === 'trust-pinned' && fix.args.name === undefined ? 'deny' : ''}\0${elsewhere}`;
    let group = byKind.get(key);
    if (!group) {
      group = { fix, names: [] };
      byKind.set(key, group);
      groups.push(group);
    }
    const name = fix.args.id ?? fix.args.name ?? fix.args.root ?? fix.args.file;
    if (name !== undefined && !group.names.includes(name)) group.names.push(name);
  }
  const button = (title: string, code: DoctorFixRequest['code'], names: string[]) => ({ title, args: [folder.uri.toString(), { code, names }] as [string, DoctorFixRequest] });
  return groups.map((g) => ('advice' in g ? { text: g.advice } : worded(g.fix, g.names, folder, profile, button)));
}

function worded(fix: DoctorFix, names: string[], folder: vscode.WorkspaceFolder, profile: string,
  button: (title: string, code: DoctorFixRequest['code'], names: string[]) => NonNullable<EditorFix['button']>): EditorFix {
  switch (fix.code) {
    case 'install':
      return { text: l10n.t('Install DSH and the DSH Bridge plugin in profile "{0}": the dsh-bridge command line tool does it (the extension does not include it).', fix.args.profile ?? profile), button: button(l10n.t('Install DeepSeek Harness and the Plugin...'), 'install', []), cli: fix.command };
    case 'export':
      if (fix.args.workspace !== undefined && fix.args.workspace !== folder.uri.fsPath) return { text: l10n.t('Open {0} in VS Code and export it, then start DSH in that folder.', fix.args.workspace) };
      return { text: l10n.t('Export the MCP servers of {0}.', folder.name), button: button(l10n.t('Export MCP Servers to DSH'), 'export', []) };
    case 'approve':
      return { text: l10n.t('Approve {0} for DSH: the export asks for each server not approved yet.', list(names)), button: button(l10n.t('Export and Approve...'), 'approve', names) };
    case 'trust-pinned':
      if (names.length === 0) return { text: l10n.t('The trust mode is "deny": DSH starts nothing from any declaration on this machine.'), button: button(l10n.t('Change the Trust Mode'), 'trust-pinned', []) };
      return {
        text: l10n.t('DSH asks before it starts {0}, and a run of profile "{1}" has no one to answer: set this machine\'s trust mode to "pinned" and approve them.', list(names), profile),
        button: button(l10n.t('Set Trust Mode and Approve...'), 'trust-pinned', names),
      };
    case 'inputs-set':
      return { text: names.length === 1 ? l10n.t('Enter the value of input "{0}" for {1}.', names[0], folder.name) : l10n.t('Enter the values of the inputs {0} for {1}.', list(names), folder.name), button: button(l10n.t('Enter MCP Input Values'), 'inputs-set', names) };
    case 'probe':
      return { text: l10n.t('Probe {0} (its tools get pins), then export.', list(names)), button: button(l10n.t('Probe and Export'), 'probe', names) };
    case 'skills-trust':
    case 'skills-accept':
      return { text: l10n.t('Review the skill roots of {0}.', folder.name), button: button(l10n.t('Review Skill Roots...'), fix.code, names) };
    case 'tools-accept':
      return { text: l10n.t('A tool of {0} is withheld for its scan findings: accept it on its row in the MCP Servers for DSH view if you trust it.', list(names)), button: button(l10n.t('Show the View'), 'tools-accept', names) };
    case 'check':
      return { text: l10n.t('Fix the problems of the MCP configuration.'), button: button(l10n.t('Show Problems'), 'check', []) };
    case 'set-env':
      return { text: l10n.t('Set {0} in the environment DSH starts in.', list(names)) };
    case 'policy':
      return { text: l10n.t('Only the owner of the MCP server policy can change what it blocks.') };
    default:
      return { text: fix.command };
  }
}

const FIX_CODES: readonly DoctorFixRequest['code'][] = ['install', 'export', 'approve', 'trust-pinned', 'inputs-set', 'probe', 'skills-trust', 'skills-accept', 'tools-accept', 'check'];

/**
 * COMMAND.runDoctorFix: the doctor's button runs the editor's own command for the fix, in the
 * report's folder. Switching the trust mode (the machine's, every folder's) is asked first,
 * Cancel the default.
 */
export async function runDoctorFix(ctx: Pick<Ctx, 'log'>, folderArg: unknown, fixArg: unknown): Promise<unknown> {
  const folder = typeof folderArg === 'string' ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(folderArg)) : undefined;
  const fix = fixArg as Partial<DoctorFixRequest> | undefined;
  if (!folder || !fix || !FIX_CODES.includes(fix.code as DoctorFixRequest['code'])) return undefined;
  const names = Array.isArray(fix.names) ? fix.names.filter((n): n is string => typeof n === 'string') : [];
  ctx.log.info(`doctor: the fix ${fix.code} of ${folder.name}${names.length ? ` (${names.join(', ')})` : ''}`);
  const run = (id: string, ...args: unknown[]) => vscode.commands.executeCommand(id, ...args);
  switch (fix.code as DoctorFixRequest['code']) {
    case 'install': return run(COMMAND.installDshSide);
    case 'export': case 'approve': return run(COMMAND.export, folder.uri);
    case 'trust-pinned': {
      if (names.length === 0) return run('workbench.action.openSettings', 'dsh.trustMode');
      const set = l10n.t('Set "pinned" and Approve');
      const choice = await showWarning(l10n.t('Set this machine\'s trust mode to "pinned"?'), {
        modal: true,
        detail: l10n.t('The trust mode is this machine\'s, for every folder: in "pinned" mode DSH starts the servers you approved without asking, and still asks before any other. The export then asks you to approve {0}.', list(names)),
      }, set);
      if (choice !== set) return undefined;
      await vscode.workspace.getConfiguration('dsh').update('trustMode', 'pinned', vscode.ConfigurationTarget.Global);
      return run(COMMAND.export, folder.uri);
    }
    case 'inputs-set': return run(COMMAND.enterInputValues, folder.uri);
    case 'probe':
      if (names.length === 1) return run(COMMAND.reprobeAndAccept, folder.uri, names[0]);
      await run(COMMAND.probeMcpServers, folder.uri, names);
      return run(COMMAND.export, folder.uri);
    case 'skills-trust': case 'skills-accept': return run(COMMAND.reviewSkillRoots, folder.uri);
    case 'tools-accept': return run(`${SERVERS_VIEW_ID}.focus`);
    case 'check': return run('workbench.actions.view.problems');
    default: return undefined;
  }
}
