/**
 * The `dsh.tools` setting as the editor reads and checks it: the folder's effective choice over
 * every layer, whether a tool the user allowed is still left out by another layer, and the check
 * of every layer placed in its settings file (the one `dsh-bridge check` runs).
 */
import type { SettingsFileKind } from '../settings/settingsFile';
import type { SettingLayerValue } from '../settings/settingLayers';
import { analyzeToolChoice, checkToolChoice, TOOLS_SETTING, type ToolChoiceAnalysis, type ToolChoiceCheckResult } from '../tools/toolChoice';
import { toolOffered } from './probedTools';

export { TOOLS_SETTING };

/** The folder's effective tool choice: every layer (lowest priority first) only narrows. */
export function effectiveToolChoice(layers: readonly SettingLayerValue[]): ToolChoiceAnalysis {
  return analyzeToolChoice(layers);
}

/** Whether a tool the user just allowed stays left out: another layer leaves it out (every layer only narrows). */
export function stillLeftOut(layers: readonly SettingLayerValue[], server: string, tool: string): boolean {
  return !toolOffered(analyzeToolChoice(layers), server, tool);
}

/** One layer as the editor read it: its value and, when it could read it, its settings file. */
export interface ReadToolChoiceLayer {
  level: SettingLayerValue['level'];
  value: unknown;
  file?: { name: string; text: string; kind: SettingsFileKind };
}

/** The check of every layer, each problem placed in the settings file that holds it. */
export function checkToolChoiceLayers(layers: readonly ReadToolChoiceLayer[]): ToolChoiceCheckResult {
  return checkToolChoice(layers.map(({ level, value, file }) => ({ level, value, ...(file ? { source: { file: file.name, text: file.text, kind: file.kind } } : {}) })));
}
