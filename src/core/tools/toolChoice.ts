/**
 * `dsh.tools`: which tools of each MCP server DSH may offer. Pure.
 *
 * ```jsonc
 * "dsh.tools": {
 *   "github": { "exclude": ["delete_repository"] },   // every tool but these
 *   "filesystem": { "only": ["read_file", "list_directory"] } // these and no other
 * }
 * ```
 * Keys are server names as written in `.vscode/mcp.json`. An entry may have `exclude`, `only`
 * or both (then: the `only` tools minus the `exclude` tools).
 *
 * The choice only ever narrows. VS Code merges an object setting key by key with arrays
 * replaced, so a workspace value `{"exclude": []}` would silently drop the user's exclusions;
 * here every layer (user, workspace, folder) is read on its own and a tool is allowed only when
 * every layer that names its server allows it. A repository can leave more tools out, never
 * bring one back. A layer entry of the wrong shape allows nothing of that server (fail closed)
 * and is reported where it is written.
 */
import type { ToolChoice } from '../declaration/toolsModel';
import type { SettingLayerValue } from '../settings/settingLayers';
import { formatMessage, type Problem, type Severity } from '../problems/problems';
import { settingRange, type JsonPath, type JsonTarget, type SettingsSource } from '../settings/settingsFile';
import { isRecord } from '../json/jsonValue';

export const TOOLS_SETTING = 'dsh.tools';

export const TOOL_CHOICE_PROBLEM_CODES = {
  'tools-invalid-setting': ['error', '"dsh.tools" must be an object that maps MCP server names to a tool choice; this value allows no tool of any server.'],
  'tools-invalid-entry': ['error', 'The tool choice of server "{server}" must be an object with "exclude" and/or "only" (lists of tool names); as written it allows no tool of this server.'],
  'tools-invalid-list': ['error', '"{key}" of server "{server}" must be a list of tool names; as written it allows no tool of this server.'],
  'tools-invalid-name': ['error', 'Item {index} of "only" of server "{server}" must be a tool name (a non-blank string); it is ignored.'],
  'tools-invalid-excluded-name': ['error', 'Item {index} of "exclude" of server "{server}" must be a tool name (a non-blank string); no tool of this server is allowed until it is fixed.'],
  'tools-unknown-key': ['warning', '"{key}" is not a tool-choice option and is ignored (use "exclude" or "only").'],
} as const satisfies Record<string, readonly [Severity, string]>;
export type ToolChoiceProblemCode = keyof typeof TOOL_CHOICE_PROBLEM_CODES;

/** One layer of the setting, lowest priority first; `value` as that layer holds it (`undefined`: not set there), `source` where. */
export type ToolChoiceLayer = SettingLayerValue;

/** A problem located in one layer by its JSON path (`['dsh.tools', server, key, index]`). */
export interface ToolChoiceProblem {
  code: ToolChoiceProblemCode;
  severity: Severity;
  message: string;
  args: Record<string, string | number>;
  /** Index into the layers given to {@link analyzeToolChoice}. */
  layer: number;
  path: JsonPath;
  target: JsonTarget;
  server?: string;
}

export interface ToolChoiceAnalysis {
  /** Per source server name, the effective choice (servers no layer names are absent: every tool allowed). */
  choices: Record<string, ToolChoice>;
  /** True when a layer's whole value is unusable: every server then allows nothing. */
  allBlocked: boolean;
  problems: ToolChoiceProblem[];
}

const NOTHING: ToolChoice = { only: [], exclude: [] };

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The narrower of two choices: the allow-lists intersect, the exclusions add up. */
function narrowChoice(a: ToolChoice | undefined, b: ToolChoice): ToolChoice {
  if (!a) return { ...(b.only ? { only: sortedUnique(b.only) } : {}), exclude: sortedUnique(b.exclude) };
  const only = a.only && b.only ? a.only.filter((t) => b.only!.includes(t)) : a.only ?? b.only;
  return { ...(only ? { only: sortedUnique(only) } : {}), exclude: sortedUnique([...a.exclude, ...b.exclude]) };
}

/**
 * Reads every layer of `dsh.tools` and intersects them (see the module comment). Never throws;
 * every shape problem is located in the layer that has it.
 */
