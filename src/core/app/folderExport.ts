/**
 * The export of one workspace folder, the same for every face: the editor and the CLI pass what
 * they can see (folder, DSH home, the folder's settings) and get a {@link ReviewedExport} to show,
 * complete with inputs and approvals, and hand to `commitExport`. Apart from ./declaration so that
 * verify (CLI, DSH plugin) does not pull in the skills code and its YAML parser.
 */
import { reviewExport, type ReviewedExport } from './export';
import { folderAnalyzeOptions, readCustomSkillRoots, settingLayerValues, SETTING, type FolderIdentity } from '../settings/folderSettings';
import { analyzeSections, type SectionOptions } from './sections';
import { analyzeToolChoice } from '../tools/toolChoice';
import { withDeclaredTools } from '../tools/declaredTools';
import { HostStore } from '../node/hostStore';

export interface FolderExportRequest extends FolderIdentity {
  dshHome: string;
  /** Skill discovery and command lookup (defaults: this process's environment and home). */
  sectionEnvironment?: Pick<SectionOptions, 'env' | 'homedir' | 'agentsHome' | 'resolveCommand' | 'recordedTrust' | 'fs'>;
}

/**
 * Reads and analyzes the folder's source once and computes the `lsp` and `skills` sections from
 * the same settings, and each server's `tools` (the `dsh.tools` choice, the pins of its last
 * probe while its launch pin is unchanged); nothing is written. The sections are left out when the source is unusable
 * (nothing will be written then).
 */
export async function prepareFolderExport(request: FolderExportRequest): Promise<ReviewedExport> {
  const reviewed = await reviewExport(folderAnalyzeOptions(request));
  if (!reviewed.analysis.usable) return reviewed;
  const invalid = request.invalidSetting ?? (() => undefined);
  const { sections } = await analyzeSections({
    ...request.sectionEnvironment,
    folder: reviewed.folder,
    dshHome: request.dshHome,
    lspServers: request.settings(SETTING.lspServers),
    customSkillRoots: readCustomSkillRoots(request.settings, invalid),
  });
  // Tools: the dsh.tools choice (every layer narrows) and the last probe's pins (host store).
  // An unreadable probe record is no pins (the servers behave as never probed), never a failed export.
  const probes = await new HostStore(request.dshHome).probedServers(reviewed.folder).catch(() => ({}));
  const servers = withDeclaredTools(reviewed.analysis.servers, analyzeToolChoice(settingLayerValues(request, SETTING.tools)), probes);
  return { ...reviewed, analysis: { ...reviewed.analysis, servers }, sections };
}
