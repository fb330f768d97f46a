import * as path from 'node:path';
import type { Analysis } from '../core/mcp/analysis';
import { checkFolder, commitExport, exportRefused, reviewExport, toolChoiceProblems } from '../core/app/export';
import { shortPin } from '../core/app/approve';
import { planSession } from '../core/app/plan';
import { planMessage } from '../core/app/planReasons';
import { withheldLine, withheldOf, type WithheldItems } from '../core/app/planWithheld';
import { DECLARATION_PATH, type DeclaredServer } from '../core/declaration/declarationModel';
import type { Problem } from '../core/problems/problems';
import { formatMessage } from '../core/problems/problems';
import { countOf } from '../core/problems/plural';
import { expectNoArgs, type CliIo, type CommandContext } from './context';
import { problemJson, shownPath } from './output';
import { table } from './table';
import { visibleLine } from '../core/json/visibleText';
import { runUserExport } from './userExport';

export const EXPORT_USAGE = 'export   Write .dsh/declaration.json from the folder\'s MCP files (.mcp.json, .vscode/mcp.json, ...)';
export const CHECK_USAGE = 'check    Report problems only; writes nothing';

export function serverSummaries(servers: readonly DeclaredServer[]) {
  return servers.map((s) => ({ name: s.name, serverName: s.serverName, transport: s.transport, pin: s.pin, ...(s.source ? { source: s.source } : {}) }));
}

function report(analysis: Analysis, declaration: string | null, extra: Record<string, unknown> = {}, settingProblems: readonly Problem[] = []) {
  return {
    declaration,
    servers: serverSummaries(analysis.servers),
    rejected: analysis.rejected,
    problems: [...analysis.problems, ...settingProblems].map(problemJson),
    ...extra,
  };
}

/** `dsh-bridge check`: the export's analysis and problems; nothing is written. */
export async function runCheck(ctx: CommandContext): Promise<number> {
  expectNoArgs(ctx);
  const { identity, json, io } = ctx;
  // dsh.tools problems, placed in the settings files given (the editor shows the same ones).
  const { analysis, settingProblems } = await checkFolder(ctx.ports, identity);
  if (json) io.out(JSON.stringify(report(analysis, null, {}, settingProblems)));
  else printHuman(analysis, identity.folder, io, settingProblems);
  return analysis.usable ? 0 : 1;
}

/**
 * `dsh-bridge export [--dry-run]`: the export use case, reviewed and committed in one go (the CLI
 * asks nothing in between). On a machine whose trust mode is `deny` nothing is exported, and a dry
 * run says so too: nothing would mount.
 */
export async function runExport(ctx: CommandContext): Promise<number> {
  if (ctx.options.user === true) return runUserExport(ctx);
  expectNoArgs(ctx);
  const { identity, json, io, ports } = ctx;
  const { folder } = identity;
  const dryRun = ctx.options['dry-run'] === true;
  const refused = await exportRefused(ports);
  if (refused) {
    const { analysis, settingProblems } = await checkFolder(ports, identity);
    const message = `${planMessage(refused, formatMessage)} ${dryRun ? 'A dry run: nothing would be exported, and nothing would mount.' : 'Nothing from this workspace is exported.'}`;
    if (json) io.out(JSON.stringify(report(analysis, null, { written: false, error: message, code: refused.code }, settingProblems)));
    else io.err(`dsh-bridge: ${message}`);
    return 1;
  }
  const settingProblems = toolChoiceProblems(identity);
  const reviewed = await reviewExport(ports, identity);
  const result = await commitExport(ports, reviewed, { dryRun });
  const { analysis } = result;
  if (result.sourceChanged) {
    const message = 'an MCP configuration file changed while it was being exported: nothing was written; run the export again';
    if (json) io.out(JSON.stringify(report(analysis, null, { written: false, error: message }, settingProblems)));
    else io.err(`dsh-bridge: ${message}.`);
    return 1;
  }
  const onDisk = !dryRun && result.text !== undefined;
  const lspIds = Object.keys(reviewed.sections.lsp?.servers ?? {});
  const { awaiting, missingInputs, withheld } = onDisk ? await waitingAfterExport(ports, folder) : { awaiting: [], missingInputs: [], withheld: undefined };
  if (json) {
    io.out(JSON.stringify(report(analysis, onDisk ? DECLARATION_PATH : null, {
      written: result.written,
      languageServers: reviewed.sections.lsp ? lspIds : null,
      awaitingApproval: awaiting.map((a) => ({ name: a.name, fix: a.fix })),
      missingInputs,
      withheldItems: withheld ?? null,
    }, settingProblems)));
    return analysis.usable ? 0 : 1;
  }
  printHuman(analysis, folder, io, settingProblems);
  const shown = shownPath(folder, DECLARATION_PATH);
  if (!analysis.usable) io.out('Nothing exported: the source could not be used (a previous declaration, if any, is left as it was and is now stale).');
  else if (dryRun) io.out(`Dry run: ${countOf(analysis.servers.length, 'server')} would be exported to ${shown}.`);
  else {
    const refusedCount = analysis.rejected.length ? ` (${analysis.rejected.length} refused)` : '';
    io.out(`${result.written ? 'Exported' : 'Up to date:'} ${countOf(analysis.servers.length, 'server')} to ${shown}${refusedCount}.`);
  }
  if (analysis.usable) {
    const would = dryRun ? 'would be' : Object.keys(reviewed.sections.lsp?.servers ?? {}).length === 1 ? 'is' : 'are';
    const lsp = reviewed.sections.lsp;
    if (!lsp) io.out('Language servers: none (dsh.lsp.servers is not set).');
    else if (!lsp.registersAll || !lspIds.length) io.out(`Language servers: none. ${planMessage({ code: 'lsp-invalid-entry', args: {} }, formatMessage)}`);
    else io.out(visibleLine(`Language servers: ${countOf(lspIds.length, 'language server')} ${would} in the lsp section (${lspIds.join(', ')}).`));
  }
  if (awaiting.length) {
    io.out(`Trust mode "pinned": ${countOf(awaiting.length, 'new pin')} ${awaiting.length === 1 ? 'awaits' : 'await'} approval before ${awaiting.length === 1 ? 'it starts' : 'they start'} without asking (${awaiting.map((a) => a.name).join(', ')}). Approve with:`);
    for (const a of awaiting) io.out(`  ${visibleLine(a.fix)}`);
  }
  for (const m of missingInputs) {
    io.out(visibleLine(`Input "${m.id}" has no value on this machine: ${m.servers.join(', ')} ${m.servers.length === 1 ? 'does' : 'do'} not start in DSH until you store it: ${m.fix}`));
  }
  const withheldWords = withheld && withheldLine(withheld, formatMessage);
  if (withheldWords) io.out(visibleLine(withheldWords));
  return analysis.usable ? 0 : 1;
}

