import { applyEdits, modify } from 'jsonc-parser';
import { nodeValue, parseJsonc, propertyValue } from '../json/jsonTree';
import { visibleLine } from '../json/visibleText';
import { analyzeSource } from '../mcp/analyze';
import { PROBLEM_CODES, formatMessage } from '../problems/problems';
import { CLIENT_NAMES, noteTemplate, type ImportNote } from './importNotes';
import type { ImportPlan } from './importPlan';

/**
 * What a face tells about an import besides the diff: the imported servers the export would
 * still refuse and the warnings on them (an honest summary never says "everything was carried"
 * beside those), the report
 * as Markdown grouped by server, and the removal of the carried originals from a source file.
 * Pure; never throws. Words go through `t` (English message, named arguments), as the editor's
 * l10n words them; the CLI passes the English.
 */

export type Words = (english: string, args?: Record<string, string | number>) => string;
const english: Words = (text, args = {}) => formatMessage(text, args);

/** The report's own words (l10n keys; the notes and problems bring theirs). */
export const IMPORT_REPORT_WORDS = {
  title: 'Import from {client}',
  files: 'Files',
  oneServer: '1 server to add',
  servers: '{count} servers to add',
  oneSecret: '1 credential goes to secret storage',
  secrets: '{count} credentials go to secret storage',
  oneRefused: '1 of them is refused by the export',
  refused: '{count} of them are refused by the export',
  from: 'From',
  refusedBy: 'Refused by the export',
  warning: 'Warning',
  oneWarning: '1 warning on them',
  warnings: '{count} warnings on them',
  asIs: 'Carried as it is.',
  changed: 'Changed',
  secret: 'Credential',
  lost: 'Not carried',
  skipped: 'Not imported',
  error: 'Not read',
} as const;

/** An imported server the export refuses, with the problem codes that refuse it. */
export interface ExportRefusal {
  server: string;
  /** The error problems on the server's entry: why it is refused. */
  reasons: Array<{ code: string; args: Record<string, string | number> }>;
}

/** A warning problem on an imported server: the server is exported, but something about it wants the user's eye. */
export interface ExportWarning {
  server: string;
  code: string;
  args: Record<string, string | number>;
}

/**
 * What the export and the editor's Problems will say of the imported servers, read from the file
 * as the import writes it: the servers the export refuses (their error problems), and the warnings
 * on the others and on those (a credential input passed in `args`: `secret-in-args`).
 */
export function exportFindings(plan: ImportPlan, folder: string): { refusals: ExportRefusal[]; warnings: ExportWarning[] } {
  try {
    if (!plan.changed) return { refusals: [], warnings: [] };
    const analysis = analyzeSource(Buffer.from(plan.after, 'utf8'), { folder, folderName: 'folder', userHome: '' });
    const names = new Set(plan.servers.map((s) => s.name));
    const refusals = analysis.rejected.filter((r) => names.has(r.name)).map((r) => ({
      server: r.name,
      reasons: analysis.problems.filter((p) => p.server === r.name && p.severity === 'error').map((p) => ({ code: p.code, args: p.args })),
    }));
    const warnings = analysis.problems.filter((p) => p.severity === 'warning' && p.server !== undefined && names.has(p.server)).map((p) => ({ server: p.server!, code: p.code, args: p.args }));
    return { refusals, warnings };
  } catch {
    return { refusals: [], warnings: [] };
  }
}

/** Inline code that shows any name as it is: hidden characters escaped, no backtick ends it early. */
function code(text: string): string {
  const shown = visibleLine(text);
  const fence = shown.includes('`') ? '`` ' : '`';
  return `${fence}${shown}${fence === '`' ? '`' : ' ``'}`;
}


/**
 * The report: a heading, the counts, then one section per server (its notes, and why the export
 * would refuse it), then the notes about whole files. Each note's sentence once, where it belongs.
 */
