import { acceptProbedTool } from '../core/app/scanFindings';
import { CommandUsageError, type CommandContext } from './context';
import { pinConsent } from './consent';
import { findingCounts, findingLines } from './findings';
import { visibleLine } from '../core/json/visibleText';
import type { ScanFinding } from '../core/scan/scan';
import { planFix } from '../core/app/planReasons';

export const TOOLS_USAGE = [
  'tools    Tools DSH withholds for a scan finding (see "probe"):',
  '           tools accept <server> <tool>   accept the definition the last probe recorded, with its findings',
  '                                          (--pin PIN: only if it still has the pin you reviewed;',
  '                                          without a terminal it accepts only with --pin)',
].join('\n  ');

/**
 * `dsh-bridge tools accept <server> <tool> [--pin PIN]`: the headless way to accept a tool whose
 * definition has an error-level scan finding. The definition is the one the last probe recorded
 * for this folder (`dsh-bridge probe` shows it and its pin); the acceptance is bound to that pin,
 * so any change of the tool asks again. Without `--pin` it asks on a terminal and accepts nothing
 * without one (consent.ts). The DSH plugin reads it from the host store.
 */
export async function runTools(ctx: CommandContext, input: NodeJS.ReadStream = process.stdin): Promise<number> {
  const { folder, json, io } = ctx;
  const [sub, ...args] = ctx.args;
  if (sub !== 'accept') throw new CommandUsageError('"tools" needs: accept <server> <tool>');
  if (args.length !== 2) throw new CommandUsageError('"tools accept" takes the server (its name in mcp.json or its DSH name) and the tool');
  const [serverArg, toolName] = args;
  const expectedPin = typeof ctx.options.pin === 'string' ? ctx.options.pin : undefined;
  const consent = pinConsent<{ serverName: string; record: { name: string }; pin: string; findings: ScanFinding[] }>(ctx, input, (review) => {
    if (json) return;
    io.out(visibleLine(`Tool ${toolName} of server ${review.record.name} (DSH: ${review.serverName}), pin ${review.pin}`));
    if (review.findings.length) {
      io.out(`  ${findingCounts(review.findings)}:`);
      for (const f of review.findings) for (const line of findingLines(f, '    ')) io.out(line);
    } else {
      io.out('  no scan finding: DSH offers it without an acceptance.');
    }
  }, () => visibleLine(`Accept this definition of ${toolName} for DSH sessions in ${folder}?`),
  (review) => planFix('tools-accept', { name: serverArg, tool: toolName, pin: review.pin, workspace: folder }).command);
  let acceptance;
  try {
    acceptance = await acceptProbedTool(ctx.ports, folder, serverArg, toolName, expectedPin, consent.ask);
  } finally {
    consent.close();
  }
  if (acceptance.outcome === 'no-probe') {
    io.err(`dsh-bridge: ${visibleLine(serverArg)} has no recorded probe in ${folder}: run "dsh-bridge probe" first.`);
    return 1;
  }
  if (acceptance.outcome === 'no-tool') {
    io.err(`dsh-bridge: the last probe of ${visibleLine(serverArg)} listed no tool ${visibleLine(toolName)}.`);
    return 1;
  }
  if (acceptance.outcome === 'pin-changed') {
    io.err(`dsh-bridge: ${visibleLine(toolName)} of ${visibleLine(serverArg)} has pin ${acceptance.pin} in the last probe, not ${expectedPin}: it changed since you reviewed it; nothing was accepted.`);
    return 1;
  }
  if (acceptance.outcome === 'declined') {
    if (json) io.out(JSON.stringify({ accepted: null, folder, serverName: acceptance.serverName, tool: toolName, pin: acceptance.pin, findings: acceptance.findings, error: 'not accepted: no --pin, and no terminal to ask (or the answer was no)' }));
    else io.out('Not accepted.');
    return 1;
  }
  const { serverName, pin, findings, withheldBefore } = acceptance;
  if (json) {
    io.out(JSON.stringify({ accepted: { folder, serverName, tool: toolName, pin }, findings, withheldBefore }));
    return 0;
  }
  io.out(`Accepted: DSH sessions of ${folder} offer this definition while it keeps this pin (any change withholds it again).`);
  return 0;
}
