import type { VerifyResult } from '../declaration/declarationModel';
import type { PlannedSession, SessionPlan } from './plan';
import { planMessage } from './planReasons';
import { withheldOf } from './planWithheld';
import { formatMessage } from '../problems/problems';

/**
 * The `dsh` object of `dsh-bridge verify --json` and of the editor's *Verify Declaration* (with
 * `{dsh: true}`): the keys of earlier versions, `servers` now only those that start without
 * asking (`asks`: those DSH asks about), and the whole plan under `plan`.
 */
export function planJson(plan: SessionPlan) {
  const lsp = plan.languageServers;
  return {
    trustMode: plan.trustMode,
    /** Something of the declaration can mount (it verifies for DSH, and the mode is not deny). */
    mounts: plan.blocked.length === 0,
    /** Servers that start without asking. */
    servers: plan.servers.filter((s) => s.outcome === 'starts').map((s) => s.serverName),
    /** Servers DSH asks about inside the session (none start in a headless run). */
    asks: plan.servers.filter((s) => s.outcome === 'asks').map((s) => s.serverName),
    withheld: plan.servers.filter((s) => s.outcome === 'withheld').map((s) => ({ serverName: s.serverName, code: s.reason.code })),
    /** Servers the machine's DSH policy withholds, with the rule (also in `withheld`). */
    policyWithheld: plan.servers.filter((s) => s.reason.code.startsWith('dsh-policy-')).map((s) => ({ serverName: s.serverName, code: s.reason.code, why: planMessage(s.reason, formatMessage) })),
    languageServers: lsp?.outcome === 'starts' ? lsp.servers : [],
    languageServersOutcome: lsp ? lsp.outcome : null,
    languageServersInvalid: lsp?.reason.code === 'lsp-invalid-entry',
    skills: plan.skills ? { roots: plan.skills.roots.map(({ reason: _reason, ...root }) => root), withheld: plan.skills.withheld } : { roots: [], withheld: [] },
    /** Everything withheld (servers, tools, skills, language servers), as doctor --json and export --json list it. */
    withheldItems: withheldOf(plan),
    plan,
  };
}


/**
 * The verify reasons a face reports for a planned session: the declaration's, `missing` when none
 * was found, and `unreadable` (with the error) when the plan itself could not be worked out.
 */
export function verifyReasonsOf(planned: Pick<PlannedSession, 'plan' | 'verified'>): VerifyResult['reasons'] {
  if (planned.verified) return planned.verified.reasons;
  const failed = planned.plan.blocked.find((r) => r.code === 'plan-failed');
  return failed
    ? [{ code: 'unreadable', message: `what a session gets could not be worked out (${String(failed.args.error)})` }]
    : [{ code: 'missing', message: 'no declaration: export first' }];
}