export function analyzeToolChoice(layers: readonly ToolChoiceLayer[]): ToolChoiceAnalysis {
  const problems: ToolChoiceProblem[] = [];
  const choices: Record<string, ToolChoice> = {};
  let allBlocked = false;
  const add = (code: ToolChoiceProblemCode, layer: number, path: JsonPath, target: JsonTarget, args: Record<string, string | number>, server?: string) => {
    const [severity, template] = TOOL_CHOICE_PROBLEM_CODES[code];
    const p: ToolChoiceProblem = { code, severity, message: formatMessage(template, args), args, layer, path, target };
    if (server !== undefined) p.server = server;
    problems.push(p);
  };
  const setChoice = (server: string, choice: ToolChoice) => {
    const next = narrowChoice(Object.hasOwn(choices, server) ? choices[server] : undefined, choice);
    Object.defineProperty(choices, server, { value: next, enumerable: true, writable: true, configurable: true });
  };
  layers.forEach((layer, index) => {
    const value = layer.value;
    if (value === undefined || value === null) return;
    const root: JsonPath = [TOOLS_SETTING];
    if (!isRecord(value)) {
      add('tools-invalid-setting', index, root, 'value', {});
      allBlocked = true;
      return;
    }
    for (const [server, entry] of Object.entries(value)) {
      const at: JsonPath = [TOOLS_SETTING, server];
      if (!isRecord(entry)) {
        add('tools-invalid-entry', index, at, 'value', { server }, server);
        setChoice(server, NOTHING);
        continue;
      }
      let blocked = false;
      const lists: { only?: string[]; exclude: string[] } = { exclude: [] };
      for (const [key, list] of Object.entries(entry)) {
        if (key !== 'only' && key !== 'exclude') {
          add('tools-unknown-key', index, [...at, key], 'key', { key }, server);
          continue;
        }
        if (!Array.isArray(list)) {
          add('tools-invalid-list', index, [...at, key], 'value', { key, server }, server);
          blocked = true;
          continue;
        }
        const names: string[] = [];
        list.forEach((item: unknown, i: number) => {
          if (typeof item === 'string' && item.trim() !== '') names.push(item);
          else {
            // A bad name in `only` narrows further (it is dropped); in `exclude` the tool meant cannot be known.
            add(key === 'only' ? 'tools-invalid-name' : 'tools-invalid-excluded-name', index, [...at, key, i], 'value', { index: i + 1, server }, server);
            if (key === 'exclude') blocked = true;
          }
        });
        if (key === 'only') lists.only = names;
        else lists.exclude = names;
      }
      setChoice(server, blocked ? NOTHING : lists);
    }
  });
  return { choices, allBlocked, problems };
}

/** The effective choice for one server (`undefined`: every tool allowed). */
export function choiceFor(analysis: ToolChoiceAnalysis, server: string): ToolChoice | undefined {
  if (analysis.allBlocked) return NOTHING;
  return Object.hasOwn(analysis.choices, server) ? analysis.choices[server] : undefined;
}

/**
 * Places the problems in the settings files of their layers (`sourceOfLayer` answers which file
 * holds a layer, with its text). A problem whose layer has no file, or whose node is not found,
 * is left out: the face shows it unplaced if it wants to.
 */
function placeToolChoiceProblems(problems: readonly ToolChoiceProblem[], sourceOfLayer: (layer: number) => SettingsSource | undefined): Problem[] {
  const out: Problem[] = [];
  for (const p of problems) {
    const source = sourceOfLayer(p.layer);
    const range = source ? settingRange(source.text, source.kind, p.path, p.target) : undefined;
    if (!source || !range) continue;
    const placed: Problem = { code: p.code, severity: p.severity, message: p.message, args: p.args, file: source.file, range };
    if (p.server !== undefined) placed.server = p.server;
    out.push(placed);
  }
  return out;
}

export interface ToolChoiceCheckResult {
  analysis: ToolChoiceAnalysis;
  /** The problems placed on their nodes in the settings files of their layers. */
  problems: Problem[];
  /** Problems of a layer whose file the face could not read (e.g. a profile's user settings). */
  unplaced: number;
}

/**
 * The check of `dsh.tools` that every face runs (the editor's Problems, `dsh-bridge check`):
 * every layer analysed on its own (see the module comment), each problem placed in its file.
 */
export function checkToolChoice(layers: readonly ToolChoiceLayer[]): ToolChoiceCheckResult {
  const analysis = analyzeToolChoice(layers);
  const problems = placeToolChoiceProblems(analysis.problems, (layer) => layers[layer]?.source);
  return { analysis, problems, unplaced: analysis.problems.length - problems.length };
}