/**
 * After an export, what the session plan (the decision the DSH plugin mounts from) says still
 * waits on this machine: pins awaiting approval (trust mode `pinned`, servers and `lsp`) and
 * inputs with no stored value, each with the servers it keeps from starting, and everything withheld.
 */
async function waitingAfterExport(ports: CommandContext['ports'], folder: string): Promise<{
  awaiting: Array<{ name: string; fix: string }>;
  missingInputs: Array<{ id: string; servers: string[]; fix: string }>;
  /** Everything a session goes without, as verify and doctor list it (tools and skills too). */
  withheld?: WithheldItems;
}> {
  const { plan } = await planSession(ports, { cwd: folder });
  if (plan.declaration.folder !== folder) return { awaiting: [], missingInputs: [] };
  const waiting = [...plan.servers.map((s) => [s.serverName, s.reason] as const), ...(plan.languageServers ? [['lsp', plan.languageServers.reason] as const] : [])];
  const awaiting = plan.trustMode !== 'pinned' ? []
    : waiting.filter(([, r]) => r.code === 'pin-not-approved' && r.fix).map(([name, r]) => ({ name, fix: r.fix?.command ?? '' }));
  const byInput = new Map<string, { id: string; servers: string[]; fix: string }>();
  for (const [name, r] of waiting) {
    if (r.code !== 'input-missing') continue;
    const id = String(r.args.id);
    const entry = byInput.get(id) ?? { id, servers: [], fix: r.fix?.command ?? '' };
    entry.servers.push(name);
    byInput.set(id, entry);
  }
  return { awaiting, missingInputs: [...byInput.values()], withheld: withheldOf(plan) };
}

function printHuman(analysis: Analysis, folder: string, io: CliIo, settingProblems: readonly Problem[] = []) {
  if (analysis.servers.length) {
    // The file column only when a server comes from a file other than the declaration's source (the first file of VS Code's order).
    const from = analysis.servers.some((s) => s.source) ? (s: DeclaredServer) => [shownPath(folder, s.source ?? analysis.sourcePath)] : () => [];
    const rows = [['SERVER', 'DSH NAME', 'TRANSPORT', ...(analysis.servers.some((s) => s.source) ? ['FROM'] : []), 'PIN'],
      ...analysis.servers.map((s) => [s.name, s.serverName, s.transport, ...from(s), shortPin(s.pin)])];
    io.out(table(rows));
  }
  if (analysis.rejected.length) {
    io.out('\nRefused:');
    io.out(table(analysis.rejected.map((r) => [`  ${r.name}`, r.codes.join(', ')])));
  }
  const problems = [...analysis.problems, ...settingProblems];
  if (problems.length) {
    io.out('\nProblems:');
    for (const p of problems) {
      const where = `${shownPath(folder, p.file)}:${p.range.start.line + 1}:${p.range.start.character + 1}`;
      io.out(`  ${visibleLine(`${where} ${p.severity} ${p.code}: ${p.message}`)}`);
    }
  }
}
