import { verifyFolder } from '../core/app/verify';
import { isApprovedIn, selectForApproval, type ServerReview } from '../core/app/approve';
import { CommandUsageError, stringList, type CommandContext } from './context';
import { yesNoQuestions } from './consent';
import { visibleLine } from '../core/json/visibleText';
import { formatMessage } from '../core/problems/problems';
import { userDeclarationFolder } from '../core/app/userSources';

export const APPROVE_USAGE = 'approve [NAME...|lsp] [--yes PIN]...   review servers\' (and language servers\') exact launch and approve their pins for the pinned trust mode';

type Outcome = 'approved' | 'already' | 'declined' | 'refused-no-tty';
const OUTCOME_WORDS: Record<Outcome, string> = {
  approved: 'approved', already: 'already approved (this pin)', declined: 'not approved',
  'refused-no-tty': 'not approved: no terminal to ask (after reading the review, pass --yes with its pin)',
};

/**
 * `dsh-bridge approve [NAME...] --workspace DIR`: for a verified declaration, shows each
 * selected server's exact launch and records the approval the editor's pinned mode records
 * (folder + serverName + pin in the host store). On a terminal it asks y/N per server; without
 * one it approves only the pins named by `--yes`, so a script approves exactly what was reviewed.
 */
export async function runApprove(ctx: CommandContext, input: NodeJS.ReadStream = process.stdin): Promise<number> {
  const { args, json, io } = ctx;
  // --user: the user declaration's servers, approved under its folder in the host store.
  const user = ctx.options.user === true;
  const folder = user ? userDeclarationFolder(ctx.dshHome) : ctx.folder;
  const which = user ? '--user' : `--workspace ${JSON.stringify(folder)}`;
  const yes = new Set(stringList(ctx.options.yes));
  for (const pin of yes) if (!/^sha256:[0-9a-f]{64}$/.test(pin)) throw new CommandUsageError(`--yes takes a full pin (sha256: and 64 hex digits), not "${pin}"`);

  const verified = await verifyFolder(ctx.ports, folder);
  if (!verified.ok || !verified.declaration) {
    const reasons = verified.reasons.map((r) => `${r.code}: ${r.message}`);
    if (json) io.out(JSON.stringify({ folder, approved: [], servers: [], error: 'the declaration does not verify', reasons: verified.reasons }));
    else io.err(`dsh-bridge: nothing approved: the declaration of ${folder} does not verify (${reasons.join('; ')}).\n  Fix: dsh-bridge export ${which}`);
    return 1;
  }
  const declaration = verified.declaration;
  const selection = selectForApproval(declaration, args, yes);
  if (selection.kind === 'unknown-names') {
    throw new CommandUsageError(visibleLine(`no server named ${selection.names.map((n) => `"${n}"`).join(', ')} in the declaration (servers: ${selection.known.join(', ') || 'none'})`));
  }
  if (selection.kind === 'stray-pins') {
    // A pin that matches nothing: the entry changed since it was reviewed. Approve nothing.
    const message = `--yes names a pin that no selected server has (the entry changed since it was reviewed?): ${selection.pins.join(', ')}; nothing approved`;
    if (json) io.out(JSON.stringify({ folder, approved: [], servers: [], error: message }));
    io.err(`dsh-bridge: ${message}`);
    return 1;
  }
  const { servers: selected, languageServers: lspSelected } = selection;

  const { store } = ctx.ports;
  const trustMode = await store.trustMode();
  const record = await store.readFolder(declaration.folder);
  const tty = input.isTTY === true;
  const questions = yesNoQuestions(input);
  try {
    return await approveSelected();
  } finally {
    questions.close();
  }

  async function approveSelected(): Promise<number> {
    /** Shows the review, then records its approval when already given, passed with --yes, or answered yes on the terminal. */
    const approveOne = async (review: { approvalName: string; pin: string; lines: string[] }, question: string): Promise<Outcome> => {
      if (!json) io.out(`${review.lines.join('\n')}\n`);
      let outcome: Outcome;
      if (isApprovedIn(record.approvals, review.approvalName, review.pin)) outcome = 'already';
      else if (yes.has(review.pin)) outcome = 'approved';
      else if (!tty) outcome = 'refused-no-tty';
      else outcome = (await questions.ask(visibleLine(`${question} for DSH sessions in ${declaration.folder}? [y/N] `))) ? 'approved' : 'declined';
      if (outcome === 'approved') await store.approve(declaration.folder, review.approvalName, review.pin);
      if (!json) io.out(`  -> ${OUTCOME_WORDS[outcome]}\n`);
      return outcome;
    };
    const results: Array<ServerReview & { outcome: Outcome }> = [];
    for (const review of selected) results.push({ ...review, outcome: await approveOne(review, `Approve "${review.server.name}"`) });
    const lspOutcome = lspSelected ? await approveOne(lspSelected, 'Approve these language servers') : undefined;

    const ok = results.every((r) => r.outcome === 'approved' || r.outcome === 'already') && (lspOutcome === undefined || lspOutcome === 'approved' || lspOutcome === 'already');
    if (json) {
      io.out(JSON.stringify({
        folder: declaration.folder,
        trustMode,
        servers: results.map(({ server, review, warnings, outcome }) => ({
          name: server.name, serverName: server.serverName, transport: server.transport, pin: server.pin, outcome,
          launch: review.launch, cwd: review.cwd ?? null, envNames: review.envNames, envFile: review.envFile ?? null, envFileNames: review.envFileNames, headerNames: review.headerNames,
          dangers: review.dangers.map((d) => ({ code: d.code, token: d.token })),
          // Every finding the text shows (the dangers and an unpinned launcher), worded as it words them.
          warnings: warnings.map((w) => ({ kind: w.kind, code: w.code, message: formatMessage(w.template, w.args) })),
        })),
        languageServers: lspSelected ? {
          pin: lspSelected.pin,
          outcome: lspOutcome,
          servers: lspSelected.servers.map(({ id, command, args, extensions, envNames }) => ({ id, command, args, extensions, envNames })),
        } : null,
      }));
      return ok ? 0 : 1;
    }
    // The language servers' row counts as one more approval.
    const outcomes = [...results.map((r) => r.outcome), ...(lspOutcome ? [lspOutcome] : [])];
    const approved = outcomes.filter((o) => o === 'approved').length;
    const already = outcomes.filter((o) => o === 'already').length;
    if (!outcomes.length) io.out('The declaration has no server to approve.');
    else io.out(`${approved} approved, ${already} already approved, ${outcomes.length - approved - already} not approved${lspOutcome ? ` (language servers: ${lspOutcome === 'approved' ? 'approved' : lspOutcome === 'already' ? 'already approved' : 'not approved'})` : ''}, for ${declaration.folder}.`);
    const refused = results.filter((r) => r.outcome === 'refused-no-tty');
    const refusedPins = [...refused.map((r) => r.server.pin), ...(lspOutcome === 'refused-no-tty' ? [lspSelected!.pin] : [])];
    if (refusedPins.length) io.err(`dsh-bridge: no terminal to ask: to approve what is shown above, run\n  dsh-bridge approve ${which} ${refusedPins.map((pin) => `--yes ${pin}`).join(' ')}`);
    if (trustMode !== 'pinned' && results.some((r) => r.outcome !== 'declined' && r.outcome !== 'refused-no-tty')) {
      io.out(`Note: the trust mode is "${trustMode}": approvals count only in the pinned mode (dsh-bridge trust pinned).`);
    }
    return ok ? 0 : 1;
  }
}
