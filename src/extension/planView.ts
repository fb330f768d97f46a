/**
 * The editor's view model of a session plan: what the Verify notification, the status item and
 * the servers view show of "what does a DSH session in this folder get". Free of `vscode`, so
 * plain-Node unit tests cover it (test/unit/extension/planView.test.ts) and the differential test
 * compares it with the plugin, `verify` and `doctor`. Rows are keyed by source file and server
 * name; declaration-wide reasons (stale, deny, another key, another folder) are the folder's and
 * every row's; the counts are the rows'.
 */
import type { PlanOutcome, SessionPlan, ToolState } from '../core/app/plan';
import type { PlanArgs, PlanFix, PlanReason, PlanReasonCode } from '../core/app/planReasons';
import { VSCODE_SOURCE } from '../core/mcp/sources';

export interface PlanViewRow {
  kind: 'server' | 'language-servers';
  /** `<source file>#<name>` for a server, `lsp` for the language servers: stable across refreshes. */
  key: string;
  /** What the row shows: the DSH serverName, or the language servers' ids. */
  label: string;
  /** The name in the source file (`lsp` for the language servers). */
  name: string;
  /** The source file that defines it (folder-relative, or the workspace file's absolute path). */
  file?: string;
  outcome: PlanOutcome;
  code: PlanReasonCode;
  args: PlanArgs;
  fix?: PlanFix;
  tools: Array<{ name: string; publicName: string; state: ToolState; code: PlanReasonCode }>;
}

export interface PlanViewModel {
  /** The session folder. */
  folder: string;
  /** The folder whose declaration applies (the session folder or one above it), when one was found. */
  declarationFolder?: string;
  declaration: SessionPlan['declaration']['state'];
  trustMode: SessionPlan['trustMode'];
  /** Why nothing of the declaration mounts: shown on the folder and on every row. */
  blocked: PlanReason[];
  notes: PlanReason[];
  rows: PlanViewRow[];
  /** Rows by outcome: every row is counted once. */
  counts: Record<PlanOutcome, number>;
  /** Skill names withheld from the session. */
  skillsWithheld: string[];
}

export function planViewModel(plan: SessionPlan): PlanViewModel {
  const rows: PlanViewRow[] = plan.servers.map((s) => {
    const file = s.source ?? VSCODE_SOURCE.path;
    return {
      kind: 'server', key: `${file}#${s.name}`, label: s.serverName, name: s.name, file,
      outcome: s.outcome, code: s.reason.code, args: s.reason.args, ...(s.reason.fix ? { fix: s.reason.fix } : {}),
      tools: (s.tools?.tools ?? []).map((t) => ({ name: t.name, publicName: t.publicName, state: t.state, code: t.reason.code })),
    };
  });
  const lsp = plan.languageServers;
  if (lsp) {
    rows.push({
      kind: 'language-servers', key: 'lsp', label: lsp.servers.map((s) => s.id).join(', '), name: 'lsp',
      outcome: lsp.outcome, code: lsp.reason.code, args: lsp.reason.args, ...(lsp.reason.fix ? { fix: lsp.reason.fix } : {}), tools: [],
    });
  }
  const counts: Record<PlanOutcome, number> = { starts: 0, asks: 0, withheld: 0 };
  for (const row of rows) counts[row.outcome]++;
  return {
    folder: plan.cwd,
    ...(plan.declaration.folder !== undefined ? { declarationFolder: plan.declaration.folder } : {}),
    declaration: plan.declaration.state,
    trustMode: plan.trustMode,
    blocked: plan.blocked,
    notes: plan.notes,
    rows,
    counts,
    skillsWithheld: plan.skills?.withheld.map((w) => w.name) ?? [],
  };
}

/** The rows of one outcome, by label, as a notification lists them. */
export function rowsWith(model: PlanViewModel, outcome: PlanOutcome, kind: PlanViewRow['kind'] = 'server'): string[] {
  return model.rows.filter((r) => r.outcome === outcome && r.kind === kind).map((r) => r.label);
}
