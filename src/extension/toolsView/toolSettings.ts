import * as vscode from 'vscode';
import type { SettingLayerValue } from '../../core/settings/settingLayers';
import { effectiveToolChoice, stillLeftOut, TOOLS_SETTING } from '../../core/app/toolChoiceSetting';
import type { ToolChoiceAnalysis } from '../../core/tools/toolChoice';
import { editToolChoice } from '../../core/app/toolChoiceEdit';

/**
 * Each layer of a setting for a folder as VS Code's `inspect` reports it, lowest priority first,
 * for settings every layer of which only narrows (`dsh.tools`): VS Code's merged value would let
 * a workspace's list replace the user's.
 */
export function toolSettingLayers(folder: vscode.WorkspaceFolder): (key: string) => SettingLayerValue[] {
  return (key) => {
    const inspected = vscode.workspace.getConfiguration(undefined, folder.uri).inspect<unknown>(key);
    return [
      { level: 'default', value: inspected?.defaultValue },
      { level: 'user', value: inspected?.globalValue },
      { level: 'workspace', value: inspected?.workspaceValue },
      { level: 'folder', value: inspected?.workspaceFolderValue },
    ];
  };
}

/** The folder's effective tool choice (every layer narrowing). */
export function folderToolChoice(folder: vscode.WorkspaceFolder): ToolChoiceAnalysis {
  return effectiveToolChoice(toolSettingLayers(folder)(TOOLS_SETTING));
}

export type ToolToggle = 'written' | 'still-left-out' | 'invalid';

/** `dsh.toolChoiceTarget`: where a checkbox writes `dsh.tools`. */
export const TOOL_CHOICE_TARGET_SETTING = 'dsh.toolChoiceTarget';
export type ToolChoiceTarget = 'folder' | 'user';

export function toolChoiceTarget(): ToolChoiceTarget {
  return vscode.workspace.getConfiguration().get<unknown>(TOOL_CHOICE_TARGET_SETTING) === 'user' ? 'user' : 'folder';
}

/**
 * A tool's checkbox: writes `dsh.tools` in the layer `dsh.toolChoiceTarget` names, the folder's
 * own settings (shareable with the repository) or the user's. Checking a tool another layer leaves
 * out cannot bring it back (every layer only narrows): `still-left-out` says so. A layer value of
 * another shape is not touched.
 */
export async function toggleTool(folder: vscode.WorkspaceFolder, server: string, tool: string, allow: boolean, target: ToolChoiceTarget = 'folder'): Promise<ToolToggle> {
  const config = vscode.workspace.getConfiguration(undefined, folder.uri);
  const inspected = config.inspect<unknown>(TOOLS_SETTING);
  const edit = editToolChoice(target === 'user' ? inspected?.globalValue : inspected?.workspaceFolderValue, server, tool, allow);
  if (!edit.ok) return 'invalid';
  await config.update(TOOLS_SETTING, edit.value, target === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.WorkspaceFolder);
  if (allow && stillLeftOut(toolSettingLayers(folder)(TOOLS_SETTING), server, tool)) return 'still-left-out';
  return 'written';
}
