import type { SessionPlan, ServerPlan } from '../core/app/plan';
import { planMessage, type PlanReason } from '../core/app/planReasons';
import { formatMessage } from '../core/problems/problems';
import { countOf } from '../core/problems/plural';
import { table } from './table';
import { visibleLine } from '../core/json/visibleText';

const word = (r: Pick<PlanReason, 'code' | 'args'>) => planMessage(r, formatMessage);
const withFix = (r: PlanReason) => `${word(r)}${r.fix ? ` Fix: ${r.fix.command}` : ''}`;

function serverRow(s: ServerPlan): string[] {
  return [`    ${s.outcome}`, s.serverName, withFix(s.reason)];
}

/**
 * What a DSH session in the folder gets, as lines under "What a DSH session ... gets". Names,
 * paths and messages come from files and the host store: each line is shown on one line, hidden
 * characters escaped (the table's cells are, by the table).
 */
export function planLines(plan: SessionPlan): string[] {
  const lines: string[] = [];
  const push = (line: string) => lines.push(visibleLine(line));
  const asks = plan.servers.some((s) => s.outcome === 'asks') || plan.languageServers?.outcome === 'asks';
  for (const r of plan.blocked) push(`  ${withFix(r)}`);
  for (const r of plan.notes) push(`  Note: ${withFix(r)}`);
  if (!plan.servers.length) push('  MCP servers:      none');
  else {
    lines.push('  MCP servers:');
    lines.push(table(plan.servers.map(serverRow)));
    for (const s of plan.servers) {
      const tools = s.tools;
      if (!tools || !tools.tools.length || s.outcome === 'withheld') continue;
      const counts = (['offered', 'unpinned', 'left-out', 'withheld'] as const)
        .map((state) => [state, tools.tools.filter((t) => t.state === state)] as const)
        .filter(([, list]) => list.length)
        .map(([state, list]) => `${state} ${list.map((t) => t.name).join(', ')}`);
      push(`      tools of ${s.serverName}: ${counts.join('; ')}; any other tool: ${tools.unlisted.state}`);
      for (const t of tools.tools) if (t.reason.code === 'tool-hidden-instructions') push(`        ${t.name}: ${withFix(t.reason)}`);
    }
  }
  const lsp = plan.languageServers;
  if (!lsp) push('  Language servers: none');
  else push(`  Language servers: ${lsp.outcome} ${lsp.servers.map((l) => `${l.id} (${l.extensions.join(', ')})`).join(', ') || 'none'}: ${withFix(lsp.reason)}`);
  if (asks) push('  ("asks": DSH asks inside the session before it starts; a headless run has no one to answer, so it does not start there.)');
  return lines;
}

/** One line for the top of `verify`: the declaration found, and how it stands. */
export function declarationLines(plan: SessionPlan, shownPath: string): string[] {
  const { declaration } = plan;
  const lines: string[] = [];
  const push = (line: string) => lines.push(visibleLine(line));
  if (declaration.folder !== undefined && declaration.folder !== plan.cwd) push(`Declaration of ${declaration.folder} (the nearest above ${plan.cwd}, as DSH finds it):`);
  if (declaration.state === 'missing') push(`${shownPath}: missing: no declaration: export first`);
  else if (declaration.reasons.length === 0) push(`${shownPath}: signed, intact and fresh (${countOf(plan.servers.filter((s) => s.pin).length, 'server')}).`);
  for (const r of declaration.reasons) push(`${shownPath}: ${r.code}: ${r.message}`);
  return lines;
}

/** The user declaration's servers in a session of the folder (`verify`), or one line when there is none. */
export function userPlanLines(plan: SessionPlan, servers: readonly ServerPlan[], shownPath: string): string[] {
  const { declaration } = plan;
  if (declaration.state === 'missing') return [visibleLine(`  None (no user declaration ${shownPath}; dsh-bridge export --user writes it).`)];
  const lines = [visibleLine(`  ${shownPath}: ${declaration.reasons.length === 0 ? 'signed, intact and fresh' : declaration.reasons.map((r) => `${r.code}: ${r.message}`).join('; ')}`)];
  for (const r of plan.blocked) lines.push(visibleLine(`  ${withFix(r)}`));
  if (servers.length) lines.push(table(servers.map(serverRow)));
  return lines;
}
