import * as path from 'node:path';
import { commitExport, exportRefused } from '../core/app/export';
import { analyzeUserFiles, reviewUserExport, userDeclarationPaths, type UserFiles } from '../core/app/userExport';
import { candidateUserDataDirs, userDeclarationFolder, userFiles } from '../core/app/userSources';
import type { Analysis } from '../core/mcp/analysis';
import { verifyFolder } from '../core/app/verify';
import { planMessage } from '../core/app/planReasons';
import { firstExistingDir } from '../core/node/userDataDirs';
import { formatMessage } from '../core/problems/problems';
import { countOf } from '../core/problems/plural';
import { visibleLine } from '../core/json/visibleText';
import { CommandUsageError, expectNoArgs, type CommandContext } from './context';
import { serverSummaries } from './export';
import { problemJson } from './output';
import { table } from './table';
import { verifySettings } from './folderIdentity';

/**
 * The user's files this run reads: `--user-data-dir` (else the first user data folder of VS Code,
 * Insiders, VSCodium or code-server that exists, else VS Code's), `--editor-profile` (a named
 * profile's folder under User/profiles), and Copilot Global from $COPILOT_HOME.
 */
export async function chosenUserFiles(ctx: Pick<CommandContext, 'options' | 'ports'>): Promise<UserFiles> {
  const { env, home } = ctx.ports;
  const context = { platform: process.platform, home, env };
  const given = ctx.options['user-data-dir'];
  const candidates = candidateUserDataDirs(context);
  const userDataDir = typeof given === 'string' ? path.resolve(given) : (await firstExistingDir(candidates)) ?? candidates[0];
  const profileId = typeof ctx.options['editor-profile'] === 'string' ? ctx.options['editor-profile'] : undefined;
  const files = userFiles({ userDataDir, profileId }, context);
  if ('error' in files) throw new CommandUsageError(files.error);
  return files;
}

/** `dsh-bridge export --user`: the user's own servers into the user declaration of the host store. */
export async function runUserExport(ctx: CommandContext): Promise<number> {
  expectNoArgs(ctx);
  const { identity, json, io, ports } = ctx;
  const dryRun = ctx.options['dry-run'] === true;
  const files = await chosenUserFiles(ctx);
  const { declarationPath } = userDeclarationPaths(ports.dshHome);
  const refused = await exportRefused(ports);
  if (refused) {
    const message = `${planMessage(refused, formatMessage)} Nothing of the user's servers is exported.`;
    if (json) io.out(JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], written: false, error: message, code: refused.code, files }));
    else io.err(`dsh-bridge: ${message}`);
    return 1;
  }
  const reviewed = await reviewUserExport(ports, identity, files);
  const result = await commitExport(ports, reviewed, { dryRun });
  const { analysis } = result;
  if (result.sourceChanged) {
    const message = 'a user MCP file changed while it was being exported: nothing was written; run the export again';
    if (json) io.out(JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], written: false, error: message, files }));
    else io.err(`dsh-bridge: ${message}.`);
    return 1;
  }
  const onDisk = !dryRun && result.text !== undefined;
  if (json) {
    io.out(JSON.stringify({
      declaration: onDisk ? declarationPath : null,
      servers: serverSummaries(analysis.servers),
      rejected: analysis.rejected,
      problems: analysis.problems.map(problemJson),
      written: result.written,
      files,
    }));
    return analysis.usable ? 0 : 1;
  }
  io.out(`The user's files: ${files.profileFolder}${path.sep}mcp.json, ${files.copilotGlobal}`);
  if (analysis.servers.length) {
    io.out(table([['SERVER', 'DSH NAME', 'TRANSPORT', 'FROM'], ...analysis.servers.map((s) => [s.name, s.serverName, s.transport, s.source ?? analysis.sourcePath])]));
  }
  if (analysis.rejected.length) io.out(`\nRefused:\n${table(analysis.rejected.map((r) => [`  ${r.name}`, r.codes.join(', ')]))}`);
  for (const p of analysis.problems) io.out(`  ${visibleLine(`${p.file}:${p.range.start.line + 1}:${p.range.start.character + 1} ${p.severity} ${p.code}: ${p.message}`)}`);
  if (!analysis.usable) io.out('Nothing exported: no user MCP file, or one could not be used (a previous user declaration, if any, is left as it was and is now stale).');
  else if (dryRun) io.out(`Dry run: ${countOf(analysis.servers.length, 'server')} would be exported to ${declarationPath}.`);
  else io.out(`${result.written ? 'Exported' : 'Up to date:'} ${countOf(analysis.servers.length, 'server')} to ${declarationPath}.`);
  return analysis.usable ? 0 : 1;
}

/** `dsh-bridge verify --user`: whether the user declaration is signed, intact and fresh against the user's files. */
export async function runUserVerify(ctx: CommandContext): Promise<number> {
  expectNoArgs(ctx);
  const { json, io, ports, identity } = ctx;
  const { folder, declarationPath } = userDeclarationPaths(ports.dshHome);
  const verified = await verifyFolder(ports, folder, verifySettings(identity));
  const declaration = verified.declaration;
  if (json) {
    io.out(JSON.stringify({
      declaration: declaration ? declarationPath : null,
      servers: serverSummaries(declaration?.servers ?? []),
      rejected: declaration?.rejected ?? [],
      problems: [],
      verify: { ok: verified.ok, reasons: verified.reasons },
    }));
    return verified.ok ? 0 : 1;
  }
  io.out(`User declaration ${declarationPath}: ${verified.ok ? 'signed, intact and fresh' : 'does not verify'}`);
  for (const r of verified.reasons) io.out(`  ${visibleLine(`${r.code}: ${r.message}`)}`);
  if (declaration) io.out(`  ${countOf(declaration.servers.length, 'server')}${declaration.servers.length ? `: ${declaration.servers.map((s) => s.serverName).join(', ')}` : ''}`);
  if (!verified.ok) io.out('  Fix: dsh-bridge export --user');
  return verified.ok ? 0 : 1;
}

/** `dsh-bridge probe --user`: the user's files read now, probed and recorded under the user declaration's folder. */
export async function userProbeRequest(ctx: CommandContext): Promise<{ folder: string; analysis: Analysis }> {
  const analysis = await analyzeUserFiles(ctx.ports, ctx.identity, await chosenUserFiles(ctx));
  return { folder: userDeclarationFolder(ctx.ports.dshHome), analysis };
}
