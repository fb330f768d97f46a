/**
 * Which settings feed which of what a session gets (issue 22's freshness): a configuration change
 * the editor sees, sorted into the concerns it touches, so each check re-runs on what it reads.
 */
import { POLICY_SETTING } from '../policy/editorPolicy';
import { SETTING } from '../settings/folderSettings';

/** Every `dsh.export.*` setting. */
const EXPORT_SECTION = 'dsh.export';

/** Which concerns a configuration change touches (a pure predicate over the editor's event). */
export interface ChangedConcerns {
  trustMode: boolean;
  home: boolean;
  export: boolean;
  /** `dsh.lsp.servers`: the language-server checks. */
  lsp: boolean;
  /** `dsh.skills.customRoots` or `dsh.home`: where skill roots are and which are trusted. */
  skillRoots: boolean;
  /** `dsh.tools`: which probed tools DSH sessions get. */
  tools: boolean;
  /** VS Code's `chat.mcp.*` access, collision and policy settings: which files and which of their servers VS Code runs and the export takes. */
  sources: boolean;
  any: boolean;
}

export function changedConcerns(affects: (section: string) => boolean): ChangedConcerns {
  const trustMode = affects(SETTING.trustMode);
  const home = affects(SETTING.home);
  const exportSettings = affects(EXPORT_SECTION);
  const lsp = affects(SETTING.lspServers);
  const skillRoots = affects(SETTING.customSkillRoots) || home;
  const tools = affects(SETTING.tools);
  // The policy settings decide which servers are exported, as chat.mcp.access and the collision setting decide which are read.
  const sources = Object.values(POLICY_SETTING).some((setting) => affects(setting));
  return { trustMode, home, export: exportSettings, lsp, skillRoots, tools, sources, any: trustMode || home || exportSettings || lsp || skillRoots || tools || sources };
}
