/**
 * The folder's language servers into one session, from its plan, as an MCP server is treated:
 * `starts` (approved pin) without asking, `asks` through DSH's in-turn approval, `withheld` said
 * once; then one isolated lsp service for the session. A failed start is not tried again until
 * the declaration or the section's pin changes.
 */
import { languageServersOutline, reviewLanguageServers, shortPin } from '../core/app/approve';
import { languageServersRow } from '../core/app/languageServers';
import { errorText } from './errors';
import { LSP_TOOL_NAME, mountLsp } from './lspMount';
import { approvalReason, reasonText, type MountContext, type StepPlan } from './mcpMounting';
import { decideMount } from './mountDecision';
import { mountKey, type ServerOutcome, type Session } from './session';
import type { Ctx } from './types';

export async function mountLanguageServers(session: Session, step: StepPlan, at: MountContext & { ctx: Ctx }, signal: AbortSignal | undefined): Promise<void> {
  const { plan, declaration } = step.planned;
  const where = session.where;
  const section = plan.blocked.length === 0 ? declaration?.lsp : undefined;
  // The launch lines are built only for a question (reviewLanguageServers below), not at every step.
  const review = section && languageServersOutline(section);
  if (session.lsp && (!review?.registers || session.lsp.pin !== review.pin)) {
    const mount = session.lsp;
    session.lsp = undefined;
    session.lspStopped = true;
    await mount.mounted.unmount();
    at.log.info(`${where}: stopped the language servers of session ${session.agent.id} (the lsp section ${review?.registers ? 'changed' : 'left the declaration or the declaration is no longer valid'})`);
  }
  const entry = plan.languageServers;
  if (!section || !review || !entry || session.ended || at.disposed() || signal?.aborted) return;
  // Keyed and decided as a server is, under the name its approval is recorded by.
  const k = mountKey(review.approvalName, review.pin);
  const label = `language servers ${review.summary} (pin ${shortPin(review.pin)})`;
  const failure = session.failed.get(k);
  if (failure && failure.digest !== step.facts.digest) session.failed.delete(k);
  const mounted = new Map(session.lsp ? [[review.approvalName, session.lsp]] : []);
  const decision = decideMount({ name: review.approvalName, pin: review.pin, outcome: entry.outcome, reason: entry.reason }, { ...session, mounts: mounted, starting: new Map() }, step.facts);
  if (decision.kind === 'skip') return;
  const outcome = (state: ServerOutcome['state'], reason?: string) => {
    session.lspOutcome = { pin: review.pin, state, ...(reason ? { reason } : {}) };
  };
  if (decision.kind === 'withheld') {
    outcome('withheld', reasonText(decision.reason));
    session.once(`${where}: language servers not started: ${reasonText(decision.reason)}`);
    return;
  }
  if (!review.registers) return;
  if (at.providedAlready(session, LSP_TOOL_NAME, true)) {
    outcome('provided-elsewhere', 'an lsp tool is already visible in the session (a profile row)');
    session.once(`${where}: ${label} not started for session ${session.agent.id}: an lsp tool is already visible there (a profile row)`, 'info');
    return;
  }
  if (decision.kind === 'ask') {
    const allowed = await session.askToStart({
      key: k,
      turn: step.facts.turn,
      label,
      toolName: LSP_TOOL_NAME,
      reason: approvalReason(`Start language servers ${review.summary} from ${step.declarationPath}?`, reviewLanguageServers(section).lines, plan.trustMode),
    }, signal);
    if (!allowed) {
      outcome(session.rejected.has(k) ? 'rejected' : 'unanswered', session.rejected.has(k) ? 'rejected by the user in this session' : 'DSH\'s approval was not answered');
      return;
    }
    session.allowed.add(k);
  }
  if (session.ended || at.disposed() || signal?.aborted) return;
  // Rendered again at start: the DSH environment is read now, not at approval time.
  const built = languageServersRow(section, step.values);
  if (!built.ok) {
    outcome('not-started', built.reason);
    session.once(`${where}: ${label} not started: ${built.reason}`);
    return;
  }
  const parent = await session.context();
  if (!parent) return;
  try {
    const lsp = await mountLsp(at.ctx, parent, built.config);
    if (session.ended || at.disposed()) {
      await lsp.unmount();
      return;
    }
    session.lsp = { pin: review.pin, mounted: lsp };
    outcome('started');
    at.log.info(`${where}: started ${label} for session ${session.agent.id} (each server spawns on its first query)`);
  } catch (error) {
    session.failed.set(k, { digest: step.facts.digest, failures: 1 });
    session.lspOutcome = { pin: review.pin, state: 'failed', failure: { error: errorText(error), stderr: [], failures: 1 } };
    session.once(`${where}: ${label} failed to start: ${errorText(error)}; not retried in this session until the declaration or its pin changes`);
  }
}
