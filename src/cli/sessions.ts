import { failureText, folderSessions, summarizeSession, type SessionSummary } from '../core/app/sessions';
import type { SessionRecord } from '../core/node/sessionRecords';
import { visibleLine } from '../core/json/visibleText';
import { countOf } from '../core/problems/plural';
import { expectNoArgs, type CommandContext } from './context';

export const SESSIONS_USAGE = 'sessions                   what the DSH plugin\'s last sessions in this folder were planned and got';

/** `3 min ago`, as the CLI says a time. */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

/** One session in one line: `last DSH session 3 min ago: 13 tools; broken failed to start: exit code 3: ...; withheld: ...`. */
export function sessionLine(s: SessionSummary): string {
  const parts = [`${countOf(s.tools, 'tool')}`];
  for (const f of s.failed) parts.push(`${f.serverName} failed to start: ${f.why}`);
  const withheld = [
    s.withheld.servers ? countOf(s.withheld.servers, 'server') : '',
    s.withheld.tools ? countOf(s.withheld.tools, 'tool') : '',
    s.withheld.skills ? countOf(s.withheld.skills, 'skill') : '',
    s.withheld.languageServers ? 'the language servers' : '',
  ].filter(Boolean);
  if (withheld.length) parts.push(`not in the session: ${withheld.join(', ')}`);
  if (s.blocked.length) parts.push(`nothing mounted (${s.blocked.join(', ')})`);
  return parts.join('; ');
}

function serverLine(s: SessionRecord['servers'][number]): string {
  const what = s.state === 'started' ? `started (${countOf(s.tools ?? 0, 'tool')} listed)`
    : s.state === 'failed' ? `failed to start: ${failureText(s.failure)}`
    : `${s.state}${s.reason ? `: ${s.reason}` : ''}`;
  return `    ${s.serverName}: ${what} [planned: ${s.planned}]`;
}

/**
 * `dsh-bridge sessions`: the folder's recorded DSH sessions, newest first, each with what its plan
 * said and what happened (servers, tools withheld, language servers, skills withheld).
 */
export async function runSessions(ctx: CommandContext): Promise<number> {
  expectNoArgs(ctx);
  const report = await folderSessions(ctx.ports, ctx.folder);
  const now = ctx.ports.now();
  if (ctx.json) {
    ctx.io.out(JSON.stringify({ folder: report.folder, sessions: report.sessions, ...(report.error ? { error: report.error } : {}) }));
    return report.error ? 1 : 0;
  }
  // The record quotes servers, files and errors: shown one line each, hidden characters escaped.
  const out = (line: string) => ctx.io.out(visibleLine(line));
  if (report.error) {
    ctx.io.err(`dsh-bridge: the session records of ${report.folder} cannot be read: ${report.error}`);
    return 1;
  }
  if (!report.sessions.length) {
    out(`No DSH session recorded for ${report.folder} (the DSH plugin records each session that finds a declaration here).`);
    return 0;
  }
  out(`DSH sessions in ${report.folder}, newest first:`);
  for (const record of report.sessions) {
    const summary = summarizeSession(record, now);
    out(`  ${record.id}  ${ago(summary.ageMs)} (${record.updatedAt}, cwd ${record.cwd}): ${sessionLine(summary)}`);
    for (const b of record.blocked) out(`    ${b.message}`);
    for (const s of record.servers) out(serverLine(s));
    for (const t of record.tools.withheld) out(`    tool ${t.name} withheld: ${t.why}`);
    if (record.languageServers) out(`    language servers: ${record.languageServers.state}${record.languageServers.reason ? `: ${record.languageServers.reason}` : ''}`);
    for (const k of record.skills.withheld) out(`    skill ${k.name} withheld (${k.why === 'scan' ? 'its SKILL.md\'s scan' : `its root ${k.root ?? ''} is not trusted`})${k.offeredFrom ? `; offered from ${k.offeredFrom} instead` : ''}`);
  }
  return 0;
}
