import * as path from 'node:path';
import * as readline from 'node:readline';
import { createTwoFilesPatch } from 'diff';
import { applyImport, CLIENT_NAMES, IMPORT_CLIENTS, IMPORT_TARGET_FILES, importPreview, importTargetChoice, isImportClient, reviewImport, type ExportRefusal, type ExportWarning, type ImportNote, type ImportTargetChoice } from '../core/app/import';
import { MOVE_HOLD_TEMPLATES } from '../core/app/portableMove';
import { portableFiles } from '../core/node/portableFiles';
import { problemTemplate } from '../core/app/problemCatalog';
import { problemFix } from '../core/app/problemCodesPage';
import { formatMessage } from '../core/problems/problems';
import { importFiles, TARGET_PATH } from '../core/node/importFiles';
import { countOf } from '../core/problems/plural';
import { CommandUsageError, stringList, type CommandContext } from './context';
import { reviewedWriteConsent } from './consent';
import { visibleLine } from '../core/json/visibleText';


export function unifiedDiff(before: string, after: string): string {
  return createTwoFilesPatch(`a/${TARGET_PATH}`, `b/${TARGET_PATH}`, before, after, undefined, undefined, { context: 3 })
    .replace(/^=+\n/, '')
    .trimEnd();
}

/** The diff of one file of the folder ('' when unchanged); undefined: no file (/dev/null). */
export function fileDiff(file: string, before: string | undefined, after: string | undefined): string {
  if (before === after) return '';
  return createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${file}`, after === undefined ? '/dev/null' : `b/${file}`, before ?? '', after ?? '', undefined, undefined, { context: 3 })
    .replace(/^=+\n/, '')
    .trimEnd();
}

const DOT_MCP_PATH = IMPORT_TARGET_FILES['dot-mcp'];

/** `--to`: where the import writes (default `auto`: where *MCP: Add Server* would, see ImportTargetChoice). */
function importTarget(value: unknown): ImportTargetChoice {
  const choice = value === undefined ? 'auto' : importTargetChoice(value);
  if (choice === undefined) throw new CommandUsageError(`"import --to" takes auto, ${DOT_MCP_PATH} or ${TARGET_PATH}`);
  return choice;
}

/** y/N on a terminal; undefined when there is none to ask. */
export async function askYesNo(question: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<boolean | undefined> {
  if (!input.isTTY || !output.isTTY) return undefined;
  const rl = readline.createInterface({ input, output, terminal: true });
  const answer = await new Promise<string>((resolve) => {
    rl.once('close', () => resolve(''));
    rl.question(question, resolve);
  });
  rl.close();
  return /^(y|yes)$/i.test(answer.trim());
}

/** " (the export refuses 1 of them: "events")", or nothing. */
function refusedOf(refusals: readonly ExportRefusal[]): string {
  if (!refusals.length) return '';
  return visibleLine(` (the export refuses ${refusals.length === 1 ? '1 of them' : `${refusals.length} of them`}: ${refusals.map((r) => `"${r.server}"`).join(', ')})`);
}

function noteLines(notes: readonly ImportNote[]): string[] {
  return notes.map((n) => {
    const where = [n.file, n.server && `server "${n.server}"`, n.field].filter(Boolean).join(': ');
    return `  ${n.kind.padEnd(7)} ${visibleLine(`${where}: ${n.message}`)}`;
  });
}

/** Each reason of a refusal with its message and, where the problem-code page has one, its fix. */
function refusalReasons(refusal: ExportRefusal): Array<{ code: string; message: string; fix?: string }> {
  return refusal.reasons.map(({ code, args }) => {
    const fix = problemFix(code, { quickFix: false });
    return { code, message: formatMessage(problemTemplate(code, args) ?? code, args), ...(fix === undefined ? {} : { fix }) };
  });
}

/** The warnings the editor's Problems and the export will show on the servers to add, each with its message. */
function warningLines(warnings: readonly ExportWarning[]): string[] {
  const lines = [`\n${warnings.length === 1 ? '1 warning on the servers to add' : `${warnings.length} warnings on the servers to add`} (Problems and the export show ${warnings.length === 1 ? 'it' : 'them'} too):`];
  for (const w of warnings) lines.push(`  ${visibleLine(`"${w.server}": ${w.code}: ${formatMessage(problemTemplate(w.code, w.args) ?? w.code, w.args)}`)}`);
  return lines;
}

function refusalLines(refusals: readonly ExportRefusal[]): string[] {
  const lines = [`\n${refusals.length === 1 ? '1 server to add will be refused by the export' : `${refusals.length} servers to add will be refused by the export`} (DSH would not start ${refusals.length === 1 ? 'it' : 'them'}):`];
  for (const r of refusals) {
    for (const reason of refusalReasons(r)) {
      lines.push(`  ${visibleLine(`"${r.server}": ${reason.code}: ${reason.message}`)}`);
      if (reason.fix) lines.push(`    ${visibleLine(`fix: ${reason.fix}`)}`);
    }
  }
  return lines;
}

export async function runImport(ctx: CommandContext, ask: typeof askYesNo = askYesNo): Promise<number> {
  const { folder, io, json } = ctx;
  const from = ctx.options.from;
  if (!isImportClient(from)) throw new CommandUsageError(`"import" needs --from ${IMPORT_CLIENTS.join('|')}`);
  const client = from;
  const yes = stringList(ctx.options.yes);
  const dryRun = ctx.options['dry-run'] === true;
  if (yes.length > 1) throw new CommandUsageError('"import" takes one --yes PREVIEW');
  const to = importTarget(ctx.options.to);

  const { store } = ctx.ports;
  const ports = { ...ctx.ports, imports: importFiles, portable: portableFiles };
  // FILE arguments are relative to the current directory, as --workspace is. Ids with a stored
  // value are the user's: the import gives its credentials other ids.
  const review = await reviewImport(ports, { client, folder, files: ctx.args.map((f) => path.resolve(f)), storedInputIds: [...(await store.readFolder(folder)).inputs.keys()], to });
  if (review.outcome !== 'planned') {
    const message = review.outcome === 'target-unreadable'
      ? `${TARGET_PATH} cannot be edited (${review.reason}); nothing was changed`
      : `no ${CLIENT_NAMES[client]} MCP file found (looked at ${review.looked.join(', ')})`;
    if (json) io.out(JSON.stringify({ written: false, error: message }));
    io.err(`dsh-bridge: ${message}.`);
    return 1;
  }
  const { plan, refusals, warnings, failed, portable } = review;
  const preview = await importPreview(ctx.ports, plan, portable);
  const written = review.writes.join(' and ');
  const diff = () => (portable
    ? [fileDiff(DOT_MCP_PATH, portable.dotMcpBefore, portable.dotMcpAfter), fileDiff(TARGET_PATH, portable.vscodeBefore, portable.vscodeAfter)].filter(Boolean).join('\n')
    : unifiedDiff(plan.before, plan.after));
  const summary = {
    from: client,
    files: review.files,
    preview,
    to: IMPORT_TARGET_FILES[review.to],
    writes: review.writes,
    servers: plan.servers.map((s) => ({ name: s.name, sourceName: s.sourceName, file: s.file, target: portable?.moved.includes(s.name) ? DOT_MCP_PATH : TARGET_PATH })),
    inputs: plan.inputs.map((i) => i.id),
    notes: plan.notes.map(({ code, kind, file, server, field, message }) => ({ code, kind, file, server, field, message })),
    refusedByExport: refusals.map((r) => ({ server: r.server, reasons: refusalReasons(r) })),
    warnings: warnings.map((w) => ({ server: w.server, code: w.code, message: formatMessage(problemTemplate(w.code, w.args) ?? w.code, w.args) })),
  };
  const print = (extra: Record<string, unknown>) => {
    if (json) io.out(JSON.stringify({ ...summary, ...extra }));
  };

  if (!json) {
    if (plan.changed) io.out(diff());
    if (portable?.held.length) {
      io.out(`\n${portable.held.length === 1 ? '1 server goes' : `${portable.held.length} servers go`} to ${TARGET_PATH}, not ${DOT_MCP_PATH}:`);
      for (const h of portable.held) io.out(`  ${visibleLine(`"${h.name}": ${formatMessage(MOVE_HOLD_TEMPLATES[h.code], h.args)}`)}`);
    }
    if (plan.notes.length) {
      io.out(`\nWhat changed or could not be carried (${countOf(plan.notes.length, 'note')}):`);
      for (const line of noteLines(plan.notes)) io.out(line);
    }
    if (refusals.length) for (const line of refusalLines(refusals)) io.out(line);
    if (warnings.length) for (const line of warningLines(warnings)) io.out(line);
    io.out(plan.changed
      ? `\n${countOf(plan.servers.length, 'server')} from ${CLIENT_NAMES[client]} to add to ${written}${refusedOf(refusals)}${plan.inputs.length ? `, with ${countOf(plan.inputs.length, 'password input')}` : ''}${warnings.length ? `; ${countOf(warnings.length, 'warning')} above` : ''} (preview ${preview}).`
      : plan.ok ? `\nNothing to add to ${written}.` : `\nNothing was written to ${written}: the errors above say why.`);
  }
  if (failed || !plan.changed || dryRun) {
    print({ written: false, ...(dryRun && plan.changed ? { diff: diff() } : {}) });
    if (!json && dryRun && plan.changed) io.out(`Dry run: nothing was written. To apply exactly this: dsh-bridge import --from ${client} ...${ctx.options.to === undefined ? '' : ` --to ${String(ctx.options.to)}`} --yes ${preview}`);
    return failed ? 1 : 0;
  }

  const consent = await reviewedWriteConsent({ yes: yes[0], preview, changedSince: `the source or ${written}`, question: `Write these changes to ${written}?`, ask, print, io, json });
  if (consent !== 'write') return consent;

  const applied = await applyImport(ports, folder, plan, async (inputId, value) => { await store.setInput(folder, inputId, value); }, portable);
  if (!applied.written) {
    print({ written: false, error: applied.message });
    io.err(`dsh-bridge: ${applied.message}; nothing was written.`);
    return 1;
  }
  print({ written: true, secretsStored: applied.secretsStored });
  if (!json) {
    io.out(`Wrote ${written}: ${countOf(plan.servers.length, 'server')} imported from ${CLIENT_NAMES[client]}${refusedOf(refusals)}.`);
    if (applied.secretsStored.length) io.out(`Stored ${countOf(applied.secretsStored.length, 'credential')} for ${applied.secretsStored.join(', ')} in ${store.bridgeDir} (not in the workspace).`);
    const missing = applied.toEnter;
    if (missing.length) io.out(`Enter the ${missing.length === 1 ? 'value' : 'values'} of ${missing.join(', ')} with: dsh-bridge inputs set <id>`);
  }
  return 0;
}
