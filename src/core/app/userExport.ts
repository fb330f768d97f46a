/**
 * The user declaration: the user's own servers (core/app/userSources), exported in the same
 * format as a workspace's, signed with the same key, pinned to the user's files, and kept in the
 * host store's user folder (`<DSH home>/bridge/user/.dsh/declaration.json`). The review reads the
 * files once; {@link commitExport} writes exactly that, as for a folder, so approvals, inputs, the
 * export count and the probe record of the user's servers are kept under that folder.
 */
import * as path from 'node:path';
import { DECLARATION_PATH } from '../declaration/declarationModel';
import { ExportError } from '../declaration/exportError';
import { invalidExportOptions } from '../mcp/analyzeOptions';
import type { Analysis } from '../mcp/analysis';
import { folderAnalyzeOptions, type FolderIdentity } from '../settings/folderSettings';
import { analyzeToolChoice } from '../tools/toolChoice';
import { withDeclaredTools } from '../tools/declaredTools';
import type { ReviewedExport } from './export';
import { analyzeUserSources, userDeclarationFolder } from './userSources';
import type { Ports } from './ports';

/** The user's files the face chose (see userFiles). */
export interface UserFiles {
  profileFolder: string;
  copilotGlobal: string;
}

/** Where the user declaration is: its folder in the host store and the declaration's path. */
export function userDeclarationPaths(dshHome: string): { folder: string; declarationPath: string } {
  const folder = userDeclarationFolder(dshHome);
  return { folder, declarationPath: path.join(folder, DECLARATION_PATH) };
}

/**
 * Reads and analyzes the user's files once, with the user's settings as the face sees them
 * (`identity.settings`: `chat.mcp.*`, the policy, `dsh.export.*`), and each server's tool pins
 * from its last probe (`dsh-bridge probe --user`). Nothing is written.
 */
export async function reviewUserExport(ports: Pick<Ports, 'dshHome' | 'store' | 'files' | 'home'>, identity: FolderIdentity, files: UserFiles): Promise<ReviewedExport> {
  const { folder, declarationPath } = userDeclarationPaths(ports.dshHome);
  const badOptions = invalidExportOptions(folderAnalyzeOptions(identity));
  if (badOptions.length) throw new ExportError(`invalid export options (${badOptions.join(', ')}): DSH would refuse every row`);
  const analysis = await analyzeUserFiles(ports, identity, files);
  const reviewed: ReviewedExport = { folder, declarationPath, analysis, sections: {} };
  if (!analysis.usable) return reviewed;
  // An unreadable probe record is no pins (the servers behave as never probed), never a failed export.
  const probes = await ports.store.probedServers(folder).catch(() => ({}));
  return { ...reviewed, analysis: { ...analysis, servers: withDeclaredTools(analysis.servers, analyzeToolChoice([]), probes) } };
}

/** The user's files analyzed with the user's settings as the face sees them (the export's review, `probe --user`). */
export function analyzeUserFiles(ports: Pick<Ports, 'files' | 'home'> & { policy?: Pick<Ports['policy'], 'readManagedSettings'> }, identity: FolderIdentity, files: UserFiles): Promise<Analysis> {
  const { folder: _folder, folderName: _name, codeWorkspaceFile: _workspaceFile, ...options } = folderAnalyzeOptions(identity);
  return analyzeUserSources(ports, { ...options, userHome: ports.home, ...files });
}
