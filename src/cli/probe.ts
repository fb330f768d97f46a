import * as path from 'node:path';
import { probeFolder, type FolderProbe, type ServerProbe } from '../core/app/probe';
import { countOf } from '../core/problems/plural';
import { CommandUsageError, type CommandContext } from './context';
import { visibleLine } from '../core/json/visibleText';
import { table } from './table';
import { findingCounts, findingLines } from './findings';
import { planFix } from '../core/app/planReasons';
import { userProbeRequest } from './userExport';

export const PROBE_USAGE = 'probe [NAME...]         start each server (or the NAMEd ones) as DSH would, list its tools, stop it;\n                           recorded on this machine so the next export pins the tools (--timeout MS, default 20000)';


const MAX_DESCRIPTION = 72;

/**
 * `dsh-bridge probe [NAME...]`: consent as an export (nothing in trust mode `deny`; in `pinned`
 * only servers whose pin was approved, as `dsh-bridge approve` does). Exit 0 when every server
 * asked for answered, 1 otherwise.
 */
export async function runProbe(ctx: CommandContext): Promise<number> {
  const { args, json, io, identity } = ctx;
  const raw = ctx.options.timeout;
  const timeoutMs = raw === undefined ? undefined : Number(raw);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 100 && timeoutMs <= 600_000)) {
    throw new CommandUsageError('--timeout takes milliseconds, an integer from 100 to 600000');
  }
  // Each server runs in its own process group, out of reach of the terminal's Ctrl+C: an
  // interrupt exits through process.exit, whose exit handler kills the groups still running.
  const interrupted = (signal: NodeJS.Signals) => process.exit(signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  // --user: the user's own servers, recorded under the user declaration's folder (the next export --user pins their tools).
  const user = ctx.options.user === true ? await userProbeRequest(ctx) : {};
  const result = await probeFolder(ctx.ports, { ...identity, ...user, names: args.length ? args : undefined, timeoutMs })
    .finally(() => process.off('SIGINT', interrupted).off('SIGTERM', interrupted));
  const ok = !result.error && result.servers.length > 0 && result.servers.every((s) => s.outcome === 'ok');
  if (json) {
    io.out(JSON.stringify({ ...result, toolChoice: { choices: result.toolChoice.choices, problems: result.toolChoice.problems } }));
    return ok ? 0 : 1;
  }
  print(result, io);
  return ok ? 0 : 1;
}

function print(result: FolderProbe, io: CommandContext['io']): void {
  for (const p of result.problems.filter((p) => p.severity === 'error')) io.err(`dsh-bridge: ${visibleLine(`${p.file}:${p.range.start.line + 1}:${p.range.start.character + 1} ${p.code}: ${p.message}`)}`);
  for (const p of result.toolChoice.problems) io.err(`dsh-bridge: ${visibleLine(`dsh.tools (${p.path.slice(1).join(' > ') || 'the whole value'}): ${p.code}: ${p.message}`)}`);
  if (result.error) io.err(`dsh-bridge: ${visibleLine(result.error)}`);
  if (result.servers.length === 0 && !result.error) io.out('No MCP servers in this folder\'s MCP files (.mcp.json, .vscode/mcp.json and the others VS Code reads).');
  for (const server of result.servers) {
    io.out(visibleLine(headline(server)));
    if (server.outcome === 'ok' && server.tools.length) {
      const rows = [['  TOOL', 'DSH TOOL NAME', 'TOKENS', 'OFFERED', 'DESCRIPTION'], ...server.tools.map((t) => [
        `  ${t.name}`,
        t.collision ? `${t.publicName} (COLLIDES)` : t.publicName,
        `~${t.tokens}`,
        !t.allowed ? 'no (dsh.tools)' : t.carriesInputs ? `no (carries input ${t.carriesInputs.join(', ')})` : t.scan === 'withheld' ? 'no (withheld: see below)' : 'yes',
        oneLine(t.description),
      ])];
      io.out(table(rows));
      printFindings(result.folder, server, io);
    }
    for (const p of server.leftRunning ?? []) io.out(`  a process it started is still running: pid ${p.pid}, ${p.command}`);
    if (server.stderr.length && server.outcome !== 'ok') {
      io.out('  stderr (first lines, secrets masked):');
      for (const line of server.stderr) io.out(`    ${visibleLine(line)}`);
    }
  }
  for (const c of result.collisions) {
    io.out(visibleLine(`Collision: ${c.publicName} is the DSH name of ${c.tools.map((t) => `"${t.tool}" of ${t.serverName}`).join(' and ')}; DSH drops the later server's whole tool set.`));
  }
  const recorded = result.servers.filter((s) => s.recorded).length;
  if (recorded) io.out(`\nRecorded ${countOf(recorded, 'probe')} on this machine; export to pin ${recorded === 1 ? 'its' : 'their'} tools into ${path.join('.dsh', 'declaration.json')}.`);
}

/** Each tool's scan findings under the table, and the server's instructions' (hidden characters made visible). */
function printFindings(folder: string, server: ServerProbe, io: CommandContext['io']): void {
  for (const t of server.tools) {
    if (t.findings.length === 0) continue;
    const verdict = t.scan === 'withheld'
      ? `withheld from DSH sessions until you accept this definition: ${planFix('tools-accept', { name: server.serverName!, tool: t.name, pin: t.pin.definition, workspace: folder }).command}`
      : t.scan === 'accepted' ? `offered: you accepted this definition (pin ${t.pin.definition})` : 'offered (no error)';
    io.out(`  ${visibleLine(`${t.name}: ${findingCounts(t.findings)}; ${verdict}`)}`);
    for (const f of t.findings) for (const line of findingLines(f, '    ')) io.out(line);
  }
  if (server.instructionFindings?.length) {
    io.out(`  server instructions: ${findingCounts(server.instructionFindings)} (DSH does not pass a server's instructions to the model; other clients do)`);
    for (const f of server.instructionFindings) for (const line of findingLines(f, '    ')) io.out(line);
  }
}

function headline(s: ServerProbe): string {
  const who = s.serverName && s.serverName !== s.name ? `${s.name} (DSH: ${s.serverName}, ${s.transport})` : `${s.name}${s.transport ? ` (${s.transport})` : ''}`;
  if (s.outcome !== 'ok') return `${who}: ${s.message} [${s.outcome}]`;
  const allowed = s.tools.filter((t) => t.allowed && !t.carriesInputs && t.scan !== 'withheld').length;
  const extra = [
    s.promptCount !== undefined ? countOf(s.promptCount, 'prompt') : undefined,
    s.resourceCount !== undefined ? countOf(s.resourceCount, 'resource') : undefined,
  ].filter(Boolean).join(', ');
  return `${who}: started in ${s.startMs} ms; ${countOf(s.tools.length, 'tool')} (${allowed} offered to DSH)${extra ? `, ${extra}` : ''}; offered tools add ~${s.allowedTokens} tokens to every request`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION - 1)}…` : line;
}