export function importReportMarkdown(plan: ImportPlan, files: readonly string[], refusals: readonly ExportRefusal[], t: Words = english, warnings: readonly ExportWarning[] = []): string {
  const out: string[] = [`# ${t(IMPORT_REPORT_WORDS.title, { client: CLIENT_NAMES[plan.client] })}`, ''];
  out.push(`${t(IMPORT_REPORT_WORDS.files)}: ${files.map(code).join(', ') || '-'}`, '');
  const n = plan.servers.length;
  out.push(`- ${n === 1 ? t(IMPORT_REPORT_WORDS.oneServer) : t(IMPORT_REPORT_WORDS.servers, { count: n })}`);
  if (plan.secrets.length) out.push(`- ${plan.secrets.length === 1 ? t(IMPORT_REPORT_WORDS.oneSecret) : t(IMPORT_REPORT_WORDS.secrets, { count: plan.secrets.length })}`);
  if (refusals.length) out.push(`- ${refusals.length === 1 ? t(IMPORT_REPORT_WORDS.oneRefused) : t(IMPORT_REPORT_WORDS.refused, { count: refusals.length })}`);
  if (warnings.length) out.push(`- ${warnings.length === 1 ? t(IMPORT_REPORT_WORDS.oneWarning) : t(IMPORT_REPORT_WORDS.warnings, { count: warnings.length })}`);
  const problemLine = (label: string, r: { code: string; args: Record<string, string | number> }) => {
    const template = Object.hasOwn(PROBLEM_CODES, r.code) ? PROBLEM_CODES[r.code as keyof typeof PROBLEM_CODES][1] : undefined;
    return `- **${t(label)}** (${code(r.code)})${template ? `: ${visibleLine(t(template, r.args))}` : ''}`;
  };
  const line = (note: ImportNote) => {
    const template = noteTemplate(note.code);
    const text = visibleLine(template ? t(template, note.args) : note.message);
    return `- **${t(IMPORT_REPORT_WORDS[note.kind])}**${note.field ? ` ${code(note.field)}` : ''}: ${text}`;
  };
  const byServer = new Map<string, ImportNote[]>();
  for (const s of plan.servers) byServer.set(s.sourceName, []);
  const fileNotes: ImportNote[] = [];
  for (const note of plan.notes) {
    if (note.server === undefined) fileNotes.push(note);
    else byServer.set(note.server, [...(byServer.get(note.server) ?? []), note]);
  }
  for (const [name, notes] of byServer) {
    const imported = plan.servers.find((s) => s.sourceName === name);
    out.push('', `## ${code(name)}${imported && imported.name !== name ? ` → ${code(imported.name)}` : ''}`, '');
    if (imported) out.push(`${t(IMPORT_REPORT_WORDS.from)} ${code(imported.file)}.`, '');
    const refusal = imported && refusals.find((r) => r.server === imported.name);
    if (refusal) for (const r of refusal.reasons) out.push(problemLine(IMPORT_REPORT_WORDS.refusedBy, r));
    const warned = imported ? warnings.filter((w) => w.server === imported.name) : [];
    for (const w of warned) out.push(problemLine(IMPORT_REPORT_WORDS.warning, w));
    for (const note of notes) out.push(line(note));
    if (!notes.length && !refusal && !warned.length) out.push(`- ${t(IMPORT_REPORT_WORDS.asIs)}`);
  }
  if (fileNotes.length) {
    out.push('', `## ${t(IMPORT_REPORT_WORDS.files)}`, '');
    for (const note of fileNotes) out.push(`${line(note)}${note.file ? ` (${code(note.file)})` : ''}`);
  }
  return out.join('\n') + '\n';
}

/** Where each JSON client keeps the servers of a file in the workspace. */
const SERVERS_KEY = 'mcpServers';

/**
 * The source file's text without the carried servers' entries (their credentials with them):
 * only the names given, only under the root `mcpServers` of a JSON file; comments and the
 * formatting of the rest stay. Undefined when nothing of it would change or it cannot be edited.
 */
export function withoutCarried(text: string, names: readonly string[]): { text: string; removed: string[] } | undefined {
  try {
    const parsed = parseJsonc(text);
    if (parsed.tooDeep || parsed.errors.length || parsed.root?.type !== 'object') return undefined;
    const servers = propertyValue(parsed.root, SERVERS_KEY);
    if (servers?.type !== 'object') return undefined;
    const present = new Set(Object.keys(nodeValue(servers) as Record<string, unknown>));
    let out = text;
    const removed: string[] = [];
    for (const name of new Set(names)) {
      if (!present.has(name)) continue;
      out = applyEdits(out, modify(out, [SERVERS_KEY, name], undefined, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
      removed.push(name);
    }
    return removed.length ? { text: out, removed } : undefined;
  } catch {
    return undefined;
  }
}
